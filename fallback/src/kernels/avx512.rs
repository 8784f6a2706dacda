use std::arch::x86_64::*;

pub(super) mod encodings;

use super::runs::{HybridRuns, Piece};
use super::{low_bits, Compare, MinMaxSum, FILL_LINES};

/// Byte-permutation and shift vectors for one width, bit order and first bit. A 64-byte
/// window holds 16 whole elements starting at bit `first` (0..8) of its first byte
/// (first + 16·width ≤ 7 + 16·31 < 512 bits): the permutation gives lane i the bytes
/// holding element i, a per-lane shift aligns its bits. Consecutive windows are 2·width
/// bytes apart, so every window of a stream has the same first bit.
///
/// Widths up to 25 fit a 32-bit lane at any bit offset; widths 26..=31 use 64-bit lanes,
/// two permutations (elements 0..8 and 8..16) per window. Widths 8, 16, 24 and 32 at
/// first bit 0 need no shift: one zero-masking permutation places their bytes.
struct Plan {
    /// 32-bit lanes: one permutation. 64-bit lanes: elements 0..8.
    bytes_low: [u8; 64],
    /// 64-bit lanes: elements 8..16.
    bytes_high: [u8; 64],
    shifts: [u32; 16],
    /// `shifts` widened to 64-bit lanes (elements 0..8, then 8..16), ready to load: a
    /// vector load of values just stored one by one would stall on store forwarding,
    /// which short Parquet runs (a decoder per group of 8) would pay every time.
    shifts64: [u64; 16],
    /// Whole-byte widths at first bit 0: lane i takes element i's width/8 bytes, least
    /// significant first, in its low bytes; `whole_lanes` keeps those bytes (the others
    /// are zeroed). Unused (zero) otherwise.
    bytes_whole: [u8; 64],
    whole_lanes: u64,
}

/// The bytes of the lane that holds the element starting at `bit`, and the right shift
/// that aligns it, for lanes of `lane_bytes` bytes.
fn lane(bit: usize, width: usize, lane_bytes: usize, big_endian: bool) -> ([u8; 8], u32) {
    let (offset, shift) = (bit / 8, bit % 8);
    let mut bytes = [0u8; 8];
    for (j, b) in bytes[..lane_bytes].iter_mut().enumerate() {
        let from = if big_endian {
            offset + lane_bytes - 1 - j
        } else {
            offset + j
        };
        // Past byte 63 only bytes beyond the element's last one (which ends by bit
        // 7 + 16·31 < 504): any byte will do, the shift and mask drop them.
        *b = from.min(63) as u8;
    }
    // Little-endian lanes hold the element at `shift`; big-endian lanes hold it `shift`
    // bits below their top.
    let right = if big_endian {
        lane_bytes * 8 - shift - width
    } else {
        shift
    };
    (bytes, right as u32)
}

fn plan(width: u32, big_endian: bool, first: usize) -> Plan {
    let w = width as usize;
    let mut p = Plan {
        bytes_low: [0; 64],
        bytes_high: [0; 64],
        shifts: [0; 16],
        shifts64: [0; 16],
        bytes_whole: [0; 64],
        whole_lanes: 0,
    };
    for i in 0..16 {
        let bit = first + i * w;
        // Width 32 is always byte-aligned: a 32-bit lane, no shift.
        if width <= 25 || width == 32 {
            let (bytes, shift) = lane(bit, w, 4, big_endian);
            p.bytes_low[i * 4..i * 4 + 4].copy_from_slice(&bytes[..4]);
            p.shifts[i] = shift;
        } else {
            let (bytes, shift) = lane(bit, w, 8, big_endian);
            let to = if i < 8 {
                &mut p.bytes_low
            } else {
                &mut p.bytes_high
            };
            to[i % 8 * 8..i % 8 * 8 + 8].copy_from_slice(&bytes);
            // Shifts of 64-bit lanes: even 32-bit slots (the odd ones stay 0).
            p.shifts[i] = shift;
        }
    }
    p.shifts64 = p.shifts.map(u64::from);
    if width.is_multiple_of(8) && first == 0 {
        let n = w / 8;
        for i in 0..16 {
            for j in 0..n {
                let from = if big_endian { n - 1 - j } else { j };
                p.bytes_whole[i * 4 + j] = (i * n + from) as u8;
                p.whole_lanes |= 1 << (i * 4 + j);
            }
        }
    }
    p
}

/// The plan of a width, order and first bit (0..8). Each width and order's eight plans are
/// built together on first use and kept (short Parquet runs call the kernels for as few
/// as 8 values).
fn cached_plan_at(width: u32, big_endian: bool, first: usize) -> &'static Plan {
    use std::sync::OnceLock;
    static PLANS: [OnceLock<Box<[Plan; 8]>>; 64] = [const { OnceLock::new() }; 64];
    let slot = &PLANS[((width - 1) * 2 + u32::from(big_endian)) as usize];
    // Elements of whole bytes always start on a byte boundary: one plan serves them all
    // (a 32-bit element at another bit would not fit a 32-bit lane).
    let first_of = |f: usize| if width.is_multiple_of(8) { 0 } else { f };
    let plans = slot.get_or_init(|| {
        Box::new(std::array::from_fn(|f| {
            plan(width, big_endian, first_of(f))
        }))
    });
    &plans[first]
}

/// How a [`Decoder16`] decodes, a const parameter of the unpacking loop.
const NARROW: u8 = 0;
const WIDE: u8 = 1;
const WHOLE: u8 = 2;

/// `$body` with `$kind` a const of `$decoder`'s kind: the loop in it is monomorphised per
/// kind, not a branch on the kind per window.
macro_rules! with_kind {
    ($decoder:expr, $kind:ident => $body:expr) => {
        match $decoder.kind {
            NARROW => {
                const $kind: u8 = NARROW;
                $body
            }
            WIDE => {
                const $kind: u8 = WIDE;
                $body
            }
            _ => {
                const $kind: u8 = WHOLE;
                $body
            }
        }
    };
}

/// Decodes 16 elements from one 64-byte window into 32-bit lanes.
#[derive(Clone, Copy)]
struct Decoder16 {
    low: __m512i,
    high: __m512i,
    shifts: __m512i,
    /// Shifts of 64-bit lanes: 8 elements each.
    shifts64_low: __m512i,
    shifts64_high: __m512i,
    mask: __m512i,
    whole: __m512i,
    whole_lanes: u64,
    /// [`NARROW`], [`WIDE`] or [`WHOLE`].
    kind: u8,
    /// Bytes from one window to the next: 16 elements.
    step: usize,
}

impl Decoder16 {
    /// For elements from a byte boundary.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn new(width: u32, big_endian: bool) -> Decoder16 {
        Decoder16::at(width, big_endian, 0)
    }

    /// For elements from bit `first` (0..8) of the window's first byte.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn at(width: u32, big_endian: bool, first: usize) -> Decoder16 {
        let p = cached_plan_at(width, big_endian, first);
        let mask = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        let kind = if p.whole_lanes != 0 {
            WHOLE
        } else if width <= 25 {
            NARROW
        } else {
            WIDE
        };
        // SAFETY: each load reads 64 bytes of a 64-byte array (`shifts64` is 128 bytes:
        // elements 0..8 from its start, 8..16 from its middle).
        unsafe {
            Decoder16 {
                low: _mm512_loadu_si512(p.bytes_low.as_ptr().cast()),
                high: _mm512_loadu_si512(p.bytes_high.as_ptr().cast()),
                shifts: _mm512_loadu_si512(p.shifts.as_ptr().cast()),
                shifts64_low: _mm512_loadu_si512(p.shifts64.as_ptr().cast()),
                shifts64_high: _mm512_loadu_si512(p.shifts64[8..].as_ptr().cast()),
                mask: _mm512_set1_epi32(mask as i32),
                whole: _mm512_loadu_si512(p.bytes_whole.as_ptr().cast()),
                whole_lanes: p.whole_lanes,
                kind,
                step: 2 * width as usize,
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn decode(&self, window: __m512i) -> __m512i {
        with_kind!(self, KIND => self.decode_as::<KIND>(window))
    }

    /// `decode` for a decoder of kind `KIND` (the caller's loop is monomorphised).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn decode_as<const KIND: u8>(&self, window: __m512i) -> __m512i {
        match KIND {
            NARROW => {
                let gathered = _mm512_permutexvar_epi8(self.low, window);
                _mm512_and_si512(_mm512_srlv_epi32(gathered, self.shifts), self.mask)
            }
            WHOLE => _mm512_maskz_permutexvar_epi8(self.whole_lanes, self.whole, window),
            _ => {
                let low =
                    _mm512_srlv_epi64(_mm512_permutexvar_epi8(self.low, window), self.shifts64_low);
                let high = _mm512_srlv_epi64(
                    _mm512_permutexvar_epi8(self.high, window),
                    self.shifts64_high,
                );
                // The low 32 bits of each 64-bit lane, elements 0..8 then 8..16.
                let even =
                    _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
                _mm512_and_si512(_mm512_permutex2var_epi32(low, even, high), self.mask)
            }
        }
    }
}

/// The mask of the first `count` (≤ 16) lanes of a vector of 32-bit lanes.
#[inline]
fn low_lanes(count: usize) -> u16 {
    low_bits(count) as u16
}

/// Loads the 64-byte window at `at`, zero past the end of `src`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
fn window(src: &[u8], at: usize) -> __m512i {
    let available = src.len().saturating_sub(at);
    if available >= 64 {
        // SAFETY: bytes at..at+64 are inside `src`.
        unsafe { _mm512_loadu_si512(src.as_ptr().add(at).cast()) }
    } else {
        let mask = (1u64 << available) - 1;
        // SAFETY: only the `available` bytes from `at` (inside `src`) are read; AVX-512
        // suppresses faults of masked-off bytes. `at.min(len)` keeps the pointer in
        // bounds (one past the end at most).
        unsafe { _mm512_maskz_loadu_epi8(mask, src.as_ptr().add(at.min(src.len())).cast()) }
    }
}

/// Lanes of 32 bits from `out` to the next 64-byte boundary (0..16); 0 when `out` is not
/// 4-byte aligned (no element store could then be aligned).
#[inline]
fn lanes_to_boundary(out: *const u8) -> usize {
    let bytes = (out as usize).wrapping_neg() % 64;
    if bytes.is_multiple_of(4) {
        bytes / 4
    } else {
        0
    }
}

/// Running value aggregates of 32-bit lanes: lane-wise minimum, maximum and wrapping sum.
#[derive(Clone, Copy)]
struct Aggregator {
    min: __m512i,
    max: __m512i,
    sum: __m512i,
}

impl Aggregator {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Aggregator {
        Aggregator {
            min: _mm512_set1_epi32(-1),
            max: _mm512_setzero_si512(),
            sum: _mm512_setzero_si512(),
        }
    }

    /// Adds the lanes of `values` selected by `lanes`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add(&mut self, lanes: u16, values: __m512i) {
        self.min = _mm512_mask_min_epu32(self.min, lanes, self.min, values);
        self.max = _mm512_mask_max_epu32(self.max, lanes, self.max, values);
        self.sum = _mm512_mask_add_epi32(self.sum, lanes, self.sum, values);
    }

    /// Adds all 16 lanes of `values`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add_all(&mut self, values: __m512i) {
        self.min = _mm512_min_epu32(self.min, values);
        self.max = _mm512_max_epu32(self.max, values);
        self.sum = _mm512_add_epi32(self.sum, values);
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn merge(self, other: Aggregator) -> Aggregator {
        Aggregator {
            min: _mm512_min_epu32(self.min, other.min),
            max: _mm512_max_epu32(self.max, other.max),
            sum: _mm512_add_epi32(self.sum, other.sum),
        }
    }

    /// The aggregates over the lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn reduce(self) -> MinMaxSum {
        MinMaxSum {
            min: _mm512_reduce_min_epu32(self.min),
            max: _mm512_reduce_max_epu32(self.max),
            sum: _mm512_reduce_add_epi32(self.sum) as u32,
        }
    }
}

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI and POPCNT, `width` is 1..=32, and `out` is
/// valid for `count · 4` byte writes. (`src` should hold ⌈count·width/8⌉ bytes; nothing
/// past its end is read, and missing bytes decode as zeros.)
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn unpack(width: u32, big_endian: bool, src: &[u8], count: usize, out: *mut u8) {
    // SAFETY: the caller's guarantees.
    unsafe { unpack_aggregating::<false>(width, big_endian, src, count, out) };
}

/// [`unpack`] that also returns the values' aggregates when `AGGREGATE`, from the
/// registers they are stored from (read back from `out`, they would wait for their
/// stores); [`MinMaxSum::NONE`] otherwise.
///
/// # Safety
/// As [`unpack`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn unpack_aggregating<const AGGREGATE: bool>(
    width: u32,
    big_endian: bool,
    src: &[u8],
    count: usize,
    out: *mut u8,
) -> MinMaxSum {
    if width == 1 {
        // SAFETY: the caller's guarantees, which `unpack_bits` shares; `out` then holds
        // `count` u32s.
        unsafe {
            unpack_bits(big_endian, src, count, out);
            return if AGGREGATE {
                min_max_sum(out, count)
            } else {
                MinMaxSum::NONE
            };
        }
    }
    let mut aggregator = Aggregator::new();
    // A store that straddles two cache lines costs two, and output buffers are rarely
    // 64-byte aligned: the first `head` elements go alone, then the rest from the
    // boundary, with a decoder for the bit at which element `head` starts.
    let head = lanes_to_boundary(out);
    let decoder = Decoder16::new(width, big_endian);
    if head == 0 || count < head + 64 {
        // SAFETY: the caller's guarantees.
        unsafe { unpack_from::<AGGREGATE>(&decoder, src, count, out, &mut aggregator) };
    } else {
        let bit = head * width as usize;
        let aligned = Decoder16::at(width, big_endian, bit % 8);
        // SAFETY: the first `head` elements, then the other count - head from the bytes
        // that hold them, written from `out + 4·head`, inside `out`'s `count · 4` bytes.
        unsafe {
            unpack_from::<AGGREGATE>(&decoder, src, head, out, &mut aggregator);
            let rest = src.get(bit / 8..).unwrap_or(&[]);
            let to = out.add(head * 4);
            unpack_from::<AGGREGATE>(&aligned, rest, count - head, to, &mut aggregator);
        }
    }
    aggregator.reduce()
}

/// [`unpack`] with `decoder`, whose windows start at byte 0 of `src`, 2·width bytes apart,
/// adding the values to `aggregator` when `AGGREGATE`.
///
/// # Safety
/// As [`unpack`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
unsafe fn unpack_from<const AGGREGATE: bool>(
    decoder: &Decoder16,
    src: &[u8],
    count: usize,
    out: *mut u8,
    aggregator: &mut Aggregator,
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        with_kind!(decoder, KIND => {
            unpack_as::<KIND, AGGREGATE>(decoder, src, count, out, aggregator)
        })
    }
}

/// [`unpack_from`] for a decoder of kind `KIND`.
///
/// # Safety
/// As [`unpack`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
unsafe fn unpack_as<const KIND: u8, const AGGREGATE: bool>(
    decoder: &Decoder16,
    src: &[u8],
    count: usize,
    out: *mut u8,
    aggregator: &mut Aggregator,
) {
    let step = decoder.step;
    let mut done = 0usize;
    let mut at = 0usize;
    // Two aggregators, so the four vectors of an iteration form two short chains.
    let mut second = Aggregator::new();
    // Whole windows: unmasked loads and stores, four per iteration (64 elements).
    while done + 64 <= count && at + 3 * step + 64 <= src.len() {
        // SAFETY: bytes at..at+3·step+64 are inside `src`; `out` holds `count` u32s, so
        // the 256 bytes from done·4 are inside it.
        unsafe {
            let from = src.as_ptr().add(at);
            let a = decoder.decode_as::<KIND>(_mm512_loadu_si512(from.cast()));
            let b = decoder.decode_as::<KIND>(_mm512_loadu_si512(from.add(step).cast()));
            let c = decoder.decode_as::<KIND>(_mm512_loadu_si512(from.add(2 * step).cast()));
            let d = decoder.decode_as::<KIND>(_mm512_loadu_si512(from.add(3 * step).cast()));
            let to = out.add(done * 4);
            _mm512_storeu_si512(to.cast(), a);
            _mm512_storeu_si512(to.add(64).cast(), b);
            _mm512_storeu_si512(to.add(128).cast(), c);
            _mm512_storeu_si512(to.add(192).cast(), d);
            if AGGREGATE {
                aggregator.add_all(a);
                second.add_all(b);
                aggregator.add_all(c);
                second.add_all(d);
            }
        }
        done += 64;
        at += 4 * step;
    }
    while done < count {
        let values = decoder.decode_as::<KIND>(window(src, at));
        let left = (count - done).min(16);
        let lanes = low_lanes(left);
        // SAFETY: writes `left` u32s from `done`, inside `out`'s `count`.
        unsafe { _mm512_mask_storeu_epi32(out.add(done * 4).cast(), lanes, values) };
        if AGGREGATE {
            aggregator.add(lanes, values);
        }
        done += left;
        at += step;
    }
    if AGGREGATE {
        *aggregator = aggregator.merge(second);
    }
}

/// Turns the 64-byte window holding 64 1-bit elements from bit `first` (0..8) of its
/// first byte into a 64-bit mask, bit j = element j: lane j of a byte permutation takes
/// the byte holding element j, and a test against its bit (bit (first + j) % 8, counted
/// from the top when MSB first) sets mask bit j. Two instructions per 64 elements, in
/// either bit order.
#[derive(Clone, Copy)]
struct Bits64 {
    index: __m512i,
    select: __m512i,
}

impl Bits64 {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn new(first: usize, big_endian: bool) -> Bits64 {
        let mut index = [0u8; 64];
        let mut select = [0u8; 64];
        for (j, (i, b)) in index.iter_mut().zip(&mut select).enumerate() {
            let bit = first + j;
            *i = (bit / 8) as u8;
            *b = if big_endian {
                0x80 >> (bit % 8)
            } else {
                1 << (bit % 8)
            };
        }
        // SAFETY: each load reads a 64-byte array.
        unsafe {
            Bits64 {
                index: _mm512_loadu_si512(index.as_ptr().cast()),
                select: _mm512_loadu_si512(select.as_ptr().cast()),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn mask(&self, window: __m512i) -> u64 {
        _mm512_test_epi8_mask(_mm512_permutexvar_epi8(self.index, window), self.select)
    }
}

/// Width 1: element i is bit i of `src` (bit i % 8 of byte i / 8 when LSB first, bit
/// 7 - i % 8 when MSB first). 64 of them become a mask ([`Bits64`]), and each 16 bits of
/// it 16 lanes of 0 or 1 with one masked move.
///
/// # Safety
/// As [`unpack`] with `width` 1.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
unsafe fn unpack_bits(big_endian: bool, src: &[u8], count: usize, out: *mut u8) {
    let one = _mm512_set1_epi32(1);
    // The elements before the first 64-byte boundary of `out` alone; then every store
    // is aligned, and every word of 64 elements starts at bit head % 8 of a byte.
    let head = lanes_to_boundary(out).min(count);
    if head > 0 {
        let lanes = low_lanes(head);
        let word = Bits64::new(0, big_endian).mask(window(src, 0));
        // SAFETY: writes the first `head` (≤ count) u32s of `out`.
        unsafe {
            _mm512_mask_storeu_epi32(
                out.cast(),
                lanes,
                _mm512_maskz_mov_epi32(lanes & word as u16, one),
            )
        };
    }
    let bits = Bits64::new(head % 8, big_endian);
    let mut done = head;
    // 64 elements (one mask, four stores) per iteration.
    while done + 64 <= count {
        let word = bits.mask(window(src, done / 8));
        // SAFETY: the 64 u32s from `done` are inside `out`'s `count`.
        unsafe {
            let to = out.add(done * 4);
            _mm512_storeu_si512(to.cast(), _mm512_maskz_mov_epi32(word as u16, one));
            _mm512_storeu_si512(
                to.add(64).cast(),
                _mm512_maskz_mov_epi32((word >> 16) as u16, one),
            );
            _mm512_storeu_si512(
                to.add(128).cast(),
                _mm512_maskz_mov_epi32((word >> 32) as u16, one),
            );
            _mm512_storeu_si512(
                to.add(192).cast(),
                _mm512_maskz_mov_epi32((word >> 48) as u16, one),
            );
        }
        done += 64;
    }
    if done < count {
        let mut word = bits.mask(window(src, done / 8));
        while done < count {
            let left = (count - done).min(16);
            let lanes = low_lanes(left);
            // SAFETY: writes `left` u32s from `done`, inside `out`'s `count`.
            unsafe {
                _mm512_mask_storeu_epi32(
                    out.add(done * 4).cast(),
                    lanes,
                    _mm512_maskz_mov_epi32(word as u16, one),
                )
            };
            word >>= 16;
            done += left;
        }
    }
}

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI and POPCNT; `width` is 1..=32.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn hybrid_to_le_bytes<const AGGREGATE: bool>(
    width: u32,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
) -> (usize, usize, MinMaxSum) {
    // One decoder for every short bit-packed run (most are a group or two).
    let decoder = Decoder16::new(width, false);
    // Short bit-packed runs add their lanes here, the others their totals.
    let mut aggregator = Aggregator::new();
    let mut aggregates = MinMaxSum::NONE;
    let mut runs = HybridRuns::new(data, width, out.len() / 4);
    loop {
        // SAFETY: this kernel's CPU features (a superset of the fill's); `runs` walks
        // the stream of out.len() / 4 values.
        let fills = unsafe { fill_short_runs::<AGGREGATE>(&mut runs, mask, out) };
        aggregates = aggregates.merge(fills);
        let Some((done, piece)) = runs.next_run() else {
            break;
        };
        match piece {
            Piece::Fill { value, count } => {
                let (start, end) = (done * 4, (done + count) * 4);
                if end + 64 <= out.len() {
                    // SAFETY: this kernel's CPU features; writes out[start..end] and up
                    // to 63 bytes after it, inside `out` (the next runs' bytes), with
                    // the `start` bytes of `out` before it.
                    unsafe {
                        fill_past(
                            value & mask,
                            out.as_mut_ptr().add(start),
                            end - start,
                            start,
                        )
                    }
                } else {
                    let to = &mut out[start..end];
                    // SAFETY: this kernel's CPU features; writes the bytes of `to`,
                    // which has the `start` bytes of `out` before it.
                    unsafe { fill_pattern(value & mask, to.as_mut_ptr(), to.len(), start) }
                }
                if AGGREGATE {
                    let run = MinMaxSum::run(value & mask, count as u64);
                    aggregates = aggregates.merge(run);
                }
            }
            Piece::Packed { src, count } if count < 64 => {
                // Short runs (most are a group or two): 16 values a window, each stored
                // into the lines it covers.
                let mut k = 0;
                while k < count {
                    let left = (count - k).min(16);
                    let to = &mut out[(done + k) * 4..(done + k + left) * 4];
                    let values = decoder.decode(window(src, k / 16 * decoder.step));
                    // SAFETY: this kernel's CPU features; `to` holds `left` u32s and has
                    // the (done + k)·4 bytes of `out` before it.
                    unsafe { store_lanes(values, to.as_mut_ptr(), left, (done + k) * 4) };
                    if AGGREGATE {
                        aggregator.add(low_lanes(left), values);
                    }
                    k += left;
                }
            }
            Piece::Packed { src, count } => {
                let to = &mut out[done * 4..(done + count) * 4];
                // SAFETY: this kernel's CPU features and width; `to` holds `count` u32s.
                let run = unsafe {
                    unpack_aggregating::<AGGREGATE>(width, false, src, count, to.as_mut_ptr())
                };
                aggregates = aggregates.merge(run);
            }
        }
    }
    let (values, bytes) = runs.walked();
    (values, bytes, aggregates.merge(aggregator.reduce()))
}

/// Fills the RLE runs [`HybridRuns::next_short_fill`] hands out (most RLE runs), those
/// that end at least [`FILL_LINES`] lines of values before the end of `out`, until the
/// next run is of another kind; returns their aggregates when `AGGREGATE`. A run's fill:
/// a masked store from its first line's start (the earlier bytes of that line are the
/// runs' before it, left as they are), then [`FILL_LINES`] − 1 whole lines whatever its
/// length, then whole lines while they start before its end. What it writes past the
/// run is the next runs' to write: runs of random lengths up to [`FILL_LINES`] lines
/// then end their fill without a mispredicted branch, and the lines ahead are written
/// early. Against the general walk of [`hybrid_to_le_bytes`]: RLE runs of 8..=40 values
/// +40–50 % from L1 and ×2.6 at 2^20 values, of 8..=200 +10–30 % from L1 and +2–14 % at
/// 2^20. Not inlined into `hybrid_to_le_bytes`, whose loop holds the bit-packed decoder's
/// state in registers: inlined, its values were spilled around it (8–10 % slower on runs
/// of 8..=200 values, L1). Its own first-line store rather than [`fill_past`] with lines
/// ahead: [`fill_first_line`] computes the pattern's rotation and the line mask for any
/// length, run by run, which measured 2–5 % slower from L1 (parity at 2^20).
///
/// # Safety
/// The CPU supports AVX-512 F and BW; `runs` walks the stream of `out.len() / 4` values.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fill_short_runs<const AGGREGATE: bool>(
    runs: &mut HybridRuns<'_>,
    mask: u32,
    out: &mut [u8],
) -> MinMaxSum {
    let mut aggregates = MinMaxSum::NONE;
    let base = out.as_mut_ptr();
    // Byte j of a vector stored at a line boundary is byte (j + head) % 4 of the value,
    // where head = -out mod 4, the same for every run (values start at out + 4·k).
    let rotation = 8 * ((base as usize).wrapping_neg() % 4) as u32;
    while let Some((done, value, count)) = runs.next_short_fill(16 * FILL_LINES) {
        let value = value & mask;
        let (start, len) = (done * 4, count * 4);
        let into_line = (base as usize + start) % 64;
        if into_line > start {
            // The first run, when `out` starts inside a line.
            // SAFETY: this kernel's CPU features; writes out[start..start + len] and up
            // to 63 bytes after it, inside `out` (16·FILL_LINES values after the run).
            unsafe { fill_past(value, base.add(start), len, start) };
        } else {
            let aligned = _mm512_set1_epi32(value.rotate_right(rotation) as i32);
            // SAFETY: this kernel's CPU features. `line` is out + start − into_line ≥
            // out, at a line boundary; the masked store writes its bytes from
            // into_line on, out[start..]. The whole lines stored end by
            // max(out + start + len + 64, line + 64·FILL_LINES), which is at most
            // out + start + len + 64·FILL_LINES ≤ out + out.len(): the run ends
            // 16·FILL_LINES values before the end of `out` (`next_short_fill`).
            unsafe {
                let line = base.add(start - into_line);
                _mm512_mask_storeu_epi8(line.cast(), !0u64 << into_line, aligned);
                for k in 1..FILL_LINES {
                    _mm512_store_si512(line.add(64 * k).cast(), aligned);
                }
                let mut at = 64 * FILL_LINES;
                while at < into_line + len {
                    _mm512_store_si512(line.add(at).cast(), aligned);
                    at += 64;
                }
            }
        }
        if AGGREGATE {
            aggregates = aggregates.merge(MinMaxSum::run(value, count as u64));
        }
    }
    aggregates
}

/// Stores the first `count` (≤ 16) lanes of `values` at `out`, as stores to the 64-byte
/// lines they cover (one or two, masked) when `out` is 4-byte aligned and the `before`
/// bytes of the same buffer before it reach back to its line's start (a store that
/// straddles two lines costs two); as one masked store otherwise.
///
/// # Safety
/// The CPU supports AVX-512 F; `out` is valid for `count · 4` byte writes, and the
/// `before` bytes before it are inside the same buffer.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store_lanes(values: __m512i, out: *mut u8, count: usize, before: usize) {
    let into_line = out as usize % 64;
    if into_line == 0 || !into_line.is_multiple_of(4) || into_line > before {
        // SAFETY: `count` u32s from `out`.
        unsafe { _mm512_mask_storeu_epi32(out.cast(), low_lanes(count), values) };
        return;
    }
    let r = into_line / 4;
    // Lane l of `rotated` is lane (l - r) mod 16 of `values`.
    let index = _mm512_and_si512(
        _mm512_sub_epi32(
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi32(r as i32),
        ),
        _mm512_set1_epi32(15),
    );
    let rotated = _mm512_permutexvar_epi32(index, values);
    let end = r + count;
    // SAFETY: the line starts 4·r = into_line ≤ `before` bytes before `out`, inside the
    // buffer; lanes r..min(end, 16) of it are out's first values. When end > 16, lanes
    // 0..end - 16 of the next line are the rest, the last of `count · 4` bytes from
    // `out`.
    unsafe {
        let line = out.sub(into_line);
        let first = low_lanes(end.min(16)) & !low_lanes(r);
        _mm512_mask_storeu_epi32(line.cast(), first, rotated);
        if end > 16 {
            _mm512_mask_storeu_epi32(line.add(64).cast(), low_lanes(end - 16), rotated);
        }
    }
}

/// The lanes of `$x` that satisfy comparison `$op` with `$l`, through `$cmp`/`$sub` (the
/// unsigned compare and subtract of the lane size);
/// `$op` is a const generic, so each kernel compiles with its comparison fixed. Range uses
/// one unsigned comparison: `low <= x <= high` ⇔ `x - low <= high - low` (`$span`) when
/// `low <= high` (the caller maps `low > high` to a constant answer).
macro_rules! compare_lanes {
    ($op:expr, $x:expr, $l:expr, $span:expr, $cmp:ident, $sub:ident) => {
        match $op {
            EQ => $cmp::<_MM_CMPINT_EQ>($x, $l),
            NE => $cmp::<_MM_CMPINT_NE>($x, $l),
            LT => $cmp::<_MM_CMPINT_LT>($x, $l),
            LE => $cmp::<_MM_CMPINT_LE>($x, $l),
            GT => $cmp::<_MM_CMPINT_NLE>($x, $l),
            GE => $cmp::<_MM_CMPINT_NLT>($x, $l),
            RANGE => $cmp::<_MM_CMPINT_LE>($sub($x, $l), $span),
            _ => $cmp::<_MM_CMPINT_NLE>($sub($x, $l), $span),
        }
    };
}

const EQ: u8 = 0;
const NE: u8 = 1;
const LT: u8 = 2;
const LE: u8 = 3;
const GT: u8 = 4;
const GE: u8 = 5;
const RANGE: u8 = 6;
const NOT_RANGE: u8 = 7;

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI and POPCNT, `width` is 1..=32, `src` holds
/// ⌈count·width/8⌉ bytes.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn scan_packed(
    width: u32,
    big_endian: bool,
    src: &[u8],
    count: usize,
    compare: Compare,
    low: u32,
    high: u32,
    bits: &mut [u8],
) {
    let (mut op, mut low) = match compare {
        Compare::Eq => (EQ, low),
        Compare::Ne => (NE, low),
        Compare::Lt => (LT, low),
        Compare::Le => (LE, low),
        Compare::Gt => (GT, low),
        Compare::Ge => (GE, low),
        Compare::Range => (RANGE, low),
        Compare::NotRange => (NOT_RANGE, low),
    };
    // An empty range: never (x < 0), and its complement always (x >= 0).
    if low > high && op == RANGE {
        (op, low) = (LT, 0);
    } else if low > high && op == NOT_RANGE {
        (op, low) = (GE, 0);
    }
    let span = high.wrapping_sub(low);
    let bits = &mut bits[..count.div_ceil(8)];
    // Elements in the narrowest lanes that hold them: 64 bytes (width 8: the source
    // bytes themselves), 32 16-bit lanes or 16 32-bit lanes per window. One monomorphised
    // loop per comparison and lane size.
    macro_rules! scan_with {
        ($op:ident) => {
            match width {
                8 => scan_bytes::<$op>(|x| x, 64, src, count, low, span, bits),
                1..=16 => {
                    let d = ShiftDecoder::new(width, big_endian);
                    if width < 8 {
                        scan_bytes::<$op>(|x| d.decode(x), d.step, src, count, low, span, bits)
                    } else {
                        scan_halves::<$op>(|x| d.decode(x), d.step, src, count, low, span, bits)
                    }
                }
                _ => {
                    let d = Decoder16::new(width, big_endian);
                    let step = d.step;
                    with_kind!(d, KIND => {
                        let decode = |x| d.decode_as::<KIND>(x);
                        scan_words::<$op>(decode, step, src, count, low, span, bits)
                    })
                }
            }
        };
    }
    match op {
        EQ => scan_with!(EQ),
        NE => scan_with!(NE),
        LT => scan_with!(LT),
        LE => scan_with!(LE),
        GT => scan_with!(GT),
        GE => scan_with!(GE),
        RANGE => scan_with!(RANGE),
        _ => scan_with!(NOT_RANGE),
    }
}

/// The scan kernel on lanes of one size (`$lanes` per window, compared by `$cmp`/`$sub`,
/// their hits a `$hits` mask): `decode` turns the window at each `step` bytes into
/// `$lanes` elements; `low` and `span` fit the lane (the parameters are masked to the
/// width).
macro_rules! scan_kernel {
    ($name:ident, $lanes:literal, $hits:ty, $set1:ident, $cmp:ident, $sub:ident) => {
        #[allow(clippy::too_many_arguments)]
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
        fn $name<const OP: u8>(
            decode: impl Fn(__m512i) -> __m512i,
            step: usize,
            src: &[u8],
            count: usize,
            low: u32,
            span: u32,
            bits: &mut [u8],
        ) {
            const WINDOWS: usize = 64 / $lanes;
            let (l, s) = ($set1(low as _), $set1(span as _));
            let mut done = 0usize;
            let mut at = 0usize;
            // 64 elements an iteration: their windows' hits joined into one word, so one
            // 8-byte store (a store per window was the narrow lanes' bottleneck).
            while done + 64 <= count && at + (WINDOWS - 1) * step + 64 <= src.len() {
                let mut hits = 0u64;
                for k in 0..WINDOWS {
                    let from = src.as_ptr().wrapping_add(at + k * step);
                    // SAFETY: the 64 bytes from `from` are inside `src`.
                    let x = decode(unsafe { _mm512_loadu_si512(from.cast()) });
                    let window_hits: $hits = compare_lanes!(OP, x, l, s, $cmp, $sub);
                    hits |= u64::from(window_hits) << (k * $lanes);
                }
                let byte = done / 8;
                // `bits` holds ⌈count/8⌉ ≥ byte + 8 bytes here; a fixed-size store (a
                // runtime-length copy would be a memcpy call).
                bits[byte..byte + 8].copy_from_slice(&hits.to_le_bytes());
                done += 64;
                at += WINDOWS * step;
            }
            while done < count {
                let x = decode(window(src, at));
                let left = (count - done).min($lanes);
                let lanes = <$hits>::MAX >> ($lanes - left);
                let hits: $hits = compare_lanes!(OP, x, l, s, $cmp, $sub) & lanes;
                let bytes = left.div_ceil(8);
                bits[done / 8..done / 8 + bytes].copy_from_slice(&hits.to_le_bytes()[..bytes]);
                done += left;
                at += step;
            }
        }
    };
}

scan_kernel!(
    scan_bytes,
    64,
    u64,
    _mm512_set1_epi8,
    _mm512_cmp_epu8_mask,
    _mm512_sub_epi8
);
scan_kernel!(
    scan_halves,
    32,
    u32,
    _mm512_set1_epi16,
    _mm512_cmp_epu16_mask,
    _mm512_sub_epi16
);
scan_kernel!(
    scan_words,
    16,
    u16,
    _mm512_set1_epi32,
    _mm512_cmp_epu32_mask,
    _mm512_sub_epi32
);

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI and POPCNT, and `width` is 2..=32.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn unpack_compress(
    width: u32,
    big_endian: bool,
    src: &[u8],
    count: usize,
    words: &[u64],
    out: &mut [u32],
) -> usize {
    assert!(out.len() >= count.next_multiple_of(16) && words.len() >= count.div_ceil(64));
    let d = Decoder16::new(width, big_endian);
    with_kind!(d, KIND => unpack_compress_as::<KIND>(&d, src, count, words, out))
}

/// [`unpack_compress`] with a decoder of kind `KIND`; `out` and `words` checked by it.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
fn unpack_compress_as<const KIND: u8>(
    d: &Decoder16,
    src: &[u8],
    count: usize,
    words: &[u64],
    out: &mut [u32],
) -> usize {
    let mut kept = 0usize;
    // Appends the lanes of `values` set in `lanes`; whole-vector stores, so `kept` must
    // be below the element count the lanes start at.
    let mut put = |lanes: u16, values: __m512i| {
        // SAFETY: 16 u32s from `kept`, which is at most the index of the first of these
        // `count` elements: inside `out`'s room for `count` rounded up to 16.
        unsafe {
            let packed = _mm512_maskz_compress_epi32(lanes, values);
            _mm512_storeu_si512(out.as_mut_ptr().add(kept).cast(), packed);
        }
        kept += lanes.count_ones() as usize;
    };
    let step = d.step;
    let (mut done, mut at) = (0usize, 0usize);
    // A mask word (64 elements, four windows) an iteration.
    while done + 64 <= count && at + 3 * step + 64 <= src.len() {
        let word = words[done / 64];
        for k in 0..4 {
            let from = src.as_ptr().wrapping_add(at + k * step);
            // SAFETY: the 64 bytes from `from` are inside `src`.
            let values = d.decode_as::<KIND>(unsafe { _mm512_loadu_si512(from.cast()) });
            put((word >> (16 * k)) as u16, values);
        }
        done += 64;
        at += 4 * step;
    }
    while done < count {
        let lanes = low_lanes((count - done).min(16));
        put(
            (words[done / 64] >> (done % 64)) as u16 & lanes,
            d.decode_as::<KIND>(window(src, at)),
        );
        done += 16;
        at += step;
    }
    kept
}

/// Select's kernel for one lane type: per vector of `$lanes` values, their bits of the
/// mask words, `vpcompress`, and a whole-vector store at `kept` (so `out` has room for
/// `values.len()` rounded up to `$lanes`).
macro_rules! compress_kernel {
    ($name:ident, $t:ty, $lanes:literal, $m:ty, $features:literal, $load:ident, $compress:ident) => {
        /// # Safety
        /// The CPU supports the features the function enables.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(values: &[$t], words: &[u64], out: &mut [$t]) -> usize {
            assert!(
                out.len() >= values.len().next_multiple_of($lanes)
                    && words.len() >= values.len().div_ceil(64)
            );
            let mut kept = 0usize;
            let mut step = |first: usize, chunk: &[$t], lanes: $m| {
                let m = (words[first / 64] >> (first % 64)) as $m & lanes;
                // SAFETY: reads the values of `chunk`; writes `$lanes` values from `kept`,
                // at most `first`, inside `out` (see above).
                unsafe {
                    let x = $load(lanes, chunk.as_ptr().cast());
                    let packed = $compress(m, x);
                    _mm512_storeu_si512(out.as_mut_ptr().add(kept).cast(), packed);
                }
                kept += m.count_ones() as usize;
            };
            // Whole vectors with a constant lane mask, then the tail.
            let mut chunks = values.chunks_exact($lanes);
            for (i, chunk) in (&mut chunks).enumerate() {
                step(i * $lanes, chunk, <$m>::MAX);
            }
            let tail = chunks.remainder();
            if !tail.is_empty() {
                step(
                    values.len() - tail.len(),
                    tail,
                    <$m>::MAX >> ($lanes - tail.len()),
                );
            }
            kept
        }
    };
}

compress_kernel!(
    compress,
    u32,
    16,
    u16,
    "avx512f,popcnt",
    _mm512_maskz_loadu_epi32,
    _mm512_maskz_compress_epi32
);
compress_kernel!(
    compress_halves,
    u16,
    32,
    u32,
    "avx512f,avx512bw,avx512vbmi2,popcnt",
    _mm512_maskz_loadu_epi16,
    _mm512_maskz_compress_epi16
);
compress_kernel!(
    compress_bytes,
    u8,
    64,
    u64,
    "avx512f,avx512bw,avx512vbmi2,popcnt",
    _mm512_maskz_loadu_epi8,
    _mm512_maskz_compress_epi8
);

/// Expand's kernel for one lane type: [`super::expand_words`], each word's 64 positions
/// as 64 / `$lanes` `vpexpand` loads of exactly their values.
macro_rules! expand_kernel {
    ($name:ident, $t:ty, $lanes:literal, $m:ty, $features:literal, $expandload:ident) => {
        /// # Safety
        /// The CPU supports the features the function enables.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(values: &[$t], words: &[u64], out: &mut [$t]) -> (usize, usize) {
            assert!(out.len() >= 64 * words.len());
            super::expand_words(words, values.len(), |i, word, used| {
                let mut used = used;
                for part in 0..64 / $lanes {
                    let m = (word >> (part * $lanes)) as $m;
                    // SAFETY: reads popcount(m) values from `used`: expand_words hands
                    // out at most the `values.len()` values. Writes `$lanes` values inside
                    // out[64·i..64·i + 64].
                    unsafe {
                        let x = $expandload(m, values.as_ptr().add(used).cast());
                        let at = out.as_mut_ptr().add(64 * i + part * $lanes);
                        _mm512_storeu_si512(at.cast(), x);
                    }
                    used += m.count_ones() as usize;
                }
            })
        }
    };
}

expand_kernel!(
    expand,
    u32,
    16,
    u16,
    "avx512f,popcnt",
    _mm512_maskz_expandloadu_epi32
);
expand_kernel!(
    expand_halves,
    u16,
    32,
    u32,
    "avx512f,avx512bw,avx512vbmi2,popcnt",
    _mm512_maskz_expandloadu_epi16
);
expand_kernel!(
    expand_bytes,
    u8,
    64,
    u64,
    "avx512f,avx512bw,avx512vbmi2,popcnt",
    _mm512_maskz_expandloadu_epi8
);

/// Decodes one window of elements of up to 8 bits into 64 byte lanes, or of 9..=16 bits
/// into 32 16-bit lanes: [`cached_shift_plan`]'s gather and `vpmultishiftqb`, masked to
/// the width.
#[derive(Clone, Copy)]
struct ShiftDecoder {
    gather: __m512i,
    offsets: __m512i,
    mask: __m512i,
    /// Bytes from one window to the next: 64 or 32 elements.
    step: usize,
}

impl ShiftDecoder {
    /// For `width` 1..=16 from a byte boundary.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn new(width: u32, big_endian: bool) -> ShiftDecoder {
        let p = cached_shift_plan(width, big_endian);
        let ones = u32::MAX >> (32 - width);
        let (mask, lanes) = if width <= 8 {
            (_mm512_set1_epi8(ones as i8), 64)
        } else {
            (_mm512_set1_epi16(ones as i16), 32)
        };
        // SAFETY: each load reads 64 bytes of a 64-byte array.
        unsafe {
            ShiftDecoder {
                gather: _mm512_loadu_si512(p.gather.as_ptr().cast()),
                offsets: _mm512_loadu_si512(p.offsets.as_ptr().cast()),
                mask,
                step: lanes * width as usize / 8,
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    fn decode(&self, window: __m512i) -> __m512i {
        let lanes = _mm512_permutexvar_epi8(self.gather, window);
        _mm512_and_si512(_mm512_multishift_epi64_epi8(self.offsets, lanes), self.mask)
    }
}

/// The unpacking kernel into narrow lanes (`$lanes` per vector) by [`ShiftDecoder`].
macro_rules! unpack_narrow_kernel {
    ($name:ident, $t:ty, $lanes:literal, $widths:expr, $store:ident) => {
        /// # Safety
        /// The CPU supports AVX-512 F, BW and VBMI and POPCNT.
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
        pub(super) unsafe fn $name(width: u32, big_endian: bool, src: &[u8], out: &mut [$t]) {
            let count = out.len();
            assert!($widths.contains(&width) && src.len() >= (count * width as usize).div_ceil(8));
            let decoder = ShiftDecoder::new(width, big_endian);
            let mut done = 0usize;
            let mut at = 0usize;
            while done < count {
                let v = decoder.decode(window(src, at));
                let left = (count - done).min($lanes);
                let stored = u64::MAX >> (64 - left);
                // SAFETY: writes `left` values from `done`, inside `out`.
                unsafe { $store(out.as_mut_ptr().add(done).cast(), stored as _, v) };
                done += left;
                at += decoder.step;
            }
        }
    };
}

unpack_narrow_kernel!(unpack_bytes, u8, 64, 1..=8, _mm512_mask_storeu_epi8);
unpack_narrow_kernel!(unpack_halves, u16, 32, 9..=16, _mm512_mask_storeu_epi16);

/// Byte permutations that assemble packed output from 64-bit lanes each holding
/// `lane_bits` bits (two elements of 32-bit lanes, four of 16-bit ones) shifted left by
/// their bit offset within their first byte:
/// output byte j takes its low contributor (the lane holding bit 8j) and its high one
/// (the lane holding bit 8j + 7, if another); with width ≥ 4 a byte spans at most two.
/// Output bytes from `lane_bits` on (8 lanes of `lane_bits` bits fill `lane_bits` bytes)
/// are left undefined: [`store_packed`] never keeps them.
struct PackPlan {
    first: [u8; 64],
    second: [u8; 64],
    second_lanes: u64,
    shifts: [u64; 8],
}

fn pack_plan(lane_bits: usize) -> PackPlan {
    let pair = lane_bits;
    let mut p = PackPlan {
        first: [0; 64],
        second: [0; 64],
        second_lanes: 0,
        shifts: [0; 8],
    };
    for (k, shift) in p.shifts.iter_mut().enumerate() {
        *shift = (k * pair % 8) as u64;
    }
    // The byte of lane k's shifted word that holds output bit `bit`.
    let source = |bit: usize| {
        let k = bit / pair;
        (k, 8 * k + (bit / 8 - k * pair / 8))
    };
    for j in 0..pair {
        let (k, from) = source(8 * j);
        p.first[j] = from as u8;
        let last = (8 * j + 7).min(8 * pair - 1);
        let (k2, from2) = source(last);
        if k2 != k {
            p.second[j] = from2 as u8;
            p.second_lanes |= 1 << j;
        }
    }
    p
}

/// The plan for lanes of `lane_bits` (8..=64) bits.
fn cached_pack_plan(lane_bits: usize) -> &'static PackPlan {
    static PLANS: std::sync::OnceLock<Vec<PackPlan>> = std::sync::OnceLock::new();
    let plans = PLANS.get_or_init(|| (1..=64).map(pack_plan).collect());
    &plans[lane_bits - 1]
}

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI; `width` is 4..=28.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn pack_le(width: u32, mask: u32, values: &[u32], out: &mut [u8]) {
    let w = width as usize;
    assert!(
        (4..=28).contains(&width)
            && values.len().is_multiple_of(8)
            && out.len() >= values.len() / 8 * w
    );
    let p = cached_pack_plan(2 * w);
    // SAFETY: each load reads 64 bytes of a 64-byte array.
    let (first, second, shifts) = unsafe {
        (
            _mm512_loadu_si512(p.first.as_ptr().cast()),
            _mm512_loadu_si512(p.second.as_ptr().cast()),
            _mm512_loadu_si512(p.shifts.as_ptr().cast()),
        )
    };
    let value_mask = _mm512_set1_epi32((mask & (u32::MAX >> (32 - width))) as i32);
    let low_half = _mm512_set1_epi64(0xFFFF_FFFF);
    let pair_shift = _mm512_set1_epi64(i64::from(width));
    // 16 values to their 2·width output bytes, at the bottom of the vector.
    let pack16 = |x: __m512i| {
        let x = _mm512_and_si512(x, value_mask);
        // Two elements per 64-bit lane, then each lane at its bit offset in its byte.
        // (`(low & keep) | high << shift` is ternary-logic 0xEA.)
        let pairs = _mm512_ternarylogic_epi64::<0xEA>(
            x,
            low_half,
            _mm512_sllv_epi64(_mm512_srli_epi64::<32>(x), pair_shift),
        );
        let placed = _mm512_sllv_epi64(pairs, shifts);
        _mm512_or_si512(
            _mm512_permutexvar_epi8(first, placed),
            _mm512_maskz_permutexvar_epi8(p.second_lanes, second, placed),
        )
    };
    let whole = values.len() / 16;
    let end = values.len() / 8 * w;
    for (i, chunk) in values.chunks_exact(16).enumerate() {
        // SAFETY: reads the 16 u32s of `chunk`; writes 2·w bytes from 2·w·i, which end
        // by `end` <= out.len(), and the next chunks write on from there.
        unsafe {
            let bytes = pack16(_mm512_loadu_si512(chunk.as_ptr().cast()));
            store_packed(out.as_mut_ptr(), 2 * w * i, 2 * w, end, bytes);
        }
    }
    if values.len() % 16 == 8 {
        // SAFETY: reads the last 8 u32s of `values`; writes their w bytes, the last
        // before `end`.
        unsafe {
            let x = _mm512_maskz_loadu_epi32(0xFF, values.as_ptr().add(16 * whole).cast());
            store_packed(out.as_mut_ptr(), 2 * w * whole, w, end, pack16(x));
        }
    }
}

/// # Safety
/// The CPU supports AVX-512 F and BW. Returns `false` (nothing written) unless `out`
/// holds exactly 1 or 2 bytes per value.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn narrow(values: &[u32], mask: u32, out: &mut [u8]) -> bool {
    let bytes = if out.len() == values.len() {
        1
    } else if out.len() == 2 * values.len() {
        2
    } else {
        return false;
    };
    let m = _mm512_set1_epi32(mask as i32);
    let mut done = 0usize;
    while done < values.len() {
        let left = (values.len() - done).min(16);
        let lanes = low_lanes(left);
        // SAFETY: reads `left` u32s from `done` inside `values`; writes `left` elements
        // of `bytes` bytes from `done · bytes`, inside `out` (values.len() · bytes long).
        unsafe {
            let x = _mm512_and_si512(
                _mm512_maskz_loadu_epi32(lanes, values.as_ptr().add(done).cast()),
                m,
            );
            let to = out.as_mut_ptr().add(done * bytes);
            if bytes == 1 {
                _mm512_mask_cvtepi32_storeu_epi8(to.cast(), lanes, x);
            } else {
                _mm512_mask_cvtepi32_storeu_epi16(to.cast(), lanes, x);
            }
        }
        done += left;
    }
    true
}

/// The aggregates of the `count` (unaligned) `u32`s from `values`: four aggregators, so
/// the loop runs at load speed rather than at the latency of one chain.
///
/// # Safety
/// The CPU supports AVX-512 F; `values` is valid for `count · 4` byte reads.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn min_max_sum(values: *const u8, count: usize) -> MinMaxSum {
    let mut aggregators = [Aggregator::new(); 4];
    let mut done = 0usize;
    while done + 64 <= count {
        for (k, aggregator) in aggregators.iter_mut().enumerate() {
            // SAFETY: reads 16 u32s from done + 16k, inside the `count`.
            let x = unsafe { _mm512_loadu_si512(values.add((done + 16 * k) * 4).cast()) };
            aggregator.add_all(x);
        }
        done += 64;
    }
    while done < count {
        let left = (count - done).min(16);
        let lanes = low_lanes(left);
        // SAFETY: reads `left` u32s from `done`, inside the `count`.
        let x = unsafe { _mm512_maskz_loadu_epi32(lanes, values.add(done * 4).cast()) };
        aggregators[0].add(lanes, x);
        done += left;
    }
    let [a, b, c, d] = aggregators;
    a.merge(b).merge(c.merge(d)).reduce()
}

/// # Safety
/// The CPU supports POPCNT.
#[target_feature(enable = "popcnt")]
pub(super) unsafe fn count_ones(bytes: &[u8]) -> u64 {
    super::portable::count_ones(bytes)
}

/// # Safety
/// The CPU supports AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn fill4(element: [u8; 4], out: &mut [u8]) {
    // SAFETY: `out` is valid for its `out.len()` bytes.
    unsafe { fill_pattern(u32::from_le_bytes(element), out.as_mut_ptr(), out.len(), 0) };
}

/// Writes `len` bytes from `out`: copies of the 4 bytes of `pattern` (little-endian),
/// starting with its byte 0. Every store is to a 64-byte boundary (a store that straddles
/// two cache lines costs two) but the first when `out` is inside a line and the `before`
/// bytes of the same buffer just before `out` (which are never written) do not reach back
/// to the line's start.
///
/// # Safety
/// The CPU supports AVX-512 F and BW; `out` is valid for `len` byte writes, and the
/// `before` bytes before it are inside the same buffer.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fill_pattern(pattern: u32, out: *mut u8, len: usize, before: usize) {
    let head = (64 - out as usize % 64) % 64;
    let first = head.min(len);
    // SAFETY: the first `first` (≤ len) bytes from `out`, with the caller's `before`.
    let aligned = unsafe { fill_first_line(pattern, out, first, before) };
    // From here on `at` is at a line boundary (or at `len`).
    let mut at = first;
    while at + 256 <= len {
        // SAFETY: bytes at..at+256 are inside the `len` from `out`.
        unsafe {
            let to = out.add(at);
            _mm512_storeu_si512(to.cast(), aligned);
            _mm512_storeu_si512(to.add(64).cast(), aligned);
            _mm512_storeu_si512(to.add(128).cast(), aligned);
            _mm512_storeu_si512(to.add(192).cast(), aligned);
        }
        at += 256;
    }
    while at + 64 <= len {
        // SAFETY: bytes at..at+64 are inside the `len` from `out`.
        unsafe { _mm512_storeu_si512(out.add(at).cast(), aligned) };
        at += 64;
    }
    if at < len {
        // SAFETY: the last len - at (< 64) bytes.
        unsafe { _mm512_mask_storeu_epi8(out.add(at).cast(), low_bits(len - at), aligned) };
    }
}

/// [`fill_pattern`] that may write up to 63 bytes past the `len`: every line that
/// starts before `out + len` is stored whole. Faster on runs of random lengths (RLE runs
/// of 8..=200 values: +19–26 % from L1, +2–12 % past L2, the same in L2), whose last
/// line's tail is the next run's to write, than an exact last store behind a branch.
///
/// # Safety
/// The CPU supports AVX-512 F and BW; `out` is valid for `len + 64` byte writes, and the
/// `before` bytes before it are inside the same buffer.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fill_past(pattern: u32, out: *mut u8, len: usize, before: usize) {
    // The first line boundary after `out`, 1..=64 bytes on.
    let mut at = 64 - out as usize % 64;
    // SAFETY: the first `at` (≤ 64) of the `len + 64` bytes, with the caller's `before`.
    let aligned = unsafe { fill_first_line(pattern, out, at, before) };
    while at < len {
        // SAFETY: at < len, so the 64 bytes from `at` end before len + 64.
        unsafe { _mm512_store_si512(out.add(at).cast(), aligned) };
        at += 64;
    }
}

/// Writes copies of `pattern` (as [`fill_pattern`]) over the `first` bytes from `out`,
/// which end by `out`'s next line boundary: one masked store, to the line's start when
/// the `before` bytes before `out` reach back to it. Returns the pattern as stores at line
/// boundaries from there on need it.
///
/// # Safety
/// The CPU supports AVX-512 F and BW; `out` is valid for `first` byte writes, `first`
/// reaches no further than `out`'s next line boundary, and the `before` bytes before
/// `out` are inside the same buffer.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fill_first_line(pattern: u32, out: *mut u8, first: usize, before: usize) -> __m512i {
    let into_line = out as usize % 64;
    let head = (64 - into_line) % 64;
    // Byte j of a vector stored at a line boundary is pattern byte (j + head) % 4.
    let aligned = _mm512_set1_epi32(pattern.rotate_right(8 * (head % 4) as u32) as i32);
    if first > 0 {
        if into_line <= before {
            let lanes = low_bits(into_line + first) & !low_bits(into_line);
            // SAFETY: the line starts `into_line` ≤ `before` bytes before `out`, inside
            // the buffer; only its bytes into_line..into_line+first (the first `first`
            // of `out`) are written.
            unsafe { _mm512_mask_storeu_epi8(out.sub(into_line).cast(), lanes, aligned) };
        } else {
            let v = _mm512_set1_epi32(pattern as i32);
            // SAFETY: the first `first` bytes from `out`.
            unsafe { _mm512_mask_storeu_epi8(out.cast(), low_bits(first), v) };
        }
    }
    aligned
}

/// Stores the first `len` bytes of `bytes` at `out + at`, where a packer's chunks write
/// `out[..end]` in order: one whole-vector store while 64 bytes fit before `end` (the
/// bytes past `len` are rewritten by the chunks after this one), a masked store near the
/// end. A masked store of a packed chunk costs several times a whole one when it crosses
/// a cache line.
///
/// # Safety
/// `out` is valid for writes of `end` bytes; `at + len <= end`; the following chunks
/// write `out[at + len..end]`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn store_packed(out: *mut u8, at: usize, len: usize, end: usize, bytes: __m512i) {
    // SAFETY: the caller's contract: both stores stay in out[..end].
    unsafe {
        if at + 64 <= end {
            _mm512_storeu_si512(out.add(at).cast(), bytes);
        } else {
            _mm512_mask_storeu_epi8(out.add(at).cast(), low_bits(len), bytes);
        }
    }
}

/// Controls that decode 8 / `lane_bytes` elements of `width` bits into each 64-bit lane,
/// one element per `lane_bytes` (1 or 2) bytes, from 8·width (bytes) or 4·width (16-bit
/// lanes) source bytes: `gather` gives lane k the 8 source bytes from the one holding its
/// first element (reversed for MSB-first, so the lane reads as the big-endian stream),
/// `offsets` each byte of each element the bit offset it takes 8 bits from, for
/// `vpmultishiftqb` (4 elements of ≤ 16 bits at a bit offset of 0 or 4 fit 64 bits).
struct ShiftPlan {
    gather: [u8; 64],
    offsets: [u8; 64],
}

fn shift_plan(width: usize, big_endian: bool, lane_bytes: usize) -> ShiftPlan {
    let mut p = ShiftPlan {
        gather: [0; 64],
        offsets: [0; 64],
    };
    let per_lane = 8 / lane_bytes;
    for k in 0..8 {
        let start = per_lane * width * k;
        let (first, off) = (start / 8, start % 8);
        for i in 0..8 {
            p.gather[8 * k + i] = if big_endian { first + 7 - i } else { first + i } as u8;
        }
        for j in 0..per_lane {
            let low = if big_endian {
                64 - off - (j + 1) * width
            } else {
                off + j * width
            };
            for t in 0..lane_bytes {
                p.offsets[8 * k + j * lane_bytes + t] = ((low + 8 * t) % 64) as u8;
            }
        }
    }
    p
}

/// The plan for `width` (1..=8 with byte lanes, 9..=16 with 16-bit ones) and order.
fn cached_shift_plan(width: u32, big_endian: bool) -> &'static ShiftPlan {
    static PLANS: std::sync::OnceLock<Vec<ShiftPlan>> = std::sync::OnceLock::new();
    let plans = PLANS.get_or_init(|| {
        (1..=16)
            .flat_map(|w| {
                let lane_bytes = if w <= 8 { 1 } else { 2 };
                [false, true].map(|be| shift_plan(w, be, lane_bytes))
            })
            .collect()
    });
    &plans[2 * (width as usize - 1) + usize::from(big_endian)]
}

/// Byte permutation taking the low `width` bytes of each 64-bit lane, lane after lane.
fn pack_bytes_gather(width: usize) -> [u8; 64] {
    let mut g = [0u8; 64];
    for (o, slot) in g.iter_mut().enumerate().take(8 * width) {
        *slot = (8 * (o / width) + o % width) as u8;
    }
    g
}

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI; `width` is 1..=7.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn pack_bytes_le(width: u32, mask: u8, values: &[u8], out: &mut [u8]) {
    let w = width as usize;
    assert!(
        (1..=7).contains(&width)
            && values.len().is_multiple_of(8)
            && out.len() >= values.len() / 8 * w
    );
    static GATHERS: std::sync::OnceLock<Vec<[u8; 64]>> = std::sync::OnceLock::new();
    let g = &GATHERS.get_or_init(|| (1..=7).map(pack_bytes_gather).collect())[w - 1];
    // SAFETY: reads the 64 bytes of a 64-byte array.
    let gather = unsafe { _mm512_loadu_si512(g.as_ptr().cast()) };
    let value_mask = _mm512_set1_epi8((mask & ((1u8 << width) - 1)) as i8);
    let (w16, w32, w64) = (
        _mm512_set1_epi16(width as i16),
        _mm512_set1_epi32(2 * width as i32),
        _mm512_set1_epi64(4 * width as i64),
    );
    let (low8, low16, low32) = (
        _mm512_set1_epi16(0xFF),
        _mm512_set1_epi32(0xFFFF),
        _mm512_set1_epi64(0xFFFF_FFFF),
    );
    let end = values.len() / 8 * w;
    let mut done = 0usize;
    let mut at = 0usize;
    while done < values.len() {
        let left = (values.len() - done).min(64);
        // SAFETY: reads `left` bytes from `done`, inside `values`.
        let x =
            unsafe { _mm512_maskz_loadu_epi8(low_bits(left), values.as_ptr().add(done).cast()) };
        let x = _mm512_and_si512(x, value_mask);
        let len = left / 8 * w;
        if width == 1 {
            // One bit per byte: the nonzero bytes' mask is the packed output.
            let bits = _mm512_test_epi8_mask(x, x).to_le_bytes();
            match out.get_mut(at..at + 8) {
                // A fixed-size copy is one store, a sized one a memcpy call.
                Some(whole) if len == 8 => whole.copy_from_slice(&bits),
                _ => out[at..at + len].copy_from_slice(&bits[..len]),
            }
        } else {
            // Merge neighbours: pairs in 16-bit lanes, fours in 32-bit lanes, eights in
            // 64-bit lanes (`(low & keep) | high << shift` is ternary-logic 0xEA).
            let x = _mm512_ternarylogic_epi32::<0xEA>(
                x,
                low8,
                _mm512_sllv_epi16(_mm512_srli_epi16::<8>(x), w16),
            );
            let x = _mm512_ternarylogic_epi32::<0xEA>(
                x,
                low16,
                _mm512_sllv_epi32(_mm512_srli_epi32::<16>(x), w32),
            );
            let x = _mm512_ternarylogic_epi32::<0xEA>(
                x,
                low32,
                _mm512_sllv_epi64(_mm512_srli_epi64::<32>(x), w64),
            );
            let bytes = _mm512_permutexvar_epi8(gather, x);
            // SAFETY: writes `len` bytes from `at`; at + len <= end <= out.len(), and
            // the next chunks write on from there.
            unsafe { store_packed(out.as_mut_ptr(), at, len, end, bytes) };
        }
        done += left;
        at += len;
    }
}

/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI; `width` is 9..=15.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(super) unsafe fn pack_halves_le(width: u32, mask: u16, values: &[u16], out: &mut [u8]) {
    let w = width as usize;
    assert!(
        (9..=15).contains(&width)
            && values.len().is_multiple_of(8)
            && out.len() >= values.len() / 8 * w
    );
    let p = cached_pack_plan(4 * w);
    // SAFETY: each load reads 64 bytes of a 64-byte array.
    let (first, second, shifts) = unsafe {
        (
            _mm512_loadu_si512(p.first.as_ptr().cast()),
            _mm512_loadu_si512(p.second.as_ptr().cast()),
            _mm512_loadu_si512(p.shifts.as_ptr().cast()),
        )
    };
    let value_mask = _mm512_set1_epi16((mask & (u16::MAX >> (16 - width))) as i16);
    let (w32, w64) = (
        _mm512_set1_epi32(width as i32),
        _mm512_set1_epi64(2 * width as i64),
    );
    let (low16, low32) = (_mm512_set1_epi32(0xFFFF), _mm512_set1_epi64(0xFFFF_FFFF));
    let end = values.len() / 8 * w;
    let mut done = 0usize;
    let mut at = 0usize;
    while done < values.len() {
        let left = (values.len() - done).min(32);
        // SAFETY: reads `left` u16s from `done`, inside `values`.
        let x = unsafe {
            _mm512_maskz_loadu_epi16(low_bits(left) as u32, values.as_ptr().add(done).cast())
        };
        let x = _mm512_and_si512(x, value_mask);
        // Pairs in 32-bit lanes, fours in 64-bit lanes (`(low & keep) | high << shift`
        // is ternary-logic 0xEA), each lane at its bit offset in its byte.
        let x = _mm512_ternarylogic_epi32::<0xEA>(
            x,
            low16,
            _mm512_sllv_epi32(_mm512_srli_epi32::<16>(x), w32),
        );
        let x = _mm512_ternarylogic_epi32::<0xEA>(
            x,
            low32,
            _mm512_sllv_epi64(_mm512_srli_epi64::<32>(x), w64),
        );
        let placed = _mm512_sllv_epi64(x, shifts);
        let bytes = _mm512_or_si512(
            _mm512_permutexvar_epi8(first, placed),
            _mm512_maskz_permutexvar_epi8(p.second_lanes, second, placed),
        );
        let len = left / 8 * w;
        // SAFETY: writes `len` bytes from `at`; at + len <= end <= out.len(), and the
        // next chunks write on from there.
        unsafe { store_packed(out.as_mut_ptr(), at, len, end, bytes) };
        done += left;
        at += len;
    }
}
