//! The known divergences between QPL's software path and the fallback: [`known_divergence`]
//! and the facts about a job its predicates use (QPL's step model, Parquet run walking).
//!
//! Every function here takes arbitrary jobs and buffers (a fuzzer's raw fields included)
//! without panicking.

use std::collections::BTreeSet;

use qpl_rs::{Completion, Executor, Flags, Job, Operation, OutBitWidth, Parser, Path, Status};

use crate::{agree, run_fallback, width_mask, Fallback, Software};

fn status_of<T, E: Copy>(r: &Result<T, E>) -> Option<E> {
    r.as_ref().err().copied()
}

fn sw_status(s: &Software) -> Option<Status> {
    s.result.as_ref().err().map(|e| e.status)
}

// ---------------------------------------------------------------------------------------
// Facts about a job that the divergence predicates use.

/// QPL's step: source elements decoded per step by unpacked element size (§4.3.3).
fn step_elements(bw: u32) -> u64 {
    match bw {
        0..=8 => 16448,
        9..=16 => 8224,
        _ => 4112,
    }
}

/// QPL's select/expand mask step (§5).
const MASK_STEP: u64 = 16384;

fn is_parquet(job: &Job) -> bool {
    job.parser == Parser::PARQUET_RLE
}

/// Source-1 bit width the job really uses (Parquet: the stream's first byte).
fn width_of(job: &Job, src1: &[u8]) -> u32 {
    if is_parquet(job) {
        // An empty stream has no bit-width byte: 0, which no path accepts (231).
        src1.first().map_or(0, |&b| u32::from(b))
    } else {
        job.src1_bit_width
    }
}

fn nominal_width(job: &Job, src1: &[u8]) -> u32 {
    if job.operation.is_scan() {
        1
    } else {
        width_of(job, src1)
    }
}

/// One run of a Parquet stream as QPL's and the fallback's decoders see it.
#[derive(Clone, Copy, Debug)]
struct WalkedRun {
    /// Index of the run's first value in the stream.
    start: u64,
    /// Values in the run (groups · 8 for bit-packed runs).
    count: u64,
    rle: bool,
    /// Bytes of the varint header.
    header_len: usize,
    /// Offset of its payload (after the header) in the stream walked.
    payload_at: usize,
    /// The RLE value (all ⌈bw/8⌉ bytes, not masked).
    value: u32,
    /// All payload bytes present.
    complete: bool,
}

/// The runs of a Parquet stream (without the bit-width byte and dropped bytes), read with
/// up to 5 varint bytes, until the stream ends or a header or payload is cut short.
fn walk(data: &[u8], bw: u32) -> (Vec<WalkedRun>, bool) {
    let value_bytes = bw.div_ceil(8) as usize;
    let mut runs = Vec::new();
    let mut pos = 0usize;
    let mut start = 0u64;
    while pos < data.len() {
        let mut header = 0u64;
        let mut len = 0usize;
        loop {
            let Some(&b) = data.get(pos + len) else {
                if len >= 4 {
                    // Four continuation bytes, then the end: a header of 5+ bytes (D4).
                    runs.push(WalkedRun {
                        start,
                        count: 0,
                        rle: true,
                        header_len: 5,
                        payload_at: data.len(),
                        value: 0,
                        complete: false,
                    });
                }
                return (runs, false);
            };
            if len < 5 {
                header |= u64::from(b & 0x7F) << (7 * len);
            }
            len += 1;
            if b & 0x80 == 0 || len == 5 {
                break;
            }
        }
        pos += len;
        let rle = header & 1 == 0;
        let raw = (header >> 1) & 0xFFFF_FFFF;
        let (count, payload) = if rle {
            (raw, value_bytes)
        } else {
            (raw * 8, (raw as usize) * bw as usize)
        };
        let complete = pos + payload <= data.len();
        let mut value = 0u32;
        if rle && complete {
            for (i, &b) in data[pos..pos + value_bytes].iter().enumerate() {
                value |= u32::from(b) << (8 * i);
            }
        }
        runs.push(WalkedRun {
            start,
            count,
            rle,
            header_len: len,
            payload_at: pos,
            value,
            complete,
        });
        if !complete {
            return (runs, false);
        }
        pos += payload;
        start += count;
    }
    (runs, true)
}

/// The Parquet runs after the bit-width byte and the dropped bytes.
fn parquet_runs(job: &Job, src1: &[u8]) -> (Vec<WalkedRun>, bool) {
    let bw = width_of(job, src1);
    let data = src1
        .get(1 + job.drop_initial_bytes as usize..)
        .unwrap_or(&[]);
    walk(data, bw)
}

/// Values a Parquet stream can deliver (complete runs only).
fn parquet_values(job: &Job, src1: &[u8]) -> u64 {
    let (runs, _) = parquet_runs(job, src1);
    runs.iter().filter(|r| r.complete).map(|r| r.count).sum()
}

/// Whether the Parquet stream's complete runs hold the source values the job needs.
fn stream_holds_needed(job: &Job, src1: &[u8], src2: Option<&[u8]>) -> bool {
    parquet_values(job, src1) >= qpl_fallback::source_values_needed(job, src2)
}

fn mask_bit(job: &Job, mask: &[u8], i: u64) -> bool {
    let byte = mask.get((i / 8) as usize).copied().unwrap_or(0);
    let shift = if job.flags.contains(Flags::SRC2_BE) {
        7 - i % 8
    } else {
        i % 8
    };
    (byte >> shift) & 1 == 1
}

/// §5.3: source elements QPL's select processes before it stops (packed sources).
fn select_processed(n: u64, bw: u32) -> u64 {
    let c = step_elements(bw);
    let (mut unpacked, mut mask, mut processed) = (0u64, 0u64, 0u64);
    while unpacked < n {
        if processed == mask {
            mask += MASK_STEP.min(n - mask);
        }
        if processed == unpacked {
            unpacked += c.min(n - unpacked);
        }
        processed = unpacked.min(mask);
    }
    processed
}

/// §5.4: output elements QPL's expand writes (packed sources). The loop runs while fewer
/// than n and fewer than available_src2·8 elements are written: refill the source step
/// (min(C, n − unpacked)) or the mask step (min(16384, mask bits left)) when used up, then
/// emit k = min(unused source, unused mask) outputs, consuming their set bits' values.
fn expand_written(job: &Job, mask: &[u8], bw: u32) -> u64 {
    let n = u64::from(job.num_input_elements);
    let mask_bits = mask.len() as u64 * 8;
    let c = step_elements(bw);
    let (mut unpacked, mut used) = (0u64, 0u64);
    let (mut mask_unpacked, mut written) = (0u64, 0u64);
    while written < n && written < mask_bits {
        if used == unpacked {
            unpacked += c.min(n - unpacked);
        }
        if written == mask_unpacked {
            mask_unpacked += MASK_STEP.min(mask_bits - mask_unpacked);
        }
        let k = (unpacked - used).min(mask_unpacked - written);
        if k == 0 {
            break;
        }
        used += (written..written + k)
            .filter(|&i| mask_bit(job, mask, i))
            .count() as u64;
        written += k;
    }
    written
}

/// The same job with the select mask's bits from `from` on cleared.
fn mask_cleared_from(job: &Job, mask: &[u8], from: u64) -> Vec<u8> {
    let mut out = mask.to_vec();
    for i in from..out.len() as u64 * 8 {
        let shift = if job.flags.contains(Flags::SRC2_BE) {
            7 - i % 8
        } else {
            i % 8
        };
        out[(i / 8) as usize] &= !(1 << shift);
    }
    out
}

// ---------------------------------------------------------------------------------------
// The known divergences.

/// Which fields of two successful results differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Diff {
    total_out: bool,
    bytes: bool,
    last_bit_offset: bool,
    first: bool,
    last: bool,
    sum: bool,
    checksums: bool,
}

impl Diff {
    fn of(sw: &Completion, sw_bytes: &[u8], fb: &Completion, fb_bytes: &[u8]) -> Diff {
        Diff {
            total_out: sw.total_out != fb.total_out,
            bytes: sw_bytes != fb_bytes,
            last_bit_offset: sw.last_bit_offset != fb.last_bit_offset,
            first: sw.first_index_min_value != fb.first_index_min_value,
            last: sw.last_index_max_value != fb.last_index_max_value,
            sum: sw.sum_value != fb.sum_value,
            checksums: sw.crc != fb.crc || sw.xor_checksum != fb.xor_checksum,
        }
    }

    fn aggregates(self) -> bool {
        self.first || self.last || self.sum
    }
}

/// The output elements of a nominal (packed at `width`) or array output, `count` at most.
fn output_elements(job: &Job, width: u32, bytes: &[u8], count: u64) -> Vec<u32> {
    let be = job.flags.contains(Flags::OUT_BE);
    let out_bits = job.out_bit_width.bits().unwrap_or(0);
    let mut out = Vec::new();
    if out_bits == 0 {
        // Only a job both paths ran gets here, so 1..=32; anything else has no elements.
        if !(1..=32).contains(&width) {
            return out;
        }
        let total = (bytes.len() as u64 * 8 / u64::from(width)).min(count);
        for i in 0..total {
            let mut v = 0u32;
            for b in 0..u64::from(width) {
                let k = i * u64::from(width) + b;
                let byte = bytes[(k / 8) as usize];
                let bit = u32::from((byte >> if be { 7 - k % 8 } else { k % 8 }) & 1);
                if be {
                    v = (v << 1) | bit;
                } else {
                    v |= bit << b;
                }
            }
            out.push(v);
        }
    } else {
        let size = out_bits as usize / 8;
        for chunk in bytes.chunks_exact(size).take(count as usize) {
            let mut v = 0u32;
            for (i, &b) in chunk.iter().enumerate() {
                let shift = if be { 8 * (size - 1 - i) } else { 8 * i };
                v |= u32::from(b) << shift;
            }
            out.push(v);
        }
    }
    out
}

/// Positions of the set bits of the select mask below n, in order.
fn selected_positions(job: &Job, mask: &[u8]) -> Vec<u64> {
    (0..u64::from(job.num_input_elements))
        .filter(|&i| mask_bit(job, mask, i))
        .collect()
}

/// New QPL bug (not among the decisions D1–D21; found by this suite): select outputs wrong elements
/// for some source elements in `[k·16384, k·16448)`, k ≥ 1 — the tail of a source step
/// left over at a mask-step boundary (16448 = 16448 = 2·8224 = 4·4112). Always for bit
/// widths 9..=31 (all-ones mask: every element of the window), data-dependent for widths
/// ≤ 8, never for width 32. Index lists (bit width 1) show it as wrong indices.
/// True when every differing output element comes from such a window.
fn select_window_bug(job: &Job, bw: u32, mask: &[u8], sw_bytes: &[u8], ref_bytes: &[u8]) -> bool {
    if job.operation != Operation::Select || bw == 32 {
        return false;
    }
    let positions = selected_positions(job, mask);
    let count = positions.len() as u64;
    let in_window = |s: u64| {
        let k = s / MASK_STEP;
        k > 0 && s < k * 16448
    };
    if is_index_list(job, bw) {
        // Index lists hold the output positions of 1-bits: compare them as sets; every
        // position in one list only must be a selected element of a window.
        let a = output_elements(job, bw, sw_bytes, u64::MAX);
        let b = output_elements(job, bw, ref_bytes, u64::MAX);
        let (sa, sb): (BTreeSet<u32>, BTreeSet<u32>) =
            (a.into_iter().collect(), b.into_iter().collect());
        let odd: Vec<u32> = sa.symmetric_difference(&sb).copied().collect();
        return !odd.is_empty()
            && odd
                .iter()
                .all(|&p| positions.get(p as usize).is_some_and(|&s| in_window(s)));
    }
    let a = output_elements(job, bw, sw_bytes, count);
    let b = output_elements(job, bw, ref_bytes, count);
    if a.len() != b.len() {
        return false;
    }
    let mut any = false;
    for (j, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            // The window's garbage is over-wide: in a big-endian packed output its extra
            // bits spill into the element before it (as in D5).
            let spill = job.out_bit_width == OutBitWidth::NOMINAL
                && positions.get(j + 1).is_some_and(|&s| in_window(s));
            if !in_window(positions[j]) && !spill {
                return false;
            }
            any = true;
        }
    }
    any
}

fn is_index_list(job: &Job, bw: u32) -> bool {
    let nominal = if job.operation.is_scan() { 1 } else { bw };
    nominal == 1
        && job.out_bit_width != OutBitWidth::NOMINAL
        && !job.flags.contains(Flags::FORCE_ARRAY_OUTPUT)
}

/// D16, narrowed to what §7.3 measured: returns whether the aggregate fields `sw` reports
/// may differ from the fallback's `fb`.
fn aggregates_excused(job: &Job, src1: &[u8], sw: &Completion, fb: &Completion) -> bool {
    let op = job.operation;
    if job.flags.contains(Flags::OMIT_AGGREGATES) {
        return false;
    }
    // Select/expand with bw > 1: the fallback reports value aggregates (min, max, sum),
    // QPL its byte-based "bit aggregates" of the output buffer (§7.3).
    if op.uses_mask() && nominal_width(job, src1) > 1 {
        return true;
    }
    // Select with bw = 1 over more than one mask step: the byte-based kernel runs on each
    // step's selected-element buffer, including the window of the select bug (NEW-Q1).
    if op == Operation::Select && u64::from(job.num_input_elements) > MASK_STEP {
        return true;
    }
    // The 64-multiple step bug (§7.3): only last_index_max_value moves, to the start of a
    // later step without set bits, after the last set position.
    sw.first_index_min_value == fb.first_index_min_value
        && sw.sum_value == fb.sum_value
        && sw.last_index_max_value > fb.last_index_max_value
        && fb.sum_value > 0
        && u64::from(sw.last_index_max_value) < u64::from(job.num_input_elements)
        && (is_parquet(job) || op.uses_mask() || {
            // Packed scan/extract: steps of C source elements from element 0; the kernel
            // sees the elements of a step that the job outputs (extract: param_low..=
            // param_high), and the bug sets max to the count output before a step whose
            // output count is a multiple of 64. Extract of wider elements reports value
            // aggregates, without the bug.
            let c = step_elements(width_of(job, src1));
            let n = u64::from(job.num_input_elements);
            let (first, end) = if op == Operation::Extract {
                let high = u64::from(job.param_high) + 1;
                (u64::from(job.param_low), n.min(high))
            } else {
                (0, n)
            };
            let start = first + u64::from(sw.last_index_max_value);
            (op != Operation::Extract || nominal_width(job, src1) == 1)
                && start % c == 0
                && start < end
                && (end - start).min(c) % 64 == 0
        })
}

/// PX-1 (not among the decisions D1–D21; found by the differential tests on a host without AVX-512,
/// where QPL's software path runs its generic "px" kernels): the px bit-vector aggregate
/// kernel adds the unpacked bytes instead of counting the nonzero ones, so an extract,
/// select or expand of a Parquet stream of width 1 with over-wide RLE values (D5) reports
/// `sum_value` = the wrapping sum of its output elements' unmasked values, where the
/// fallback (and QPL's AVX-512 kernels) report the popcount. First and last index agree.
/// Measured with QPL 1.6.0 px: 8 zeros then RLE 20 × v (v = 2, 3, 0x5E, 0xCF), extract of
/// elements 5..=20 → sum 13·v; select and expand sum the selected / the first popcount(mask)
/// values; every output width, with and without FORCE_ARRAY_OUTPUT.
/// True when `sw` differs from `fb` in `sum_value` alone and equals that sum.
fn px_unmasked_bit_sum(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    sw: &Completion,
    fb: &Completion,
) -> bool {
    if !is_parquet(job)
        || width_of(job, src1) != 1
        || job.flags.contains(Flags::OMIT_AGGREGATES)
        || sw.first_index_min_value != fb.first_index_min_value
        || sw.last_index_max_value != fb.last_index_max_value
        || sw.sum_value == fb.sum_value
    {
        return false;
    }
    let data = src1
        .get(1 + job.drop_initial_bytes as usize..)
        .unwrap_or(&[]);
    let (runs, _) = walk(data, 1);
    let n = u64::from(job.num_input_elements);
    let mask = src2.unwrap_or(&[]);
    // The raw value of source element i (None past the stream's complete runs).
    let value = |i: u64| -> Option<u32> {
        let at = runs.partition_point(|r| r.start + r.count <= i);
        let r = runs.get(at).filter(|r| r.complete && r.start <= i)?;
        if r.rle {
            return Some(r.value);
        }
        let k = i - r.start;
        let byte = data.get(r.payload_at + (k / 8) as usize)?;
        Some(u32::from((byte >> (k % 8)) & 1))
    };
    let mut sum = 0u32;
    let add = |sum: &mut u32, i: u64| value(i).map(|v| *sum = sum.wrapping_add(v)).is_some();
    let summed = match job.operation {
        Operation::Extract => {
            let (low, end) = (
                u64::from(job.param_low),
                n.min(u64::from(job.param_high) + 1),
            );
            // RLE runs by multiplication (they may be long), bit-packed runs bit by bit
            // (bounded by the stream's bytes).
            runs.iter().all(|r| {
                let (from, to) = (low.max(r.start), end.min(r.start + r.count));
                if from >= to {
                    true
                } else if r.rle {
                    sum = sum.wrapping_add(r.value.wrapping_mul((to - from) as u32));
                    r.complete
                } else {
                    (from..to).all(|i| add(&mut sum, i))
                }
            })
        }
        Operation::Select => (0..n.min(mask.len() as u64 * 8))
            .filter(|&i| mask_bit(job, mask, i))
            .all(|i| add(&mut sum, i)),
        Operation::Expand => {
            let wanted = (0..n.min(mask.len() as u64 * 8))
                .filter(|&i| mask_bit(job, mask, i))
                .count() as u64;
            (0..wanted).all(|i| add(&mut sum, i))
        }
        _ => false,
    };
    summed && sw.sum_value == sum
}

/// D5 (§6.6): a Parquet job of extract/select/expand whose output packs values at the
/// nominal width (also when the wrapper widens QPL's nominal bit vector for
/// FORCE_ARRAY_OUTPUT, bw 1), over a stream with an RLE run value wider than bw bits: QPL
/// spills the extra bits into the packed output, so its bytes may differ from the
/// fallback's (which masks the values to bw bits).
fn over_wide_values_packed(job: &Job, src1: &[u8]) -> bool {
    let bw = width_of(job, src1);
    let forced = job.flags.contains(Flags::FORCE_ARRAY_OUTPUT) && bw == 1;
    is_parquet(job)
        && !job.operation.is_scan()
        && (job.out_bit_width == OutBitWidth::NOMINAL || forced)
        && !matches!(bw, 8 | 16 | 32)
        && parquet_runs(job, src1)
            .0
            .iter()
            .any(|r| r.rle && r.count > 0 && r.value > width_mask(bw))
}

/// NEW-Q4 (not among the decisions D1–D21; found by the random jobs, `DIFF_SEED=164`): QPL's software
/// path succeeds where the last group of a bit-packed run is cut short (fewer than bw
/// bytes) but holds the job's last wanted values in full, when the run started before the
/// job's last step (its header was decoded in an earlier step and the run was pending):
/// measured with QPL 1.6.0 at width 16 (steps of 8224), e.g. RLE 16445 values then 2 groups
/// with 3 bytes cut, n 16459 → OK; the same within one step → 232 (§4.3.2, as the fallback
/// and the accelerator's contract, D6); and 232 when the cut group is all that is pending.
/// Returns the stream with that group completed by zero bytes, when the job has this
/// shape: Parquet, more than one step, the stream's last run a cut-short bit-packed run that
/// starts before the last step, whose present bytes hold every wanted value.
fn completed_last_group(job: &Job, src1: &[u8], src2: Option<&[u8]>) -> Option<Vec<u8>> {
    if !is_parquet(job) {
        return None;
    }
    let bw = width_of(job, src1);
    let c = step_elements(bw);
    let needed = qpl_fallback::source_values_needed(job, src2);
    let (runs, clean) = parquet_runs(job, src1);
    let last = runs.last()?;
    if clean || last.complete || last.rle || needed <= c || last.start >= (needed - 1) / c * c {
        return None;
    }
    // Where its payload starts in `src1`: after the bit-width byte and the dropped bytes.
    let payload = 1 + u64::from(job.drop_initial_bytes) + last.payload_at as u64;
    let wanted_bytes = (needed.checked_sub(last.start)? * u64::from(bw)).div_ceil(8);
    let full = payload + last.count / 8 * u64::from(bw);
    if payload + wanted_bytes > src1.len() as u64 || full > 1 << 30 {
        return None;
    }
    let mut padded = src1.to_vec();
    padded.resize(full as usize, 0);
    Some(padded)
}

/// The wrapper's FORCE_ARRAY_OUTPUT on QPL widens the bits of QPL's nominal bit vector, up
/// to the whole bytes QPL reports (it cannot tell the padding of the last byte from
/// elements, select reporting no bit offset), at most the elements the job selects: after
/// QPL's select drops a tail (D10), its output ends with zero elements up to a multiple of
/// 8. Makes `outcome` (a successful forced-array select) end the same way.
fn pad_to_whole_bytes_of_bits(job: &Job, src2: Option<&[u8]>, outcome: &mut Fallback) {
    let Ok(completion) = &mut outcome.result else {
        return;
    };
    let bytes = (job.out_bit_width.bits().unwrap_or(8) / 8).max(1) as usize;
    let elements = outcome.bytes.len() / bytes;
    let cap = qpl_fallback::nominal_output_elements(job, src2) as usize;
    let padded = elements.next_multiple_of(8).min(cap).max(elements);
    outcome.bytes.resize(padded * bytes, 0);
    completion.total_out = (padded * bytes) as u32;
}

/// The fallback's outcome on `stream`, a stand-in for the caller's source-1 that QPL ran
/// (the wrapper's width-0 stand-in) or behaved as if it ran (NEW-Q4's completed group),
/// when QPL's result agrees with it exactly or by a known divergence. QPL's checksums are
/// of the caller's stream, so the stand-in's are taken for the comparison.
fn explained_on_stand_in(
    job: &Job,
    stream: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    software: &Software,
) -> Option<Fallback> {
    let stand_in = run_fallback(job, stream, src2, dst_len);
    let mut inner = Software {
        result: software.result.clone(),
        bytes: software.bytes.clone(),
    };
    if let (Ok(out), Ok(c)) = (&mut inner.result, &stand_in.result) {
        out.completion.crc = c.crc;
        out.completion.xor_checksum = c.xor_checksum;
    }
    let explained = agree(&inner, &stand_in)
        || known_divergence(job, stream, src2, dst_len, &inner, &stand_in).is_some();
    explained.then_some(stand_in)
}

/// D18 (§7.2): QPL's last_bit_offset of a nominal 1-bit output of extract/select/expand.
fn last_bit_offset_excused(job: &Job, src1: &[u8], sw: &Completion) -> bool {
    if job.out_bit_width != OutBitWidth::NOMINAL || nominal_width(job, src1) != 1 {
        return false;
    }
    match job.operation {
        // From the parameters, not from the elements extracted.
        Operation::Extract => {
            sw.last_bit_offset == job.param_high.wrapping_sub(job.param_low).wrapping_add(1) % 8
        }
        Operation::Select => sw.last_bit_offset == 0,
        // (n − source elements unpacked so far) mod 8: 0 when all n were unpacked, n mod 8
        // when a multiple of 8 (whole packed steps) were; Parquet steps vary.
        Operation::Expand => {
            sw.last_bit_offset == 0
                || sw.last_bit_offset == job.num_input_elements % 8
                || is_parquet(job)
        }
        _ => false,
    }
}

/// D4 (§4.3.1): a run header of 5 or more bytes before the fallback has its values: the
/// fallback stops with 220, QPL reads 5 bytes and carries on.
fn five_byte_header(job: &Job, src1: &[u8], src2: Option<&[u8]>) -> bool {
    let needed = qpl_fallback::source_values_needed(job, src2);
    let (runs, _) = parquet_runs(job, src1);
    runs.iter().any(|r| r.header_len >= 5 && r.start < needed)
}

/// A destination with room for the output of every value before the stream's first run
/// header of 5 or more bytes (D4), at 4 bytes per value (the widest output element), when
/// that is small enough to try (64 MiB).
fn room_before_long_header(job: &Job, src1: &[u8]) -> Option<usize> {
    let (runs, _) = parquet_runs(job, src1);
    let values = runs.iter().find(|r| r.header_len >= 5)?.start;
    let room = values.checked_mul(4)?.checked_add(4096)?;
    usize::try_from(room).ok().filter(|&room| room <= 64 << 20)
}

/// D8 (§4.3.2): a bit-packed run header decoded at the start of a QPL step with fewer than
/// 8 values still wanted: QPL 225. Step starts are 0 and, in jobs of more than one step,
/// positions QPL's variable Parquet steps may reach.
fn bit_packed_at_step_start(job: &Job, src1: &[u8]) -> bool {
    let n = u64::from(job.num_input_elements);
    let c = step_elements(width_of(job, src1));
    let (runs, _) = parquet_runs(job, src1);
    runs.iter()
        .any(|r| !r.rle && r.start < n && n - r.start < 8 && (r.start == 0 || n > c))
}

/// D7 (§4.3.2): more than one step, and the stream's last run is an RLE run reaching past
/// n (QPL's pending count ≠ values still needed → false 232).
fn final_run_overlong(job: &Job, src1: &[u8]) -> bool {
    let n = u64::from(job.num_input_elements);
    let c = step_elements(width_of(job, src1));
    let (runs, clean) = parquet_runs(job, src1);
    let Some(last) = runs.iter().rev().find(|r| r.count > 0) else {
        return false;
    };
    n > c && clean && last.rle && last.start < n && last.start + last.count > n
}

/// NEW-Q3 (not among the decisions D1–D21; found by the `differential` fuzz target): QPL's software
/// path fails an extract, select or expand to an 8- or 16-bit index list with 221 when the
/// indices its output elements would take (`initial_output_index` + output elements − 1) pass
/// the width's max, even when no 1-bit sits past it and the fallback (which fails only on an
/// index it would write) succeeds. None of the §3 pre-checks covers these jobs: a Parquet
/// stream of width 1 whose ignored `src1_bit_width` field is not 1 (extract, select), or
/// expand (no pre-check at all).
///
/// Measured (QPL 1.6.0, AVX-512 host, all-zero 1-bit values so no index is written, u8):
/// extract or select of 257..=300 elements in one step from bit-packed runs → 221, from one
/// RLE run → OK, of 1000 or 16448 → OK; any job of more than one step (n ≥ 16449) → 221;
/// u16: expand of 65537 and more → 221, select of 70000 → 221, extract with
/// `initial_output_index` 49089 and 16448 elements → OK, with 20000 → 221. Never 221 while
/// the index range fits (256 elements at u8, 65536 at u16). QPL's source suggests why: its
/// AVX-512 index-packing kernel fails at once for a step that starts past the max, and checks
/// the rest of a step that crosses it whole vectors at a time, reading bytes past the step's
/// elements (stale buffer contents decide). NEW-Q2 is probably the expand case of the same
/// kernel, measured earlier and kept under its own name.
fn index_range_past_max(job: &Job, src1: &[u8], src2: Option<&[u8]>) -> bool {
    let max = match job.out_bit_width {
        OutBitWidth::W8 => u64::from(u8::MAX),
        OutBitWidth::W16 => u64::from(u16::MAX),
        _ => return false,
    };
    let elements = match job.operation {
        Operation::Extract | Operation::Select => qpl_fallback::nominal_output_elements(job, src2),
        // Expand writes n elements, or up to available_src2·8 when it overshoots (D11).
        Operation::Expand => {
            u64::from(job.num_input_elements).max(src2.map_or(0, |mask| mask.len() as u64 * 8))
        }
        _ => return false,
    };
    is_index_list(job, width_of(job, src1))
        && elements > 0
        && u64::from(job.initial_output_index) + elements - 1 > max
}

/// Names the known divergence that explains why QPL's software path (`software`) and the
/// fallback (`fallback`) disagree on this job, or `None` when nothing known does (a bug).
///
/// The decisions D1–D21 (`docs/semantics.md`), each checked as narrowly as it was measured:
/// - `D4` (§4.3.1): the fallback stops with 220 at a run header of 5+ bytes (four
///   continuation bits) met before it has its values; QPL reads 5 bytes and goes on.
/// - `D5` (§6.6): over-wide RLE values in a nominal packed (or wrapper-widened
///   force-array, bw 1) output of extract/select/expand: only the bytes differ.
/// - `D7` (§4.3.2): QPL 232 on a multi-step job (n > C) whose stream parses cleanly to
///   its end with a last RLE run reaching past n.
/// - `D8` (§4.3.2): QPL 225 with a bit-packed run starting fewer than 8 values before n, at
///   a step start (value 0, or anywhere in a multi-step job).
/// - `D10` (§5.3): select output equal to the fallback's with the mask cleared from the
///   first element the step model drops (packed); Parquet: a strict prefix, n > 16384.
/// - `D11` (§5.4): expand output equal to the fallback's for n = W, n < W ≤
///   available_src2·8 (W from the step model, or read from QPL's output); or 225 with a
///   destination too small for available_src2·8 elements; or (force-array, bw 1) only
///   last/sum moved into [n, available_src2·8).
/// - `D16` (§7.3): select/expand aggregates with bw > 1 (value vs byte-based); select
///   with bw 1 over more than one mask step; the 64-multiple step bug (only
///   last_index_max_value moves up, to a step start; packed scan/extract: a multiple of C
///   with a step length that is a multiple of 64, for extract counted in the elements of
///   param_low..=param_high).
/// - `D18` (§7.2): last_bit_offset of a nominal 1-bit extract (from the parameters),
///   select (0) or expand (0 or n mod 8; Parquet: anything).
/// - `S5.4 expand parquet wants n values` (§5.4): QPL 232, stream with fewer than n values.
/// - `ORDER 225/232`, `ORDER 221/232`: both errors pending (a genuinely short stream:
///   the fallback finds 232 with a destination 8 times larger, or the stream's complete
///   runs hold fewer values than the job needs).
/// - `S3 raw src1_bit_width index pre-check` (§3): QPL 221 from the raw field == 1 on a
///   Parquet stream of another width (arrays, not index lists), n + iidx − 1 > max.
///
/// Wrapper-level (qpl/src/gaps.rs):
/// - `W0 width-0 stream`: the wrapper runs width-0 Parquet streams (the bare fallback says
///   231); QPL's result must equal the wrapper's fallback path, or the stand-in job's
///   result up to the divergences above.
///
/// The wrapper bugs this suite found (force-array reaching QPL on wide elements, expand
/// padding before the popcount check, D19's ignored drop, a short width-0 expand stand-in;
/// and, by the fuzz target, force-array widening past the bits QPL wrote) are fixed in
/// gaps.rs and no longer excused.
///
/// New QPL behaviour found by this suite (not among the decisions D1–D21): `NEW-Q1` (select window
/// bug), `NEW-Q2` (expand 8-bit index list past 16384 → 221), `NEW-Q3` (221 for an 8/16-bit
/// index list whose index range passes the max, with no such index written), `NEW-Q4`
/// (a cut-short last bit-packed group accepted after a step boundary, where the fallback
/// says 232).
///
/// QPL's kernel families: the decisions were measured on the AVX-512 kernels. On a CPU without
/// AVX-512 QPL's software path runs its generic ("px") kernels, which lack D16's
/// 64-multiple step bug, NEW-Q2, NEW-Q3 and D5's spill at width 1 (the regression tests
/// pinning those accept either the bug or agreement), and have a divergence of their own:
/// - `PX-1`: the bit-vector `sum_value` of extract/select/expand over a width-1 Parquet
///   stream with over-wide RLE values is the sum of the output elements' unmasked values,
///   not the number of set bits; every other field agrees.
pub fn known_divergence(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    software: &Software,
    fallback: &Fallback,
) -> Option<&'static str> {
    if job.flags.contains(Flags::DECOMPRESS_ENABLE) {
        return decompress_divergence(job, src1, src2, dst_len, software, fallback);
    }
    let op = job.operation;
    let parquet = is_parquet(job);
    let sw = sw_status(software);
    let fb = status_of(&fallback.result);
    // Wrapper feature (gaps.rs): a Parquet stream of bit width 0 runs on every path as a
    // stream of zeros, where the bare fallback rejects it (231, D3). The wrapper's own
    // fallback path must give exactly QPL's answer.
    if parquet && src1.first() == Some(&0) {
        let mut dst = vec![0x5Au8; dst_len];
        let wrapped = Executor::new(Path::Fallback).run(job, src1, src2, &mut dst);
        let same = match (&software.result, &wrapped) {
            (Ok(a), Ok(b)) => {
                a.completion == b.completion
                    && dst.get(..b.completion.total_out as usize) == Some(&software.bytes[..])
            }
            (Err(a), Err(b)) => a.status == b.status,
            _ => false,
        };
        if fb != Some(Status::BIT_WIDTH_ERR) {
            return None;
        }
        if same {
            return Some("W0 width-0 stream");
        }
        // Otherwise QPL ran the wrapper's stand-in stream: the other divergences apply
        // to that job (a wrapper bug keeps its own name).
        if src1.len() > job.drop_initial_bytes as usize {
            let zeros = qpl_rs::width_zero_stand_in(job, src2);
            return explained_on_stand_in(job, &zeros, src2, dst_len, software)
                .map(|_| "W0 width-0 stream");
        }
        return None;
    }
    // D4: 5-byte varints.
    if parquet
        && fb == Some(Status::PRLE_FORMAT_ERR)
        && sw != Some(Status::PRLE_FORMAT_ERR)
        && five_byte_header(job, src1, src2)
    {
        return Some("D4");
    }
    let mask = src2.unwrap_or(&[]);
    // QPL's false decoder errors (D7, D8) come from decoding a step, before its output is
    // packed; the fallback may instead succeed, or fail later, as it writes an index past
    // the output width's max (221). Measured: D8 on a 3-element extract to u16 with
    // initial_output_index 65536 (225 / 221), D7 on an RLE run of 20001 ones with n = 20000
    // extracted to u8 (232 / 221).
    match (&software.result, &fallback.result) {
        (Err(e), Ok(_) | Err(Status::OUTPUT_OVERFLOW_ERR))
            if parquet
                && e.status == Status::DST_IS_SHORT_ERR
                && bit_packed_at_step_start(job, src1) =>
        {
            return Some("D8");
        }
        // §5.4: expand on Parquet asks for min(C, n) values per step, not popcount(mask)
        // (the fallback may then also find the destination full: 225).
        (Err(e), Ok(_) | Err(Status::DST_IS_SHORT_ERR | Status::OUTPUT_OVERFLOW_ERR))
            if parquet
                && e.status == Status::SRC_IS_SHORT_ERR
                && op == Operation::Expand
                && parquet_values(job, src1) < u64::from(job.num_input_elements) =>
        {
            return Some("S5.4 expand parquet wants n values");
        }
        (Err(e), Ok(_) | Err(Status::OUTPUT_OVERFLOW_ERR))
            if parquet && e.status == Status::SRC_IS_SHORT_ERR && final_run_overlong(job, src1) =>
        {
            return Some("D7");
        }
        _ => {}
    }
    // An index past the 8/16-bit limit (221, found by the fallback as it writes) and a
    // short stream (232, found by QPL when it decodes the step first).
    if sw == Some(Status::SRC_IS_SHORT_ERR)
        && fb == Some(Status::OUTPUT_OVERFLOW_ERR)
        && parquet
        && !stream_holds_needed(job, src1, src2)
    {
        return Some("ORDER 221/232");
    }
    // Two run-time errors pending (a short stream and a full destination): QPL checks the
    // destination per step after decoding it, the fallback as it writes.
    if let (Some(a), Some(b)) = (sw, fb) {
        let pair = [a, b];
        if pair.contains(&Status::SRC_IS_SHORT_ERR) && pair.contains(&Status::DST_IS_SHORT_ERR) {
            let big = run_fallback(job, src1, src2, dst_len * 8 + 4096);
            if big.result == Err(Status::SRC_IS_SHORT_ERR) {
                return Some("ORDER 225/232");
            }
            // Still too small (e.g. a long RLE run, written before the stream runs out):
            // the stream's complete runs hold fewer values than the job needs, with no
            // 5-byte header (D4, 220 for the fallback) among them.
            if parquet
                && b == Status::DST_IS_SHORT_ERR
                && a == Status::SRC_IS_SHORT_ERR
                && big.result == Err(Status::DST_IS_SHORT_ERR)
                && !stream_holds_needed(job, src1, src2)
                && !five_byte_header(job, src1, src2)
            {
                return Some("ORDER 225/232");
            }
            // A 5-byte header further on (D4), behind the full destination.
            if big.result == Err(Status::PRLE_FORMAT_ERR) && five_byte_header(job, src1, src2) {
                return Some("D4");
            }
            // The same, behind more output than the larger destination holds: QPL reads the
            // long header as 5 bytes (D4) and runs out of stream (232); the fallback, given
            // room for every value before that header, stops at it (220).
            if big.result == Err(Status::DST_IS_SHORT_ERR) && five_byte_header(job, src1, src2) {
                if let Some(room) = room_before_long_header(job, src1) {
                    let up_to_header = run_fallback(job, src1, src2, room);
                    if up_to_header.result == Err(Status::PRLE_FORMAT_ERR) {
                        return Some("D4");
                    }
                }
            }
            // A false Parquet decoder error of QPL (D7/D8) on a job whose destination is
            // also too small for the fallback, and whose stream holds the values the job
            // needs: the fallback succeeds with the larger destination, or (an output too
            // large to try, e.g. the index list of millions of RLE values) the stream's
            // complete runs hold them, with no 5-byte header (D4) on the way.
            let stream_suffices = big.result.is_ok()
                || (big.result == Err(Status::DST_IS_SHORT_ERR)
                    && stream_holds_needed(job, src1, src2)
                    && !five_byte_header(job, src1, src2));
            if parquet && b == Status::DST_IS_SHORT_ERR && stream_suffices {
                if a == Status::SRC_IS_SHORT_ERR && final_run_overlong(job, src1) {
                    return Some("D7");
                }
                if a == Status::DST_IS_SHORT_ERR && bit_packed_at_step_start(job, src1) {
                    return Some("D8");
                }
            }
        }
    }
    // NEW-Q4: QPL takes the wanted values of a cut-short last group of a bit-packed run
    // that a step boundary split; the fallback reports the short stream (232, D6).
    if sw.is_none() && fb == Some(Status::SRC_IS_SHORT_ERR) {
        if let Some(padded) = completed_last_group(job, src1, src2) {
            if explained_on_stand_in(job, &padded, src2, dst_len, software)
                .is_some_and(|completed| completed.result.is_ok())
            {
                return Some("NEW-Q4 cut-short group after a step boundary");
            }
        }
    }
    // NEW-Q1 in an index list: the window's wrong 1-bits add indices, which may overflow
    // a destination the fallback's output fits (the window is at most 128 elements).
    if sw == Some(Status::DST_IS_SHORT_ERR)
        && op == Operation::Select
        && is_index_list(job, width_of(job, src1))
        && u64::from(job.num_input_elements) > MASK_STEP
    {
        if let Ok(c) = &fallback.result {
            let index_bytes = job.out_bit_width.bits().unwrap_or(8) as usize / 8;
            if dst_len < c.total_out as usize + 128 * index_bytes {
                return Some("NEW-Q1 select window");
            }
        }
    }
    // §3: QPL's index-overflow pre-check of extract/select tests the raw src1_bit_width
    // field even for Parquet, whose stream may declare another width (then the output is
    // an array, not an index list): QPL 221 where the fallback checks the stream's width.
    if sw == Some(Status::OUTPUT_OVERFLOW_ERR)
        && fb != Some(Status::OUTPUT_OVERFLOW_ERR)
        && parquet
        && job.src1_bit_width == 1
        && src1.first() != Some(&1)
        && matches!(op, Operation::Extract | Operation::Select)
    {
        let max = u64::from(u32::MAX >> (32 - job.out_bit_width.bits().unwrap_or(32).max(8)));
        let n = u64::from(job.num_input_elements);
        let iidx = if op == Operation::Extract {
            u64::from(job.initial_output_index)
        } else {
            0
        };
        if job.out_bit_width != OutBitWidth::NOMINAL && iidx + n - 1 > max {
            return Some("S3 raw src1_bit_width index pre-check");
        }
    }
    // New QPL behaviour (not among the decisions D1–D21; found by this suite): expand to an 8-bit
    // index list fails with 221 once n passes the first mask step (16384), even when no
    // index above 255 would be written.
    if sw == Some(Status::OUTPUT_OVERFLOW_ERR)
        && op == Operation::Expand
        && nominal_width(job, src1) == 1
        && job.out_bit_width == OutBitWidth::W8
        && !job.flags.contains(Flags::FORCE_ARRAY_OUTPUT)
        && u64::from(job.num_input_elements) > MASK_STEP
        && fb != Some(Status::OUTPUT_OVERFLOW_ERR)
    {
        return Some("NEW-Q2 expand u8 index list past 16384");
    }
    // The same behind a short Parquet stream: QPL's check fails at the start of a step,
    // before it decodes the step the stream runs out in; the fallback (which has written no
    // index past the max) reports the short stream (232).
    let short_stream =
        || fb == Some(Status::SRC_IS_SHORT_ERR) && parquet && !stream_holds_needed(job, src1, src2);
    if sw == Some(Status::OUTPUT_OVERFLOW_ERR)
        && (fallback.result.is_ok() || short_stream())
        && index_range_past_max(job, src1, src2)
    {
        return Some("NEW-Q3 index list range past the width's max");
    }
    // The reference QPL's result is compared with: the fallback's, adjusted by the
    // divergences that change the output.
    let mut id: Option<&'static str> = None;
    let mut reference = fallback.clone();
    let bw = width_of(job, src1);
    // D11 (§5.4): expand overshoots n when source-2 has spare bytes. The wrapper passes
    // source-2 as is, so QPL writes W > n elements: the fallback's result for n = W.
    if op == Operation::Expand
        && !parquet
        && mask.len() as u64 * 8 > u64::from(job.num_input_elements)
    {
        let w = expand_written(job, mask, bw);
        if w > u64::from(job.num_input_elements) {
            let longer = Job {
                num_input_elements: w as u32,
                ..*job
            };
            reference = run_fallback(&longer, src1, src2, dst_len);
            id = Some("D11");
        }
    }
    // D10 (§5.3): select drops the elements after the last fully processed step.
    if op == Operation::Select && !parquet {
        let processed = select_processed(u64::from(job.num_input_elements), bw);
        if processed < u64::from(job.num_input_elements) {
            let cleared = mask_cleared_from(job, mask, processed);
            let mut candidate = run_fallback(job, src1, Some(&cleared), dst_len);
            if candidate.result.is_ok() && candidate.bytes != fallback.bytes {
                if job.flags.contains(Flags::FORCE_ARRAY_OUTPUT) && bw == 1 {
                    pad_to_whole_bytes_of_bits(job, src2, &mut candidate);
                }
                reference = candidate;
                id = Some("D10");
            }
        }
    }
    // NEW-Q1 with a destination the fallback's output does not fit but QPL's (with fewer
    // indices from the window) does: compare with the fallback's full output.
    if op == Operation::Select
        && id.is_none()
        && u64::from(job.num_input_elements) > MASK_STEP
        && software.result.is_ok()
        && reference.result == Err(Status::DST_IS_SHORT_ERR)
    {
        let big = run_fallback(job, src1, src2, dst_len * 2 + 4096);
        if big.result.is_ok() {
            reference = big;
        }
    }
    // D10 on Parquet sources, whose steps end early at bit-packed runs and are not
    // modelled: QPL's output must be a strict prefix of the fallback's (up to the last,
    // partial byte of a packed output), on a job of more than one mask step. (With the
    // select window bug, NEW-Q1, only the output up to the first window is checked.)
    if op == Operation::Select && parquet && u64::from(job.num_input_elements) > MASK_STEP {
        // The fallback's whole output, also when it does not fit the destination.
        let full = if fallback.result == Err(Status::DST_IS_SHORT_ERR) {
            run_fallback(job, src1, src2, dst_len * 2 + 4096)
        } else {
            fallback.clone()
        };
        if let (Ok(out), Ok(c)) = (&software.result, &full.result) {
            let (a, b) = (out.completion.total_out as usize, c.total_out as usize);
            let whole = a.saturating_sub(1);
            // With D5 the bytes of over-wide values differ anywhere in the prefix.
            if a < b
                && (software.bytes[..whole] == full.bytes[..whole]
                    || select_window_bug(job, bw, mask, &software.bytes, &full.bytes[..a])
                    || over_wide_values_packed(job, src1))
            {
                return Some("D10");
            }
        }
    }
    // D11 where the step model above does not apply (Parquet steps end early at
    // bit-packed runs; the wrapper pads short packed sources): the count W is read from
    // QPL's output (a packed output may hide extra elements in the padding of its last
    // byte), and QPL's output must be exactly the fallback's for n = W, n < W ≤
    // available_src2·8 — or a full destination too small for available_src2·8 elements.
    let n = u64::from(job.num_input_elements);
    let mask_bits = mask.len() as u64 * 8;
    let elem_bits = u64::from(job.out_bit_width.bits().unwrap_or(0).max(bw).max(1));
    if op == Operation::Expand && mask_bits > n {
        match &software.result {
            Ok(out)
                if out.completion.total_out != reference.result.map_or(0, |c| c.total_out)
                    || software.bytes != reference.bytes =>
            {
                reference = fallback.clone();
                id = None;
                // The wrapper pads a short packed source to n elements' bytes for QPL.
                let needed = (n * u64::from(bw)).div_ceil(8) as usize;
                let mut padded = src1.to_vec();
                if !parquet && padded.len() < needed {
                    padded.resize(needed, 0);
                }
                let w_max = (u64::from(out.completion.total_out) * 8 / elem_bits).min(mask_bits);
                let mut candidates: Vec<u64> = ((n + 1).max(w_max.saturating_sub(8))..=w_max)
                    .rev()
                    .collect();
                if is_index_list(job, bw) {
                    // An index list shows only the 1-bits: W = the last index + 1 gives
                    // the same list as any longer count.
                    let list = output_elements(job, 1, &software.bytes, u64::MAX);
                    candidates = list
                        .last()
                        .map(|&last| u64::from(last) + 1)
                        .filter(|&w| w > n && w <= mask_bits)
                        .into_iter()
                        .collect();
                }
                for w in candidates {
                    let longer = Job {
                        num_input_elements: w as u32,
                        ..*job
                    };
                    let mut candidate = run_fallback(&longer, &padded, src2, dst_len);
                    if let (Ok(c), Ok(f)) = (&mut candidate.result, &fallback.result) {
                        (c.crc, c.xor_checksum) = (f.crc, f.xor_checksum);
                    }
                    // With D5 the bytes of over-wide values differ: then the length
                    // decides, when it shows the overshoot (else any W would pass).
                    let longer_than_n = fallback
                        .result
                        .is_ok_and(|f| f.total_out < out.completion.total_out);
                    if candidate
                        .result
                        .is_ok_and(|c| c.total_out == out.completion.total_out)
                        && (candidate.bytes == software.bytes
                            || (longer_than_n && over_wide_values_packed(job, src1)))
                    {
                        reference = candidate;
                        id = Some("D11");
                        break;
                    }
                }
            }
            Err(e)
                if e.status == Status::DST_IS_SHORT_ERR
                    && fallback.result.is_ok()
                    && (dst_len as u64) * 8 < mask_bits * elem_bits =>
            {
                return Some("D11");
            }
            _ => {}
        }
    }
    match (&software.result, &reference.result) {
        (Err(a), Err(b)) => (a.status == *b).then_some(id).flatten(),
        (Ok(out), Ok(r)) => {
            let c = &out.completion;
            let mut diff = Diff::of(c, &software.bytes, r, &reference.bytes);
            let mut bytes_ok = !diff.bytes;
            // D5 (§6.6).
            if !bytes_ok && !diff.total_out && over_wide_values_packed(job, src1) {
                bytes_ok = true;
                id = id.or(Some("D5"));
            }
            // An index list's length changes with the wrong elements of NEW-Q1.
            if !bytes_ok
                && (!diff.total_out || is_index_list(job, bw))
                && select_window_bug(job, bw, mask, &software.bytes, &reference.bytes)
            {
                bytes_ok = true;
                diff.total_out = false;
                id = id.or(Some("NEW-Q1 select window"));
            }
            if diff.total_out || !bytes_ok || diff.checksums {
                return None;
            }
            if diff.last_bit_offset {
                if !last_bit_offset_excused(job, src1, c) {
                    return None;
                }
                id = id.or(Some("D18"));
            }
            if diff.aggregates() {
                // D11 seen in the aggregates only: the overshoot elements were counted
                // but not output (the wrapper widens n elements for FORCE_ARRAY_OUTPUT).
                let last = u64::from(c.last_index_max_value);
                let overshoot = op == Operation::Expand
                    && mask_bits > n
                    && c.first_index_min_value == r.first_index_min_value
                    && last >= n
                    && last < mask_bits;
                if px_unmasked_bit_sum(job, src1, src2, c, r) {
                    // The sum is what differs; D18 may also have moved last_bit_offset.
                    id = match id {
                        None | Some("D18") => Some("PX-1"),
                        other => other,
                    };
                } else if overshoot {
                    id = id.or(Some("D11"));
                } else if !aggregates_excused(job, src1, c, r) {
                    return None;
                }
                id = id.or(Some("D16"));
            }
            id
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Decompress-enabled jobs (docs/decompress.md).

/// The whole page a decompress-enabled source-1 inflates to, by an inflater independent of
/// both paths (flate2's miniz_oxide), after the header its flags announce; `None` when the
/// header or the stream is bad or cut short. Bounded by deflate's ratio over `src1`.
fn inflate_page(job: &Job, src1: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let start = qpl_fallback::deflate_header_len(job.flags, src1).ok()?;
    let mut page = Vec::new();
    flate2::read::DeflateDecoder::new(&src1[start..])
        .take(src1.len() as u64 * 1032 + 64)
        .read_to_end(&mut page)
        .ok()?;
    Some(page)
}

/// Known divergences of a decompress-enabled job: those of the same job on the inflated page
/// (QPL's analytics have the same bugs behind its inflate), and DZ13 (QPL's software inflate
/// fails on a stream an independent inflater reads whole, where the fallback completes: QPL's
/// documented 4 KB history limit, met by streams written with a larger window).
fn decompress_divergence(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    software: &Software,
    fallback: &Fallback,
) -> Option<&'static str> {
    let Some(page) = inflate_page(job, src1) else {
        // DZ9: without checksums the fallback inflates only what the job reads; QPL inflates
        // a whole step and meets a fault further on, in a stream an independent inflater
        // rejects too.
        let lazy = job.flags.contains(Flags::OMIT_CHECKSUMS)
            && fallback.result.is_ok()
            && sw_status(software).is_some_and(|s| (201..=219).contains(&s.0));
        return lazy.then_some("DZ9 fault past what the job reads");
    };
    let plain = Job {
        flags: Flags(
            job.flags.0 & !(Flags::DECOMPRESS_ENABLE.0 | Flags::GZIP_MODE.0 | Flags::ZLIB_MODE.0),
        ),
        ..*job
    };
    if let Some(status) = sw_status(software) {
        // The stream is whole and valid (an independent inflater read it to its end): an
        // inflate error is QPL's, whatever the job then does with the page.
        if (201..=219).contains(&status.0) && fallback.result.is_ok() {
            return Some("DZ13 QPL software inflate error on a valid stream");
        }
        // DZ14: QPL's software Parquet inflate returns -1 (no status of its table) on a
        // valid page (fuzzer finding: parquet_rle, width 13, n 59, raw deflate).
        if status.0 == u32::MAX && is_parquet(job) && fallback.result.is_ok() {
            return Some("DZ14 QPL software status -1 on a valid Parquet page");
        }
    }
    known_divergence(&plain, &page, src2, dst_len, software, fallback)
}
