//! The run format of the RLE/bit-packed hybrid (Parquet's levels and dictionary indices):
//! run headers, RLE run values and bit-packed groups, read one run at a time. The sources'
//! hybrid decoder and the AVX-512 hybrid kernel both walk streams with it.

use super::MinMaxSum;
use crate::status::Status;

/// The number of bytes of a Parquet RLE run value for a given bit width: ⌈width/8⌉.
pub(crate) fn rle_value_bytes(width: u32) -> usize {
    width.div_ceil(8) as usize
}

/// Reads a run header of the RLE/bit-packed hybrid (ULEB128, at most 4 bytes) at `*pos` and
/// advances `*pos` past it. Truncated: 232 `SRC_IS_SHORT_ERR`. A 4th byte with its
/// continuation bit set: 220 `PRLE_FORMAT_ERR` (the accelerator's limit).
pub fn read_run_header(data: &[u8], pos: &mut usize) -> Result<u32, Status> {
    let mut value = 0u32;
    for i in 0..4 {
        let byte = *data.get(*pos + i).ok_or(Status::SRC_IS_SHORT_ERR)?;
        value |= u32::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            *pos += i + 1;
            return Ok(value);
        }
    }
    Err(Status::PRLE_FORMAT_ERR)
}

/// Reads the run at `*pos` of a hybrid stream of `width` (0..=32) bits and moves `*pos` past
/// what it uses: the run's first `wanted` values at most, as a fill or as the bit-packed
/// groups holding them. Errors as the sources' `decode_hybrid`'s (`*pos` then stays where it
/// was).
#[inline(always)]
pub(crate) fn read_run<'a>(
    data: &'a [u8],
    pos: &mut usize,
    width: u32,
    wanted: usize,
) -> Result<Piece<'a>, Status> {
    if let Some(fill) = short_rle_run(data, pos, width, wanted) {
        return Ok(fill);
    }
    let mut at = *pos;
    let header = read_run_header(data, &mut at)?;
    let run_len = (header >> 1) as usize;
    let piece = if header & 1 == 0 {
        let value_bytes = rle_value_bytes(width);
        let bytes = data
            .get(at..at + value_bytes)
            .ok_or(Status::SRC_IS_SHORT_ERR)?;
        at += value_bytes;
        // Not masked to the width: the accelerator keeps all ⌈width/8⌉ bytes (D5).
        let value = bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        Piece::Fill {
            value,
            count: run_len.min(wanted),
        }
    } else {
        let take = run_len.saturating_mul(8).min(wanted);
        // Every group that holds a wanted value must be whole.
        let needed = take.div_ceil(8) * width as usize;
        let src = data.get(at..at + needed).ok_or(Status::SRC_IS_SHORT_ERR)?;
        at += needed;
        Piece::Packed { src, count: take }
    };
    *pos = at;
    Ok(piece)
}

/// [`read_run`] of an RLE run that [`parse_short_rle_run`] reads (most RLE runs). `None`
/// (nothing consumed) for the others.
#[inline(always)]
fn short_rle_run<'a>(data: &[u8], pos: &mut usize, width: u32, wanted: usize) -> Option<Piece<'a>> {
    let (used, value, run_len) = parse_short_rle_run(data, *pos, width)?;
    *pos += used;
    Some(Piece::Fill {
        value,
        count: run_len.min(wanted),
    })
}

/// The RLE run at `pos` when its header has 1 or 2 bytes and `data` has 8 bytes from `pos`:
/// (its header and value bytes, its value, its length), read from one 8-byte load without a
/// branch on the header's length, which runs of random lengths mispredict (RLE runs of
/// 8..=200 values: +8–30 % from L1 in the AVX-512 walk). `None` for any other run.
#[inline(always)]
fn parse_short_rle_run(data: &[u8], pos: usize, width: u32) -> Option<(usize, u32, usize)> {
    let word = u64::from_le_bytes(*data.get(pos..)?.first_chunk::<8>()?);
    if word & 0x8080 == 0x8080 {
        // A header of 3 or more bytes.
        return None;
    }
    // 1 or 2 header bytes: the first byte's continuation bit.
    let second = (word >> 7) & 1;
    let header_len = 1 + second as usize;
    let header = (word & 0x7F) | ((word >> 1) & 0x3F80 & second.wrapping_neg());
    if header & 1 != 0 {
        return None;
    }
    // ⌈width/8⌉ ≤ 4 bytes after the header, inside the 8 loaded; not masked to the width
    // (D5).
    let value_bytes = rle_value_bytes(width);
    let value = ((word >> (8 * header_len)) & ((1 << (8 * value_bytes)) - 1)) as u32;
    Some((header_len + value_bytes, value, (header >> 1) as usize))
}

/// A run of a hybrid stream (its wanted values), as [`read_run`] reads it.
pub(crate) enum Piece<'a> {
    /// `count` copies of `value` (an RLE run's ⌈width/8⌉ value bytes, not masked).
    Fill { value: u32, count: usize },
    /// `count` values packed LSB first at the stream's width from the start of `src`, which
    /// holds the ⌈count/8⌉ groups they are in.
    Packed { src: &'a [u8], count: usize },
}

/// The runs holding the first `count` values of a hybrid stream (without the bit-width byte)
/// of `width` bits (1..=32), each as the number of values before it and its wanted values,
/// as the sources' `decode_hybrid` reads them; ends after `count` values, or before the first
/// run that is not whole (a truncated header, value or group) or has a header over 4 bytes.
/// [`HybridRuns::walked`] then says how far it got: `decode_hybrid` goes on from there and
/// reports the error. A cursor (not a callback) so that the SIMD kernel's loop holds the
/// parsing and the writing with no call between; not an `Iterator`, whose `for` loops over
/// `&mut runs` went through `<&mut I as Iterator>::next`, which LLVM left a call per run.
/// ([`hybrid_walk`] and the AVX-512 kernel walk runs so.)
pub(crate) struct HybridRuns<'a> {
    data: &'a [u8],
    width: u32,
    count: usize,
    done: usize,
    pos: usize,
}

impl<'a> HybridRuns<'a> {
    pub(crate) fn new(data: &'a [u8], width: u32, count: usize) -> HybridRuns<'a> {
        HybridRuns {
            data,
            width,
            count,
            done: 0,
            pos: 0,
        }
    }

    /// (values, bytes) handed over so far.
    pub(crate) fn walked(&self) -> (usize, usize) {
        (self.done, self.pos)
    }

    /// The next run when it is a nonempty RLE run that [`parse_short_rle_run`] reads and
    /// that ends at least `spare` values before the `count` wanted: (values before it, its
    /// value, its length). `None` (nothing consumed) for any other run, which
    /// [`HybridRuns::next_run`] reads: the fast path of a stream of RLE runs, with no case
    /// for a run cut short at the end.
    #[inline(always)]
    pub(crate) fn next_short_fill(&mut self, spare: usize) -> Option<(usize, u32, usize)> {
        let (used, value, run_len) = parse_short_rle_run(self.data, self.pos, self.width)?;
        if run_len == 0 || self.done + run_len + spare > self.count {
            return None;
        }
        let before = self.done;
        self.done += run_len;
        self.pos += used;
        Some((before, value, run_len))
    }

    /// The next run with wanted values: the number of values before it, and the run.
    #[inline(always)]
    pub(crate) fn next_run(&mut self) -> Option<(usize, Piece<'a>)> {
        while self.done < self.count {
            let before = self.done;
            let mut pos = self.pos;
            let piece = read_run(self.data, &mut pos, self.width, self.count - before).ok()?;
            self.pos = pos;
            let (Piece::Fill { count, .. } | Piece::Packed { count, .. }) = piece;
            self.done += count;
            // Runs of no wanted value (a zero count) are skipped.
            if count > 0 {
                return Some((before, piece));
            }
        }
        None
    }
}

/// Bytes a fill of [`hybrid_walk`] may store past its run (whole copies of the value, which
/// the next runs overwrite): it stores whole vectors of this many bytes.
pub(crate) const FILL_SPILL: usize = 32;

/// The portable and NEON kernels of [`super::hybrid_to_le_bytes`] (same contract), with the
/// tier's kernels as `fill` and `unpack`: [`hybrid_walk_spilling`] with fills that store up
/// to [`FILL_SPILL`] − 1 bytes past their runs.
#[inline(always)]
pub(crate) fn hybrid_walk<const AGGREGATE: bool>(
    width: u32,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
    fill: impl Fn(u32, &mut [u8], usize),
    unpack: impl Fn(&[u8], &mut [u8]) -> MinMaxSum,
) -> (usize, usize, MinMaxSum) {
    hybrid_walk_spilling::<AGGREGATE, FILL_SPILL>(width, data, mask, out, FnFill(fill), unpack)
}

/// The fill of a run in [`hybrid_walk_spilling`]: `fill(value, to, len)` as documented
/// there. A trait whose implementations mark it `#[inline(always)]`, where a closure passed
/// as `impl Fn` was left out of line by LLVM (a call per run) once its fill grew loops.
pub(crate) trait RunFill {
    /// Fills `len` bytes (a multiple of 4) of `to` with copies of `value`, and maybe more.
    fn fill(&self, value: u32, to: &mut [u8], len: usize);
}

/// A function or closure as a [`RunFill`].
struct FnFill<F>(F);

impl<F: Fn(u32, &mut [u8], usize)> RunFill for FnFill<F> {
    #[inline(always)]
    fn fill(&self, value: u32, to: &mut [u8], len: usize) {
        (self.0)(value, to, len);
    }
}

/// Every tier's kernel of [`super::hybrid_to_le_bytes`] but AVX-512's (same contract), with
/// the tier's kernels as `fill` and `unpack`: one loop over the runs with no call between a
/// run's header and its values. `fill.fill(value, to, len)` stores `len / 4` copies of
/// `value` (little-endian) from the start of `to` and may store whole copies after them up
/// to `SPILL` − 1 bytes (a multiple of 4 up to 256: it is handed that room when `out` has
/// it, else exactly `len` bytes); `unpack(src, to, aggregate)` decodes the `to.len() / 4`
/// values packed at the stream's width from the start of `src` as little-endian `u32`s into
/// `to`, with their aggregates when `AGGREGATE`. A run's spill stays inside `out` and the
/// runs after it overwrite it; when the walk stops early, up to `SPILL` − 4 bytes after the
/// values may have been written (within the contract's 64 · `FILL_LINES` − 1).
#[inline(always)]
pub(crate) fn hybrid_walk_spilling<const AGGREGATE: bool, const SPILL: usize>(
    width: u32,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
    fill: impl RunFill,
    unpack: impl Fn(&[u8], &mut [u8]) -> MinMaxSum,
) -> (usize, usize, MinMaxSum) {
    const {
        assert!(SPILL >= 4 && SPILL.is_multiple_of(4) && SPILL < 64 * super::FILL_LINES + 4);
    }
    let mut aggregates = MinMaxSum::NONE;
    let mut runs = HybridRuns::new(data, width, out.len() / 4);
    loop {
        // RLE runs with room for a fill's spill after them, the common case, first.
        while let Some((done, value, count)) = runs.next_short_fill(SPILL / 4) {
            let (start, len) = (4 * done, 4 * count);
            let value = value & mask;
            fill.fill(value, &mut out[start..start + len + SPILL - 4], len);
            if AGGREGATE {
                aggregates = aggregates.merge(MinMaxSum::run(value, count as u64));
            }
        }
        let Some((done, piece)) = runs.next_run() else {
            break;
        };
        match piece {
            Piece::Fill { value, count } => {
                let (start, len) = (4 * done, 4 * count);
                let value = value & mask;
                let room = (start + len + SPILL - 4).min(out.len());
                fill.fill(value, &mut out[start..room], len);
                if AGGREGATE {
                    aggregates = aggregates.merge(MinMaxSum::run(value, count as u64));
                }
            }
            Piece::Packed { src, count } => {
                let run = unpack(src, &mut out[4 * done..4 * (done + count)]);
                aggregates = aggregates.merge(run);
            }
        }
    }
    let (values, bytes) = runs.walked();
    (values, bytes, aggregates)
}
