//! Shared test support: a plain, Vec-based reference model of the contract
//! (`docs/semantics.md`), a small PRNG, an
//! independent Parquet RLE/bit-packed stream builder, and a sentinel-guarded runner.
//!
//! The model is written from the document, not from the implementation: it decodes the whole
//! source into a `Vec<u32>`, computes the output element list, then encodes that list bit by bit.

#![allow(dead_code)]

use qpl_fallback::{execute, Completion, Flags, Job, Operation, Status};

/// Byte written around and into the destination before a run, to detect stray writes.
pub const SENTINEL: u8 = 0xA5;
/// Guard bytes on each side of the destination slice.
pub const GUARD: usize = 24;

/// What the contract says a job must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// D2: extract with param_low > param_high: OK, first_index_min_value 0, nothing written.
    Early,
    /// Success: the output bytes and every result field.
    Done {
        out: Vec<u8>,
        completion: Completion,
    },
    /// Failure with `status`; `alt` is a second status the contract equally allows (when a
    /// source error and an output error are both pending and the order is not specified).
    Failed { status: Status, alt: Option<Status> },
}

fn fail(status: Status) -> Expected {
    Expected::Failed { status, alt: None }
}

/// All bits of a `bw`-bit value (bw 0..=32).
pub fn width_mask(bw: u32) -> u32 {
    if bw >= 32 {
        u32::MAX
    } else {
        (1u32 << bw) - 1
    }
}

/// Stream bit `k`, LSB-first (`be == false`) or MSB-first within each byte; missing bytes are 0.
fn stream_bit(data: &[u8], k: usize, be: bool) -> u32 {
    let byte = data.get(k / 8).copied().unwrap_or(0);
    let shift = if be { 7 - k % 8 } else { k % 8 };
    u32::from((byte >> shift) & 1)
}

/// Element `i` of a packed array of `bw`-bit elements, bit by bit (§4.1, §4.2).
pub fn read_packed(data: &[u8], bw: u32, be: bool, i: usize) -> u32 {
    let bw = bw as usize;
    let mut v = 0u32;
    for b in 0..bw {
        let bit = stream_bit(data, i * bw + b, be);
        if be {
            v = (v << 1) | bit;
        } else {
            v |= bit << b;
        }
    }
    v
}

/// Packs `values` (each masked to `width` bits) bit by bit, LSB-first or MSB-first, last byte
/// zero-padded (§6.1).
pub fn pack_bits(values: &[u32], width: u32, be: bool) -> Vec<u8> {
    let total = values.len() * width as usize;
    let mut out = vec![0u8; total.div_ceil(8)];
    let mut k = 0usize;
    for &v in values {
        let v = v & width_mask(width);
        for b in 0..width {
            let bit = if be {
                (v >> (width - 1 - b)) & 1
            } else {
                (v >> b) & 1
            };
            if bit == 1 {
                let shift = if be { 7 - k % 8 } else { k % 8 };
                out[k / 8] |= 1 << shift;
            }
            k += 1;
        }
    }
    out
}

/// `value` as an unsigned integer of `bytes` bytes, LE or BE.
pub fn int_bytes(value: u32, bytes: usize, be: bool) -> Vec<u8> {
    if be {
        value.to_be_bytes()[4 - bytes..].to_vec()
    } else {
        value.to_le_bytes()[..bytes].to_vec()
    }
}

/// XOR of 16-bit little-endian words, odd last byte zero-extended (§7.4).
pub fn ref_xor16(data: &[u8]) -> u32 {
    let mut acc = 0u32;
    for (i, &b) in data.iter().enumerate() {
        acc ^= u32::from(b) << (8 * (i % 2));
    }
    acc
}

/// Decodes `count` values of an RLE/bit-packed hybrid body (no bit-width byte) of width
/// `bw` (0..=32) by the contract: headers of at most 4 bytes (D4), RLE values of ⌈bw/8⌉ LE
/// bytes unmasked (D5), zero-length runs allowed (D9), every bit-packed group holding a wanted
/// value must be whole (D6), nothing after the last wanted value is read (D7, D8).
///
/// Returns the values of the runs completed before a failure, and the failure.
pub fn ref_decode_hybrid(data: &[u8], bw: u32, count: u64) -> (Vec<u32>, Option<Status>) {
    let value_bytes = bw.div_ceil(8) as usize;
    let mut out: Vec<u32> = Vec::new();
    let mut pos = 0usize;
    while (out.len() as u64) < count {
        let mut header = 0u64;
        let mut complete = false;
        for i in 0..4 {
            let Some(&b) = data.get(pos + i) else {
                return (out, Some(Status::SRC_IS_SHORT_ERR));
            };
            header |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                pos += i + 1;
                complete = true;
                break;
            }
        }
        if !complete {
            return (out, Some(Status::PRLE_FORMAT_ERR));
        }
        let run = header >> 1;
        let wanted = count - out.len() as u64;
        if header & 1 == 0 {
            if pos + value_bytes > data.len() {
                return (out, Some(Status::SRC_IS_SHORT_ERR));
            }
            let mut value = 0u32;
            for (i, &b) in data[pos..pos + value_bytes].iter().enumerate() {
                value |= u32::from(b) << (8 * i);
            }
            pos += value_bytes;
            let take = run.min(wanted);
            out.extend(std::iter::repeat_n(value, take as usize));
        } else {
            let take = (run * 8).min(wanted) as usize;
            let group_bytes = bw as usize;
            let needed = take.div_ceil(8) * group_bytes;
            if pos + needed > data.len() {
                return (out, Some(Status::SRC_IS_SHORT_ERR));
            }
            let body = &data[pos..pos + needed];
            for i in 0..take {
                out.push(read_packed(body, bw, false, i));
            }
            pos += needed;
        }
    }
    (out, None)
}

/// Bit `i` of the source-2 mask.
pub fn mask_bit(mask: &[u8], i: usize, be: bool) -> bool {
    stream_bit(mask, i, be) == 1
}

/// How output elements are encoded.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Packed at the nominal width (8/16/32 are plain integers then).
    Nominal(u32),
    /// Integers of `bytes` bytes; values ANDed with `and`.
    Array { bytes: usize, and: u32 },
    /// Positions of nonzero elements plus `base`.
    Index { bytes: usize, base: u64 },
}

fn encode_output(
    kind: Kind,
    be: bool,
    elements: &[u32],
    dst_len: usize,
) -> Result<Vec<u8>, Status> {
    match kind {
        Kind::Nominal(width) => {
            let out = pack_bits(elements, width, be);
            if out.len() > dst_len {
                return Err(Status::DST_IS_SHORT_ERR);
            }
            Ok(out)
        }
        Kind::Array { bytes, and } => {
            if elements.len() * bytes > dst_len {
                return Err(Status::DST_IS_SHORT_ERR);
            }
            Ok(elements
                .iter()
                .flat_map(|&v| int_bytes(v & and, bytes, be))
                .collect())
        }
        Kind::Index { bytes, base } => {
            let max = u64::from(width_mask(8 * bytes as u32));
            let mut out = Vec::new();
            for (i, &v) in elements.iter().enumerate() {
                if v == 0 {
                    continue;
                }
                let index = i as u64 + base;
                if index > max {
                    return Err(Status::OUTPUT_OVERFLOW_ERR);
                }
                if out.len() + bytes > dst_len {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                out.extend(int_bytes(index as u32, bytes, be));
            }
            Ok(out)
        }
    }
}

fn scan_test(op: Operation, x: u32, low: u32, high: u32) -> bool {
    match op {
        Operation::ScanEq => x == low,
        Operation::ScanNe => x != low,
        Operation::ScanLt => x < low,
        Operation::ScanLe => x <= low,
        Operation::ScanGt => x > low,
        Operation::ScanGe => x >= low,
        Operation::ScanRange => low <= x && x <= high,
        Operation::ScanNotRange => x < low || x > high,
        _ => unreachable!(),
    }
}

/// The contract's answer for `job` over these buffers and a destination of `dst_len` bytes.
/// Jobs whose element count is far beyond the buffers must be screened by the caller (the model
/// materialises up to `num_input_elements` values).
pub fn model(job: &Job, src1: &[u8], src2: Option<&[u8]>, dst_len: usize) -> Expected {
    let op = job.operation;
    let flags = job.flags;
    // §1.3.
    if flags.contains(Flags::CANNED_MODE) {
        return fail(Status::NULL_PTR_ERR);
    }
    // Decompress-enabled jobs are not modelled here (their source is a deflate stream):
    // callers screen them; tests/decompress.rs compares them with the uncompressed job.
    assert!(
        !flags.contains(Flags::DECOMPRESS_ENABLE),
        "decompress jobs are not modelled"
    );
    // D2.
    if op == Operation::Extract && job.param_low > job.param_high {
        return Expected::Early;
    }
    // §3 step 2.
    let n = u64::from(job.num_input_elements);
    if src1.is_empty() || dst_len == 0 || n == 0 {
        return fail(Status::SIZE_ERR);
    }
    // Step 4.
    let drop = job.drop_initial_bytes as usize;
    if op.uses_mask() {
        let Some(mask) = src2 else {
            return fail(Status::NULL_PTR_ERR);
        };
        if mask.is_empty() {
            return fail(Status::SIZE_ERR);
        }
        if drop != 0 {
            return fail(Status::DROP_BYTES_ERR);
        }
    } else if drop > src1.len() || drop > 65535 {
        return fail(Status::DROP_BYTES_ERR);
    }
    // Steps 5-6 (7 is replaced by D15).
    let ow = match job.out_bit_width.0 {
        0 => 0u32,
        1 => 8,
        2 => 16,
        3 => 32,
        _ => return fail(Status::OUT_FORMAT_ERR),
    };
    let force = flags.contains(Flags::FORCE_ARRAY_OUTPUT);
    if force && ow == 0 {
        return fail(Status::OUT_FORMAT_ERR);
    }
    // Steps 8-9.
    let parquet = job.parser.0 == 2;
    let bw = if parquet {
        u32::from(src1[0])
    } else {
        job.src1_bit_width
    };
    if !(1..=32).contains(&bw) {
        return fail(Status::BIT_WIDTH_ERR);
    }
    if job.parser.0 > 2 {
        return fail(Status::PARSER_ERR);
    }
    // D13.
    let nominal = if op.is_scan() { 1 } else { bw };
    if ow != 0 && nominal > 1 && ow < nominal {
        return fail(Status::OUT_FORMAT_ERR);
    }
    // Step 10 (with D12: packed lengths count from the dropped prologue's end).
    let data: &[u8] = if parquet {
        src1.get(1 + drop..).unwrap_or(&[])
    } else {
        &src1[drop..]
    };
    let packed_short =
        |count: u64| !parquet && (count * u64::from(bw)).div_ceil(8) > data.len() as u64;
    let index_list = ow != 0 && nominal == 1 && !force;
    let index_max = u64::from(width_mask(ow));
    let iidx = u64::from(job.initial_output_index);
    let mask = src2.unwrap_or(&[]);
    let src2_be = flags.contains(Flags::SRC2_BE);
    match op {
        Operation::Extract => {
            if packed_short(n) {
                return fail(Status::SRC_IS_SHORT_ERR);
            }
            if index_list && job.src1_bit_width == 1 && iidx + n - 1 > index_max {
                return fail(Status::OUTPUT_OVERFLOW_ERR);
            }
        }
        Operation::Select | Operation::Expand => {
            if job.src2_bit_width != 1 {
                return fail(Status::BIT_WIDTH_ERR);
            }
            if iidx != 0 {
                return fail(Status::INVALID_PARAM_ERR);
            }
            if op == Operation::Select {
                if packed_short(n) || n.div_ceil(8) > mask.len() as u64 {
                    return fail(Status::SRC_IS_SHORT_ERR);
                }
                if index_list && job.src1_bit_width == 1 && n - 1 > index_max {
                    return fail(Status::OUTPUT_OVERFLOW_ERR);
                }
            } else if n.div_ceil(8) > mask.len() as u64 {
                return fail(Status::SRC_IS_SHORT_ERR);
            }
        }
        _ => {
            if ow == 0 && n.div_ceil(8) > dst_len as u64 {
                return fail(Status::DST_IS_SHORT_ERR);
            }
            if packed_short(n) {
                return fail(Status::SRC_IS_SHORT_ERR);
            }
            if index_list && iidx + n - 1 > index_max {
                return fail(Status::OUTPUT_OVERFLOW_ERR);
            }
        }
    }
    let n = n as usize;
    // Source values wanted: expand needs popcount(mask[0..n]) (D12), the others n.
    let wanted = if op == Operation::Expand {
        (0..n).filter(|&i| mask_bit(mask, i, src2_be)).count()
    } else {
        n
    };
    if op == Operation::Expand && packed_short(wanted as u64) {
        return fail(Status::SRC_IS_SHORT_ERR);
    }
    let (values, source_error) = if parquet {
        ref_decode_hybrid(data, bw, wanted as u64)
    } else {
        let be = job.parser.0 == 1;
        (
            (0..wanted).map(|i| read_packed(data, bw, be, i)).collect(),
            None,
        )
    };
    // The nominal output element list (of the values decoded before any source error).
    let elements: Vec<u32> = match op {
        Operation::Extract => {
            let low = job.param_low as usize;
            let high = (job.param_high as usize).min(n - 1);
            if low <= high && low < values.len() {
                values[low..values.len().min(high + 1)].to_vec()
            } else {
                Vec::new()
            }
        }
        Operation::Select => values
            .iter()
            .enumerate()
            .filter(|&(i, _)| mask_bit(mask, i, src2_be))
            .map(|(_, &v)| v)
            .collect(),
        Operation::Expand => {
            let mut next = values.iter();
            let mut out = Vec::with_capacity(n);
            for j in 0..n {
                if mask_bit(mask, j, src2_be) {
                    match next.next() {
                        Some(&v) => out.push(v),
                        None => break,
                    }
                } else if source_error.is_some() && next.len() == 0 {
                    break;
                } else {
                    out.push(0);
                }
            }
            out
        }
        scan => {
            let m = width_mask(bw);
            let (low, high) = (job.param_low & m, job.param_high & m);
            values
                .iter()
                .map(|&x| u32::from(scan_test(scan, x, low, high)))
                .collect()
        }
    };
    let kind = if ow == 0 {
        Kind::Nominal(nominal)
    } else if index_list {
        Kind::Index {
            bytes: ow as usize / 8,
            base: iidx,
        }
    } else {
        Kind::Array {
            bytes: ow as usize / 8,
            and: if nominal == 1 { 1 } else { u32::MAX },
        }
    };
    let be = flags.contains(Flags::OUT_BE);
    let encoded = encode_output(kind, be, &elements, dst_len);
    if let Some(source_error) = source_error {
        return match encoded {
            // Expand buffers output elements, so the output error may not be reached first.
            Err(e) if op == Operation::Expand => Expected::Failed {
                status: e,
                alt: Some(source_error),
            },
            Err(e) => fail(e),
            Ok(_) => fail(source_error),
        };
    }
    let out = match encoded {
        Ok(out) => out,
        Err(e) => return fail(e),
    };
    let (first, last, sum) = if flags.contains(Flags::OMIT_AGGREGATES) {
        (u32::MAX, 0, 0)
    } else if nominal == 1 {
        let first = elements.iter().position(|&v| v != 0);
        let last = elements.iter().rposition(|&v| v != 0);
        let count = elements.iter().filter(|&&v| v != 0).count();
        (
            first.map_or(u32::MAX, |i| i as u32),
            last.map_or(0, |i| i as u32),
            count as u32,
        )
    } else {
        let min = elements.iter().copied().min().unwrap_or(u32::MAX);
        let max = elements.iter().copied().max().unwrap_or(0);
        let sum = elements.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        (min, max, sum)
    };
    let (crc, xor) = if flags.contains(Flags::OMIT_CHECKSUMS) {
        (0, 0)
    } else if flags.contains(Flags::CRC32C) {
        (crc32c::crc32c(src1), ref_xor16(src1))
    } else {
        (crc32fast::hash(src1), ref_xor16(src1))
    };
    let last_bit_offset = if ow == 0 && nominal == 1 {
        (elements.len() % 8) as u32
    } else {
        0
    };
    Expected::Done {
        completion: Completion {
            total_out: out.len() as u32,
            last_bit_offset,
            first_index_min_value: first,
            last_index_max_value: last,
            sum_value: sum,
            crc,
            xor_checksum: xor,
        },
        out,
    }
}

/// Runs `execute` with a destination of `dst_len` bytes inside a sentinel-filled buffer.
/// Returns the result and the whole guarded buffer. Panics if a guard byte changed.
pub fn run_guarded(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
) -> (Result<Completion, Status>, Vec<u8>) {
    let (result, buf, _) = run_guarded_at(job, src1, src2, dst_len, None);
    (result, buf)
}

/// [`run_guarded`] with the destination `GUARD` bytes in, or, with `shift`, `shift` (< 64)
/// bytes past a 64-byte boundary at least 64 bytes in (the kernels' alignment paths).
/// Also returns where the destination is in the buffer.
pub fn run_guarded_at(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    shift: Option<usize>,
) -> (Result<Completion, Status>, Vec<u8>, std::ops::Range<usize>) {
    // Placed destinations get a whole vector of guard on each side, and room for the
    // alignment (< 64) and the shift (< 64).
    let (guard, room) = if shift.is_some() {
        (64, 128)
    } else {
        (GUARD, 0)
    };
    let mut buf = vec![SENTINEL; dst_len + 2 * guard + room];
    let at = match shift {
        None => guard,
        Some(shift) => buf.as_ptr().align_offset(64) + guard + shift,
    };
    let result = execute(job, src1, src2, &mut buf[at..at + dst_len]);
    assert!(
        buf[..at].iter().all(|&b| b == SENTINEL),
        "write before dst: {job:?} shift {shift:?}"
    );
    assert!(
        buf[at + dst_len..].iter().all(|&b| b == SENTINEL),
        "write past dst: {job:?} dst_len {dst_len} shift {shift:?}"
    );
    (result, buf, at..at + dst_len)
}

/// Runs `job` through `execute` (guarded) and checks every observable against `model`.
/// Returns the model's expectation.
pub fn check(job: &Job, src1: &[u8], src2: Option<&[u8]>, dst_len: usize) -> Expected {
    let expected = model(job, src1, src2, dst_len);
    check_against(job, src1, src2, dst_len, expected)
}

/// Like [`check`], with the model's answer for this `dst_len` already computed.
pub fn check_against(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    expected: Expected,
) -> Expected {
    check_against_at(job, src1, src2, dst_len, None, expected)
}

/// [`check_against`] with the destination placed as [`run_guarded_at`] places it.
pub fn check_against_at(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    shift: Option<usize>,
    expected: Expected,
) -> Expected {
    let (result, buf, dst) = run_guarded_at(job, src1, src2, dst_len, shift);
    let dst = &buf[dst];
    match &expected {
        Expected::Early => {
            assert_eq!(
                result,
                Ok(Completion {
                    first_index_min_value: 0,
                    ..Completion::default()
                }),
                "D2 early return: {job:?}"
            );
            assert!(dst.iter().all(|&b| b == SENTINEL), "D2 wrote: {job:?}");
        }
        Expected::Done { out, completion } => {
            assert_eq!(
                result,
                Ok(*completion),
                "{job:?} dst_len {dst_len} shift {shift:?}"
            );
            assert_eq!(&dst[..out.len()], &out[..], "output bytes: {job:?}");
            assert!(
                dst[out.len()..].iter().all(|&b| b == SENTINEL),
                "wrote past total_out: {job:?}"
            );
        }
        Expected::Failed { status, alt } => {
            let got = result.expect_err("expected an error");
            assert!(
                got == *status || Some(got) == *alt,
                "status {got:?}, expected {status:?} (or {alt:?}): {job:?} dst_len {dst_len} \
                 shift {shift:?}"
            );
        }
    }
    expected
}

/// splitmix64: a tiny deterministic generator for bulk test data.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// `len` values below 2^bw with a random run structure: repeats (long and short), random
/// stretches, and stretches of a few distinct values.
pub fn gen_values(rng: &mut Rng, bw: u32, len: usize) -> Vec<u32> {
    let m = width_mask(bw);
    let mut out: Vec<u32> = Vec::with_capacity(len);
    while out.len() < len {
        let left = len - out.len();
        let seg = match rng.below(4) {
            0 => 1 + rng.below(8) as usize,
            1 => 1 + rng.below(40) as usize,
            2 => 1 + rng.below(600) as usize,
            _ => 1 + rng.below(3000) as usize,
        }
        .min(left);
        let special = [0, m, m >> 1, 1 & m];
        match rng.below(5) {
            0 | 1 => {
                let v = if rng.one_in(2) {
                    special[rng.below(4) as usize]
                } else {
                    rng.next_u32() & m
                };
                out.extend(std::iter::repeat_n(v, seg));
            }
            2 => {
                let few: Vec<u32> = (0..3).map(|_| rng.next_u32() & m).collect();
                out.extend((0..seg).map(|_| few[rng.below(3) as usize]));
            }
            _ => out.extend((0..seg).map(|_| rng.next_u32() & m)),
        }
    }
    out
}

/// ULEB128 of `v` in exactly `len` bytes (non-canonical padding allowed; `len` ≥ canonical).
pub fn varint(v: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            let group = ((v >> (7 * i)) & 0x7F) as u8;
            if i + 1 < len {
                group | 0x80
            } else {
                group
            }
        })
        .collect()
}

/// Canonical ULEB128 length of `v`.
pub fn varint_len(v: u64) -> usize {
    let mut len = 1;
    while v >> (7 * len) != 0 {
        len += 1;
    }
    len
}

/// A hybrid body built independently of the crate's encoder, with the decoded values it holds.
pub struct Built {
    /// The body, without the bit-width byte.
    pub body: Vec<u8>,
    /// Every value the body holds (bit-packed padding included).
    pub values: Vec<u32>,
}

/// Builds a hybrid body of width `bw` (0..=32) holding at least `min_values` values, with
/// random run kinds and lengths, padded headers (up to 4 bytes), zero-length runs and, when
/// `over_wide`, RLE values using all ⌈bw/8⌉ bytes (D5).
pub fn build_hybrid(rng: &mut Rng, bw: u32, min_values: usize, over_wide: bool) -> Built {
    let value_bytes = bw.div_ceil(8) as usize;
    let m = width_mask(bw);
    let mut body = Vec::new();
    let mut values = Vec::new();
    let header = |rng: &mut Rng, body: &mut Vec<u8>, h: u64| {
        let min = varint_len(h);
        let len = if min < 4 && rng.one_in(5) {
            min + rng.below((4 - min) as u64 + 1) as usize
        } else {
            min
        };
        body.extend(varint(h, len));
    };
    while values.len() < min_values {
        let left = (min_values - values.len()) as u64;
        match rng.below(9) {
            0 => {
                // Zero-length RLE or bit-packed run (D9).
                if rng.one_in(2) {
                    header(rng, &mut body, 0);
                    body.extend(rng.bytes(value_bytes));
                } else {
                    header(rng, &mut body, 1);
                }
            }
            1..=4 => {
                let limit = if rng.one_in(4) { 3000 } else { left.min(300) };
                let count = 1 + rng.below(limit);
                let value = if over_wide && rng.one_in(3) {
                    (rng.next_u64() as u32) & width_mask(8 * value_bytes as u32)
                } else if rng.one_in(2) {
                    rng.next_u32() & m
                } else {
                    [0, m][rng.below(2) as usize]
                };
                header(rng, &mut body, count << 1);
                body.extend(&value.to_le_bytes()[..value_bytes]);
                values.extend(std::iter::repeat_n(value, count as usize));
            }
            _ => {
                let limit = if rng.one_in(3) { 200 } else { 8 };
                let groups = 1 + rng.below(left.div_ceil(8).min(limit));
                let vals: Vec<u32> = (0..groups * 8)
                    .map(|_| {
                        if rng.one_in(3) {
                            values.last().copied().unwrap_or(0) & m
                        } else {
                            rng.next_u32() & m
                        }
                    })
                    .collect();
                header(rng, &mut body, (groups << 1) | 1);
                body.extend(pack_bits(&vals, bw, false));
                values.extend(vals);
            }
        }
    }
    Built { body, values }
}

/// arrow-rs's encoders and decoders (the `parquet` crate), for the Parquet codecs' differential
/// tests.
pub mod arrow_rs {
    use std::fmt::Debug;
    use std::sync::Arc;

    use bytes::Bytes;
    use parquet::basic::{Encoding, Type as PhysicalType};
    use parquet::data_type::DataType;
    use parquet::encodings::decoding::get_decoder;
    use parquet::encodings::encoding::get_encoder;
    use parquet::schema::types::{ColumnDescPtr, ColumnDescriptor, ColumnPath, Type};

    /// A required column `c` of `physical` type; `type_length` is FIXED_LEN_BYTE_ARRAY's length
    /// (-1, the builder's default, for the other types).
    pub fn column(physical: PhysicalType, type_length: i32) -> ColumnDescPtr {
        let ty = Type::primitive_type_builder("c", physical)
            .with_length(type_length)
            .build()
            .unwrap();
        Arc::new(ColumnDescriptor::new(
            Arc::new(ty),
            0,
            0,
            ColumnPath::new(vec!["c".into()]),
        ))
    }

    /// arrow-rs's `encoding` of `values`, in a column of `T`'s physical type.
    pub fn encode<T: DataType>(encoding: Encoding, values: &[T::T], type_length: i32) -> Vec<u8> {
        let column = column(T::get_physical_type(), type_length);
        let mut encoder = get_encoder::<T>(encoding, &column).unwrap();
        encoder.put(values).unwrap();
        encoder.flush_buffer().unwrap().to_vec()
    }

    /// arrow-rs's decoding of the `n` values of the `encoding` page `data`, in a column of
    /// `T`'s physical type; asserts that it decodes all `n`.
    pub fn decode<T: DataType>(
        encoding: Encoding,
        data: &[u8],
        n: usize,
        type_length: i32,
    ) -> Vec<T::T> {
        let column = column(T::get_physical_type(), type_length);
        let mut decoder = get_decoder::<T>(column, encoding).unwrap();
        decoder.set_data(Bytes::copy_from_slice(data), n).unwrap();
        let mut out = vec![T::T::default(); n];
        assert_eq!(decoder.get(&mut out).unwrap(), n);
        out
    }

    /// Checks `data`, our `encoding` of `values`, against arrow-rs both ways: arrow-rs encodes
    /// `values` to the same bytes, and decodes `data` back to values equal by `key` (the bits
    /// of floats, so that NaNs compare).
    pub fn check_both_ways<T: DataType, K: PartialEq + Debug>(
        encoding: Encoding,
        values: &[T::T],
        data: &[u8],
        type_length: i32,
        key: impl Fn(&T::T) -> K,
    ) {
        assert_eq!(
            encode::<T>(encoding, values, type_length),
            data,
            "arrow-rs's {encoding} bytes"
        );
        let back = decode::<T>(encoding, data, values.len(), type_length);
        assert_eq!(
            back.iter().map(&key).collect::<Vec<_>>(),
            values.iter().map(&key).collect::<Vec<_>>(),
            "arrow-rs's decoding of our {encoding} bytes"
        );
    }
}

/// Incremental decoding checked call by call, for the Parquet codecs' tests.
pub mod steps {
    use qpl_fallback::parquet::{ByteArrayDecoder, ByteArrays, ValueDecoder};

    /// Drives `decoder` with `steps` (skip or decode, how many; cycled) until it is empty,
    /// checking each batch against `whole` (compared by `key`: bytes, so that NaN payloads
    /// count) and each count and `remaining()` against what remained; then decodes the rest in
    /// one batch, and checks that nothing more comes. Batches start filled with `fill`.
    pub fn check_values<D, K>(
        decoder: &mut D,
        whole: &[D::Value],
        steps: &[(bool, usize)],
        fill: D::Value,
        key: impl Fn(&[D::Value]) -> K,
    ) where
        D: ValueDecoder,
        D::Value: Copy,
        K: PartialEq + std::fmt::Debug,
    {
        assert_eq!(decoder.remaining(), whole.len());
        let mut position = 0;
        for &(skip, n) in steps.iter().cycle().take(whole.len() * 2 + steps.len()) {
            let before = decoder.remaining();
            let expected = n.min(before);
            if skip {
                assert_eq!(decoder.skip(n).unwrap(), expected);
            } else {
                let mut buf = vec![fill; n];
                assert_eq!(decoder.next_batch(&mut buf).unwrap(), expected);
                assert_eq!(
                    key(&buf[..expected]),
                    key(&whole[position..position + expected])
                );
            }
            position += expected;
            assert_eq!(decoder.remaining(), before - expected);
            if decoder.remaining() == 0 {
                break;
            }
        }
        // Whatever the steps, finish the page.
        let rest = decoder.remaining();
        let mut buf = vec![fill; rest + 3];
        assert_eq!(decoder.next_batch(&mut buf).unwrap(), rest);
        assert_eq!(key(&buf[..rest]), key(&whole[position..]));
        assert_eq!(decoder.next_batch(&mut buf).unwrap(), 0);
        assert_eq!(decoder.skip(5).unwrap(), 0);
    }

    /// Like [`check_values`] for byte arrays, appending to an `out` that already holds a
    /// value.
    pub fn check_byte_arrays<D: ByteArrayDecoder>(
        decoder: &mut D,
        whole: &[Vec<u8>],
        steps: &[(bool, usize)],
    ) {
        let mut out = ByteArrays::new();
        out.push(b"before").unwrap();
        let mut expected: Vec<&[u8]> = vec![b"before"];
        let mut position = 0;
        for &(skip, n) in steps.iter().cycle().take(whole.len() * 2 + steps.len()) {
            let before = decoder.remaining();
            let count = n.min(before);
            if skip {
                assert_eq!(decoder.skip(n).unwrap(), count);
            } else {
                assert_eq!(decoder.next_batch(&mut out, n).unwrap(), count);
                expected.extend(whole[position..position + count].iter().map(Vec::as_slice));
            }
            position += count;
            if decoder.remaining() == 0 {
                break;
            }
        }
        let rest = decoder.remaining();
        assert_eq!(decoder.next_batch(&mut out, usize::MAX).unwrap(), rest);
        expected.extend(whole[position..].iter().map(Vec::as_slice));
        assert_eq!(out.iter().collect::<Vec<_>>(), expected);
        assert_eq!(decoder.next_batch(&mut out, 1).unwrap(), 0);
    }
}

/// Checks a Parquet codec's error: its kind, and the words its message must hold.
pub fn expect_error<T: std::fmt::Debug>(
    result: Result<T, qpl_fallback::parquet::ParquetError>,
    kind: qpl_fallback::parquet::ErrorKind,
    text: &str,
) {
    let error = result.unwrap_err();
    assert_eq!(error.kind, kind, "{}", error.message);
    assert!(error.message.contains(text), "{}", error.message);
}
