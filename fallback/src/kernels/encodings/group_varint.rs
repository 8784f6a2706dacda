//! GroupVarInt INT32's tables and portable fast path: whole groups decoded while each has a
//! full 16-byte window after its control byte (the codec checks the groups near the data's
//! end). A leaf module: the SSSE3, AVX2 and AVX-512 decoders (`ssse3`, `avx2::encodings`,
//! `avx512::encodings`) share its tables and the dispatch in `kernels::encodings`
//! (`group_varint_32`) picks among them; this module imports none of those.

/// Bytes of the INT32 group with control byte `c`, control byte excluded (4..=16).
const GROUP_DATA_LEN_32: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = ((c & 3) + ((c >> 2) & 3) + ((c >> 4) & 3) + (c >> 6) + 4) as u8;
        c += 1;
    }
    table
};

/// Bytes of the INT32 group with control byte `control`, the control byte included
/// (5..=17): how far every decoder steps from one group to the next.
#[inline(always)]
pub(crate) fn group_bytes_32(control: u8) -> usize {
    1 + usize::from(GROUP_DATA_LEN_32[usize::from(control)])
}

/// Byte offset (after the control byte) and length of each int of the INT32 group with
/// control byte `c`.
const fn int_layout_32(c: usize) -> ([usize; 4], [usize; 4]) {
    let mut offsets = [0; 4];
    let mut lengths = [0; 4];
    let mut offset = 0;
    let mut i = 0;
    while i < 4 {
        let len = ((c >> (6 - 2 * i)) & 3) + 1;
        offsets[i] = offset;
        lengths[i] = len;
        offset += len;
        i += 1;
    }
    (offsets, lengths)
}

/// The `pshufb` masks: lane byte `4i + b` takes window byte `offset_i + b` for `b < len_i`,
/// else zero (0x80).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const SHUFFLE_32: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut c = 0;
    while c < 256 {
        let (offsets, lengths) = int_layout_32(c);
        let mut i = 0;
        while i < 4 {
            let mut b = 0;
            while b < lengths[i] {
                table[c][4 * i + b] = (offsets[i] + b) as u8;
                b += 1;
            }
            i += 1;
        }
        c += 1;
    }
    table
};

/// Each int's offset in the window, for the portable path.
const OFFSETS_32: [[u8; 4]; 256] = {
    let mut table = [[0u8; 4]; 256];
    let mut c = 0;
    while c < 256 {
        let (offsets, _) = int_layout_32(c);
        let mut i = 0;
        while i < 4 {
            table[c][i] = offsets[i] as u8;
            i += 1;
        }
        c += 1;
    }
    table
};

/// The bytes a group may span (control byte included) for the fast paths' 16-byte window.
pub(crate) const WINDOW_32: usize = 17;

/// Byte length − 1 of the INT32 group's int `i` in control byte `control`.
#[inline(always)]
pub(crate) fn field_32(control: u8, i: usize) -> u32 {
    u32::from(control >> (6 - 2 * i)) & 3
}

/// Decodes whole INT32 groups while each has a full 16-byte window after its control byte;
/// returns the byte after them and the values decoded.
pub(crate) fn decode_fast_portable_32(
    data: &[u8],
    mut pos: usize,
    out: &mut [i32],
) -> (usize, usize) {
    let mut done = 0;
    for group in out.chunks_exact_mut(4) {
        let Some(window) = data.get(pos..pos + WINDOW_32) else {
            break;
        };
        let control = window[0];
        let offsets = OFFSETS_32[usize::from(control)];
        for (i, value) in group.iter_mut().enumerate() {
            let at = 1 + usize::from(offsets[i]);
            let word =
                u32::from_le_bytes([window[at], window[at + 1], window[at + 2], window[at + 3]]);
            // Keep the int's (field + 1) bytes: shifting the all-ones word right by
            // 8 * (3 - field) bits.
            let mask = u32::MAX >> (8 * (3 - field_32(control, i)));
            *value = (word & mask) as i32;
        }
        pos += group_bytes_32(control);
        done += 4;
    }
    (pos, done)
}
