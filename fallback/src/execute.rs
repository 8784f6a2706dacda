//! `execute`: validation in QPL's order (`docs/semantics.md`, D1, with the other decisions),
//! then one pass of source decoder → operation → writer.

use crate::checksum::checksums;
use crate::job::{Completion, Flags, Job, Operation, OutBitWidth, Parser};
use crate::kernels::{self, BitWidth, Compare, LazyBlock, BLOCK};
use crate::lane::{lane_bits, Lane};
use crate::output::{AggregateKind, Format, Writer};
use crate::source::{decode_hybrid, decode_packed, Consumer};
use crate::status::Status;

/// The largest `drop_initial_bytes` QPL accepts.
const MAX_DROP_BYTES: u32 = 65535;

/// Runs `job` over caller-owned buffers with the accelerator's semantics.
///
/// `src1` is source-1 (`next_in_ptr`/`available_in`), `src2` the select/expand mask, `dst` the
/// destination (`available_out` = its length). Returns the result fields, or the status QPL's
/// accelerator would report. Never panics, never reads or writes outside the three slices, never
/// allocates; its time is linear in the bytes of the three buffers. On an error, `dst` bytes may
/// have been modified (as with QPL), and nothing else is.
///
/// With [`Flags::DECOMPRESS_ENABLE`] source-1 is a deflate stream (behind a gzip header with
/// `QPL_FLAG_GZIP_MODE`, a zlib one with `QPL_FLAG_ZLIB_MODE`), inflated and then run as the
/// same job on the inflated bytes (`docs/decompress.md`). That job allocates: the inflated
/// bytes the operation consumes (never more than the operation can read, and never more than
/// the stream really inflates to) and a 32 KiB scratch buffer for the checksums. Each thread
/// keeps its inflater and (up to 4 MiB of) its inflate buffer for its next such job.
pub fn execute(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<Completion, Status> {
    if job.flags.contains(Flags::DECOMPRESS_ENABLE) {
        return execute_inflated(job, src1, src2, dst);
    }
    let plan = plan(job, src1, src2, dst.len(), false)?;
    let Some(plan) = plan else {
        // D2: extract with param_low > param_high returns at once.
        return Ok(Completion {
            first_index_min_value: 0,
            ..Completion::default()
        });
    };
    let (total_out, aggregates, last_bit_offset) = run(job, &plan, src1, src2, dst)?;
    let (crc, xor_checksum) = if job.flags.contains(Flags::OMIT_CHECKSUMS) {
        (0, 0)
    } else {
        checksums(src1, job.flags.contains(Flags::CRC32C))
    };
    Ok(Completion {
        total_out,
        last_bit_offset,
        first_index_min_value: aggregates.first_or_min,
        last_index_max_value: aggregates.last_or_max,
        sum_value: aggregates.sum,
        crc,
        xor_checksum,
    })
}

/// Deflate's largest expansion (a 258-byte match in under two bits): no stream inflates to
/// more than this many bytes per compressed byte, so the caller's source-1 bounds what any
/// inflated page can hold.
const MAX_INFLATE_RATIO: u64 = 1032;

/// Inflated bytes a Parquet stream may take per value before its n-th value (DZ9): a 1-byte
/// run header and a 4-byte value for every value, plus a zero-length run before each.
const PARQUET_BYTES_PER_VALUE: u64 = 12;

/// [`execute`] with `DECOMPRESS_ENABLE`: checks, inflates what the operation consumes (and
/// checksums the rest of the page), then runs the job on the inflated bytes.
fn execute_inflated(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<Completion, Status> {
    if plan(job, src1, src2, dst.len(), true)?.is_none() {
        // D2 holds for compressed sources too: nothing is read.
        return Ok(Completion::default());
    }
    let needed = source_values_needed(job, src2);
    let drop = u64::from(job.drop_initial_bytes);
    let parquet = job.parser == Parser::PARQUET_RLE;
    let ratio_bound = (src1.len() as u64).saturating_mul(MAX_INFLATE_RATIO);
    let consumed = if parquet {
        (1 + drop).saturating_add(needed.saturating_mul(PARQUET_BYTES_PER_VALUE))
    } else {
        // `plan` checked the width of a packed job.
        drop + (needed * u64::from(job.src1_bit_width)).div_ceil(8)
    };
    let limit = usize::try_from(consumed.min(ratio_bound)).unwrap_or(usize::MAX);
    let plain = Job {
        flags: Flags(
            (job.flags.0
                & !(Flags::DECOMPRESS_ENABLE.0
                    | crate::inflate::GZIP_MODE
                    | crate::inflate::ZLIB_MODE))
                | Flags::OMIT_CHECKSUMS.0,
        ),
        ..*job
    };
    crate::inflate::with_inflated_source(
        job,
        src1,
        limit,
        |data| parquet && parquet_prefix_holds(data, drop, needed),
        |inflated| {
            let mut completion = execute(&plain, inflated.data, src2, dst)?;
            (completion.crc, completion.xor_checksum) = inflated.checksums.unwrap_or((0, 0));
            Ok(completion)
        },
    )
}

/// Whether inflated Parquet bytes `data` (bit-width byte, dropped bytes, runs) already hold
/// the `needed` values the operation reads.
fn parquet_prefix_holds(data: &[u8], drop: u64, needed: u64) -> bool {
    let Some((&width, rest)) = data.split_first() else {
        return false;
    };
    if width == 0 || width > 32 {
        // The job fails on the width byte alone.
        return true;
    }
    let Some(runs) = usize::try_from(drop).ok().and_then(|d| rest.get(d..)) else {
        return false;
    };
    crate::check_hybrid(runs, u32::from(width), needed).is_ok()
}

/// The facts about a valid job that a caller routing it elsewhere needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Source-1 element width (for Parquet RLE, the stream's first byte).
    pub bit_width: u32,
    /// Width of one nominal output element: 1 for scans, `bit_width` otherwise.
    pub nominal_width: u32,
}

/// Checks `job` and its buffer lengths exactly as [`execute`] does, without decoding anything.
/// `Ok(None)` for an extract with `param_low > param_high` (it completes at once with nothing
/// written); run-time errors (malformed streams, a full destination) are not found here.
///
/// A decompress-enabled job is checked as far as it can be without inflating (DZ3): its
/// source-dependent checks (lengths, the Parquet bit-width byte) happen when it runs, and the
/// [`Shape`] of a Parquet one says `src1_bit_width`, not the stream's width.
pub fn validate(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
) -> Result<Option<Shape>, Status> {
    let compressed = job.flags.contains(Flags::DECOMPRESS_ENABLE);
    Ok(plan(job, src1, src2, dst_len, compressed)?.map(|p| Shape {
        bit_width: p.width.get(),
        nominal_width: p.nominal_width,
    }))
}

/// Source-1 values `job` consumes: popcount of the first n mask bits for expand, n otherwise.
pub fn source_values_needed(job: &Job, src2: Option<&[u8]>) -> u64 {
    let n = u64::from(job.num_input_elements);
    match (job.operation, src2) {
        (Operation::Expand, Some(bytes)) => mask_ones(job, bytes, 0, n),
        _ => n,
    }
}

/// Elements of `job`'s nominal output (bits of a scan's bit vector, extracted or selected
/// elements, expand's n), for a job that passed validation.
pub fn nominal_output_elements(job: &Job, src2: Option<&[u8]>) -> u64 {
    let n = u64::from(job.num_input_elements);
    match (job.operation, src2) {
        (Operation::Extract, _) => {
            let high = u64::from(job.param_high).min(n.saturating_sub(1));
            (high + 1).saturating_sub(u64::from(job.param_low))
        }
        (Operation::Select, Some(bytes)) => mask_ones(job, bytes, 0, n),
        _ => n,
    }
}

/// Set bits `start..end` of a select/expand mask in `job`'s bit order.
pub fn mask_ones(job: &Job, mask: &[u8], start: u64, end: u64) -> u64 {
    let end = end.min(mask.len() as u64 * 8);
    Mask {
        bytes: mask,
        big_endian: job.flags.contains(Flags::SRC2_BE),
    }
    .count_ones(start.min(end), end)
}

/// What validation established about a job.
#[derive(Debug)]
struct Plan {
    width: BitWidth,
    /// Source-1 bytes after the dropped prologue (Parquet: after the bit-width byte too).
    data_start: usize,
    n: u64,
    format: Format,
    /// Bit width of the nominal output element (1 for scans).
    nominal_width: u32,
}

fn too_large(len: usize) -> bool {
    u32::try_from(len).is_err()
}

/// Checks `job` in QPL's order. `Ok(None)` is D2's early return.
fn plan(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
    compressed: bool,
) -> Result<Option<Plan>, Status> {
    // A kernel tier forced by QPL_FALLBACK_KERNELS that cannot run fails every job, so that
    // a run meant for that tier never passes on another one.
    kernels::kernel_tier().map_err(|why| why.status())?;
    let op = job.operation;
    // §1.3: checks before the operation. A buffer a job cannot describe (over 4 GiB) is ours.
    if job.flags.contains(Flags::CANNED_MODE) {
        return Err(Status::NULL_PTR_ERR);
    }
    // A decompress-enabled job reaches `plan` twice: before inflating (`compressed`), where
    // only what does not depend on the inflated bytes is checked (DZ3), and after, on them.
    if too_large(src1.len()) || too_large(dst_len) || src2.is_some_and(|m| too_large(m.len())) {
        return Err(Status::BUFFER_TOO_LARGE_ERR);
    }
    // D2.
    if op == Operation::Extract && job.param_low > job.param_high {
        return Ok(None);
    }
    let n = u64::from(job.num_input_elements);
    // §3 steps 2-4 (step 1, NULL pointers, and 3, overlap, cannot happen with slices).
    if src1.is_empty() || dst_len == 0 || n == 0 {
        return Err(Status::SIZE_ERR);
    }
    let drop = job.drop_initial_bytes;
    if op.uses_mask() {
        let mask = src2.ok_or(Status::NULL_PTR_ERR)?;
        if mask.is_empty() {
            return Err(Status::SIZE_ERR);
        }
        if drop != 0 {
            return Err(Status::DROP_BYTES_ERR);
        }
    } else if (!compressed && drop as usize > src1.len()) || drop > MAX_DROP_BYTES {
        return Err(Status::DROP_BYTES_ERR);
    }
    // Steps 5-6. Step 7 (52 for force-array) is QPL software's; the fallback implements it (D15).
    let out_bits = job.out_bit_width.bits().ok_or(Status::OUT_FORMAT_ERR)?;
    let force_array = job.flags.contains(Flags::FORCE_ARRAY_OUTPUT);
    if force_array && job.out_bit_width == OutBitWidth::NOMINAL {
        return Err(Status::OUT_FORMAT_ERR);
    }
    // Step 8: the bit width (Parquet: the stream's first byte), then step 9: the parser.
    let parquet = job.parser == Parser::PARQUET_RLE;
    // The width byte of a compressed Parquet stream is not known yet.
    let width_unknown = parquet && compressed;
    let raw_width = if width_unknown {
        1
    } else if parquet {
        u32::from(src1[0])
    } else {
        job.src1_bit_width
    };
    let width = BitWidth::new(raw_width).ok_or(Status::BIT_WIDTH_ERR)?;
    if job.parser.0 > 2 {
        return Err(Status::PARSER_ERR);
    }
    let nominal_width = if op.is_scan() { 1 } else { width.get() };
    // D13: an array narrower than the element would lose bits.
    if !width_unknown && out_bits != 0 && nominal_width > 1 && out_bits < nominal_width {
        return Err(Status::OUT_FORMAT_ERR);
    }
    // Step 10, per operation. Lengths include the dropped bytes (D12).
    let data_start = if parquet {
        1 + drop as usize
    } else {
        drop as usize
    };
    let available = (src1.len() as u64).saturating_sub(u64::from(drop));
    let short_packed =
        |count: u64| !parquet && !compressed && width.packed_bytes(count) > available;
    let index_list = out_bits != 0 && nominal_width == 1 && !force_array;
    let index_max = if out_bits == 0 {
        0
    } else {
        u64::from(u32::MAX >> (32 - out_bits))
    };
    let iidx = u64::from(job.initial_output_index);
    match op {
        Operation::Extract => {
            if short_packed(n) {
                return Err(Status::SRC_IS_SHORT_ERR);
            }
            if index_list && job.src1_bit_width == 1 && iidx + n - 1 > index_max {
                return Err(Status::OUTPUT_OVERFLOW_ERR);
            }
        }
        Operation::Select | Operation::Expand => {
            if job.src2_bit_width != 1 {
                return Err(Status::BIT_WIDTH_ERR);
            }
            if iidx != 0 {
                return Err(Status::INVALID_PARAM_ERR);
            }
            let mask_len = src2.map_or(0, <[u8]>::len) as u64;
            if op == Operation::Select {
                if short_packed(n) || n.div_ceil(8) > mask_len {
                    return Err(Status::SRC_IS_SHORT_ERR);
                }
                if index_list && job.src1_bit_width == 1 && n - 1 > index_max {
                    return Err(Status::OUTPUT_OVERFLOW_ERR);
                }
            } else if n.div_ceil(8) > mask_len {
                return Err(Status::SRC_IS_SHORT_ERR);
            }
        }
        _ => {
            if out_bits == 0 && n.div_ceil(8) > dst_len as u64 {
                return Err(Status::DST_IS_SHORT_ERR);
            }
            if short_packed(n) {
                return Err(Status::SRC_IS_SHORT_ERR);
            }
            if index_list && iidx + n - 1 > index_max {
                return Err(Status::OUTPUT_OVERFLOW_ERR);
            }
        }
    }
    let format = match (out_bits, nominal_width) {
        (0, 8 | 16 | 32) => Format::Array {
            bytes: nominal_width as usize / 8,
        },
        (0, w) => Format::Packed { width: w },
        (bits, 1) if !force_array => Format::Index {
            bytes: bits as usize / 8,
            base: iidx,
        },
        (bits, _) => Format::Array {
            bytes: bits as usize / 8,
        },
    };
    Ok(Some(Plan {
        width,
        data_start,
        n,
        format,
        nominal_width,
    }))
}

/// Decodes source-1 (`count` values from element `start`) into `consumer`.
fn decode<C: Consumer>(
    job: &Job,
    plan: &Plan,
    src1: &[u8],
    start: u64,
    count: u64,
    consumer: &mut C,
) -> Result<(), Status> {
    let data = src1.get(plan.data_start..).unwrap_or(&[]);
    if job.parser == Parser::PARQUET_RLE {
        decode_hybrid(data, plan.width.get(), count, consumer)
    } else {
        let big_endian = job.parser == Parser::BE_PACKED;
        decode_packed(data, plan.width, big_endian, start, start + count, consumer)
    }
}

/// Returns (bytes written, aggregates, last_bit_offset).
fn run(
    job: &Job,
    plan: &Plan,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<(u32, crate::output::Aggregates, u32), Status> {
    let aggregate = if job.flags.contains(Flags::OMIT_AGGREGATES) {
        AggregateKind::Omitted
    } else if plan.nominal_width == 1 {
        AggregateKind::Bits
    } else {
        AggregateKind::Values
    };
    // Nominal packing and forced 0/1 arrays keep only the element's nominal bits (D5, D15).
    let value_mask = match plan.format {
        Format::Packed { width } => u32::MAX >> (32 - width),
        Format::Array { .. } if plan.nominal_width == 1 => 1,
        _ => u32::MAX,
    };
    let big_endian = job.flags.contains(Flags::OUT_BE);
    let mut writer = Writer::new(dst, plan.format, big_endian, value_mask, aggregate);
    let n = plan.n;
    let mask = src2.map(|bytes| Mask {
        bytes,
        big_endian: job.flags.contains(Flags::SRC2_BE),
    });
    match (job.operation, mask) {
        (Operation::Extract, _) => {
            let low = u64::from(job.param_low);
            let high = u64::from(job.param_high).min(n - 1);
            let mut extract = Extract {
                index: 0,
                low,
                high,
                out: &mut writer,
            };
            let same_order = (job.parser == Parser::BE_PACKED) == big_endian;
            let width = plan.width.get();
            // Bits of an output element holding the value itself (not an index list).
            let element_bits = match plan.format {
                Format::Packed { width } => Some(width),
                Format::Array { bytes } => Some(8 * bytes as u32),
                Format::Index { .. } => None,
            };
            if job.parser == Parser::PARQUET_RLE {
                decode(job, plan, src1, 0, n, &mut extract)?;
            } else if low <= high
                && same_order
                && element_bits == Some(width)
                && aggregate == AggregateKind::Omitted
            {
                // The output is the input's bits from element `low` on: copy them.
                let data = src1.get(plan.data_start..).unwrap_or(&[]);
                writer.copy_bits(data, low * u64::from(width), high + 1 - low, width)?;
            } else if low <= high {
                // Packed arrays allow random access: decode only the wanted elements.
                extract.index = low / 8 * 8;
                decode(
                    job,
                    plan,
                    src1,
                    extract.index,
                    high + 1 - extract.index,
                    &mut extract,
                )?;
            }
        }
        (Operation::Select, Some(mask)) => match lane_bits(plan.width.get()) {
            8 => select::<u8>(job, plan, src1, mask, &mut writer)?,
            16 => select::<u16>(job, plan, src1, mask, &mut writer)?,
            _ => select::<u32>(job, plan, src1, mask, &mut writer)?,
        },
        (Operation::Expand, Some(mask)) => {
            let wanted = mask.count_ones(0, n);
            if job.parser != Parser::PARQUET_RLE
                && plan.width.packed_bytes(wanted) > (src1.len() - plan.data_start) as u64
            {
                return Err(Status::SRC_IS_SHORT_ERR);
            }
            let position = match lane_bits(plan.width.get()) {
                8 => expand::<u8>(job, plan, src1, mask, wanted, &mut writer)?,
                16 => expand::<u16>(job, plan, src1, mask, wanted, &mut writer)?,
                _ => expand::<u32>(job, plan, src1, mask, wanted, &mut writer)?,
            };
            writer.run(0, n - position)?;
        }
        (Operation::Select | Operation::Expand, None) => return Err(Status::NULL_PTR_ERR),
        (scan, _) => {
            let mut scan = Scan {
                predicate: Predicate::new(scan, job.param_low, job.param_high, plan.width),
                bits: [0; BLOCK / 8],
                out: &mut writer,
            };
            decode(job, plan, src1, 0, n, &mut scan)?;
        }
    }
    let elements = writer.position();
    let (total_out, aggregates) = writer.finish();
    // D18: only a nominal bit vector has a partial last byte worth reporting.
    let last_bit_offset = match plan.format {
        Format::Packed { width: 1 } => (elements % 8) as u32,
        _ => 0,
    };
    Ok((total_out, aggregates, last_bit_offset))
}

/// Runs select over the whole source in lanes of `T`.
fn select<T: Lane>(
    job: &Job,
    plan: &Plan,
    src1: &[u8],
    mask: Mask,
    writer: &mut Writer,
) -> Result<(), Status> {
    let mut select = Select {
        selector: Selector {
            index: 0,
            mask,
            selected: [T::default(); BLOCK],
            out: writer,
        },
        unpacked: T::new_unpacked(),
    };
    decode(job, plan, src1, 0, plan.n, &mut select)
}

/// Runs expand over the `wanted` source values in lanes of `T`; returns the output position
/// after the last of them (the zeros after it are the caller's).
fn expand<T: Lane>(
    job: &Job,
    plan: &Plan,
    src1: &[u8],
    mask: Mask,
    wanted: u64,
    writer: &mut Writer,
) -> Result<u64, Status> {
    let mut expand = Expand {
        spreader: Spreader {
            position: 0,
            end: plan.n,
            mask,
            expanded: LineAligned([T::default(); BLOCK]),
            filled: 0,
            out: writer,
        },
        unpacked: T::new_unpacked(),
    };
    decode(job, plan, src1, 0, wanted, &mut expand)?;
    expand.spreader.flush(true)?;
    Ok(expand.spreader.position)
}

/// The source-2 bit vector.
#[derive(Clone, Copy)]
struct Mask<'a> {
    bytes: &'a [u8],
    big_endian: bool,
}

impl Mask<'_> {
    /// Bit `i` (callers stay below the validated ⌈n/8⌉ bytes).
    fn bit(&self, i: u64) -> bool {
        let byte = self.bytes.get((i / 8) as usize).copied().unwrap_or(0);
        let shift = if self.big_endian { 7 - i % 8 } else { i % 8 };
        (byte >> shift) & 1 == 1
    }

    /// Mask bits `start..start + 64` as a word, bit j = mask bit `start + j` (0 past the end),
    /// from a zero-padded copy of its bytes: [`Mask::words`] near the mask's end.
    fn word(&self, start: u64) -> u64 {
        let first = (start / 8) as usize;
        let mut raw = [0u8; 9];
        let available = self.bytes.len().saturating_sub(first).min(9);
        raw[..available].copy_from_slice(&self.bytes[first..first + available]);
        let [b0, b1, b2, b3, b4, b5, b6, b7, b8] = raw;
        let low = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
        self.join(low, b8, (start % 8) as u32)
    }

    /// The word of mask bits from bit `shift` (0..8) of the first of the 9 bytes `low`
    /// (the first 8, little-endian) and `next`.
    #[inline]
    fn join(&self, low: u64, next: u8, shift: u32) -> u64 {
        // SRC2_BE numbers the bits of each byte from the top.
        let (low, next) = if self.big_endian {
            (low.swap_bytes().reverse_bits(), next.reverse_bits())
        } else {
            (low, next)
        };
        (low >> shift) | (u64::from(next) << (63 - shift) << 1)
    }

    /// Mask bits `start..start + len` as words in `out[..len.div_ceil(64)]` (bit j of
    /// `out[j / 64]` = mask bit `start + j`), the bits past `len` cleared: straight from the
    /// mask's bytes while the 9 bytes a word takes are there (one bounds check), the last
    /// words (whose bytes reach past the mask's end) one by one.
    fn words(&self, start: u64, len: u64, out: &mut [u64]) {
        let count = len.div_ceil(64) as usize;
        let first = (start / 8) as usize;
        let whole = (self.bytes.len().saturating_sub(first + 1) / 8).min(count);
        if let Some(bytes) = self.bytes.get(first..first + 8 * whole + 1) {
            let shift = (start % 8) as u32;
            // Each word's 8 bytes, and the byte after them.
            let lows = bytes.as_chunks::<8>().0;
            let nexts = bytes.iter().skip(8).step_by(8);
            for ((word, low), &next) in out[..whole].iter_mut().zip(lows).zip(nexts) {
                *word = self.join(u64::from_le_bytes(*low), next, shift);
            }
        }
        for (i, word) in out[..count].iter_mut().enumerate().skip(whole) {
            *word = self.word(start + 64 * i as u64);
        }
        if let Some(last) = out[..count].last_mut() {
            *last &= kernels::low_bits((len - 64 * (count as u64 - 1)) as usize);
        }
    }

    /// Set bits in `start..end`.
    fn count_ones(&self, start: u64, end: u64) -> u64 {
        let mut count = 0u64;
        let mut i = start;
        while i < end && !i.is_multiple_of(8) {
            count += u64::from(self.bit(i));
            i += 1;
        }
        let whole_end = end / 8 * 8;
        if i < whole_end {
            let bytes = &self.bytes[(i / 8) as usize..(whole_end / 8) as usize];
            count += kernels::count_ones(kernels::kernels(), bytes);
            i = whole_end;
        }
        while i < end {
            count += u64::from(self.bit(i));
            i += 1;
        }
        count
    }
}

struct Extract<'w, 'd> {
    /// Index of the next element the decoder delivers.
    index: u64,
    low: u64,
    high: u64,
    out: &'w mut Writer<'d>,
}

impl Extract<'_, '_> {
    /// Whether every one of the next `len` elements is wanted.
    fn wants_all(&self, len: u64) -> bool {
        self.wanted(len) == (0, len)
    }

    /// The part of `index..index+len` inside `low..=high`, relative to `index`.
    fn wanted(&self, len: u64) -> (u64, u64) {
        let start = self.low.max(self.index);
        let end = (self.high + 1).min(self.index + len);
        if start >= end {
            (0, 0)
        } else {
            (start - self.index, end - self.index)
        }
    }
}

impl Consumer for Extract<'_, '_> {
    fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        let (a, b) = self.wanted(values.len() as u64);
        self.index += values.len() as u64;
        if a < b {
            self.out.values(&values[a as usize..b as usize])?;
        }
        Ok(())
    }

    fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        let (a, b) = self.wanted(count);
        self.index += count;
        if a < b {
            self.out.run(value, b - a)?;
        }
        Ok(())
    }

    fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        if !self.wants_all(count as u64) {
            return self.values(scratch.unpack(width, big_endian, src, count));
        }
        // The whole block is wanted: the writer may unpack it straight into the destination.
        self.index += count as u64;
        self.out.packed(src, width, big_endian, count, scratch)
    }

    fn packed_span(&mut self, src: &[u8], width: BitWidth, big_endian: bool, count: u64) -> bool {
        if !self.wants_all(count) {
            return false;
        }
        let took = self.out.packed_in_place(src, width, big_endian, count);
        if took {
            self.index += count;
        }
        took
    }

    fn hybrid_span(&mut self, data: &[u8], width: BitWidth, count: u64) -> Option<(usize, usize)> {
        if !self.wants_all(count) {
            return None;
        }
        let (done, used) = self.out.hybrid_in_place(data, width, count)?;
        self.index += done as u64;
        Some((done, used))
    }
}

/// The scan comparison, on parameters masked to the bit width (§5.1).
#[derive(Clone, Copy)]
struct Predicate {
    compare: Compare,
    low: u32,
    high: u32,
}

impl Predicate {
    /// The comparison of scan `op`, chosen once per job.
    fn new(op: Operation, low: u32, high: u32, width: BitWidth) -> Predicate {
        let compare = match op {
            Operation::ScanEq => Compare::Eq,
            Operation::ScanNe => Compare::Ne,
            Operation::ScanLt => Compare::Lt,
            Operation::ScanLe => Compare::Le,
            Operation::ScanGt => Compare::Gt,
            Operation::ScanGe => Compare::Ge,
            Operation::ScanRange => Compare::Range,
            _ => Compare::NotRange,
        };
        Predicate {
            compare,
            low: low & width.mask(),
            high: high & width.mask(),
        }
    }

    #[inline(always)]
    fn test(&self, x: u32) -> bool {
        let (l, h) = (self.low, self.high);
        match self.compare {
            Compare::Eq => x == l,
            Compare::Ne => x != l,
            Compare::Lt => x < l,
            Compare::Le => x <= l,
            Compare::Gt => x > l,
            Compare::Ge => x >= l,
            Compare::Range => l <= x && x <= h,
            Compare::NotRange => x < l || x > h,
        }
    }
}

struct Scan<'w, 'd> {
    predicate: Predicate,
    bits: [u8; BLOCK / 8],
    out: &'w mut Writer<'d>,
}

/// Packs `test(v)` of each value into LSB-first bytes, 8 values a byte, with no 0/1 array in
/// between; one instance per comparison, so each compiles to a branch-free loop.
#[inline(always)]
fn pack_predicate<F: Fn(u32) -> bool>(values: &[u32], bits: &mut [u8], test: F) {
    let mut chunks = values.chunks_exact(8);
    for (byte, chunk) in bits.iter_mut().zip(&mut chunks) {
        let mut b = 0u8;
        for (j, &v) in chunk.iter().enumerate() {
            b |= u8::from(test(v)) << j;
        }
        *byte = b;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut b = 0u8;
        for (j, &v) in tail.iter().enumerate() {
            b |= u8::from(test(v)) << j;
        }
        bits[values.len() / 8] = b;
    }
}

/// Scans `count` elements packed at `width` bits from the start of `src` into the bit vector
/// `bits` (⌈count/8⌉ bytes, zero above `count`); `false` when there is no kernel for it.
fn scan_bits(
    p: Predicate,
    src: &[u8],
    width: BitWidth,
    big_endian: bool,
    count: usize,
    bits: &mut [u8],
) -> bool {
    if width.get() == 1 {
        // A 1-bit element is 0 or 1, so any comparison is false, true, x or !x: a byte at a
        // time from the predicate's truth table.
        let if_one = if p.test(1) { 0xFFu8 } else { 0 };
        let if_zero = if p.test(0) { 0xFFu8 } else { 0 };
        for (out, &byte) in bits.iter_mut().zip(src) {
            let byte = if big_endian {
                byte.reverse_bits()
            } else {
                byte
            };
            *out = (byte & if_one) | (!byte & if_zero);
        }
        if !count.is_multiple_of(8) {
            bits[count / 8] &= (1u8 << (count % 8)) - 1;
        }
        return true;
    }
    let (w, c, chosen) = (width.get(), p.compare, kernels::kernels());
    kernels::scan_packed(chosen, w, big_endian, src, count, c, p.low, p.high, bits)
}

impl Consumer for Scan<'_, '_> {
    fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        if self.packed_span(src, width, big_endian, count as u64) {
            return Ok(());
        }
        let bits = &mut self.bits[..count.div_ceil(8)];
        if scan_bits(self.predicate, src, width, big_endian, count, bits) {
            return self.out.bits(bits, count);
        }
        self.values(scratch.unpack(width, big_endian, src, count))
    }

    /// Straight into the destination when it is a plain bit vector on a byte boundary.
    fn packed_span(&mut self, src: &[u8], width: BitWidth, big_endian: bool, count: u64) -> bool {
        let count = count as usize;
        let Some(out) = self.out.bits_in_place(count) else {
            return false;
        };
        let took = scan_bits(self.predicate, src, width, big_endian, count, out);
        if took {
            self.out.wrote_bits(count);
        }
        took
    }

    fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        let bits = &mut self.bits[..values.len().div_ceil(8)];
        let p = self.predicate;
        let (l, h) = (p.low, p.high);
        // One loop per comparison (not `p.test` per element), so each is branch-free.
        match p.compare {
            Compare::Eq => pack_predicate(values, bits, |x| x == l),
            Compare::Ne => pack_predicate(values, bits, |x| x != l),
            Compare::Lt => pack_predicate(values, bits, |x| x < l),
            Compare::Le => pack_predicate(values, bits, |x| x <= l),
            Compare::Gt => pack_predicate(values, bits, |x| x > l),
            Compare::Ge => pack_predicate(values, bits, |x| x >= l),
            Compare::Range => pack_predicate(values, bits, |x| l <= x && x <= h),
            Compare::NotRange => pack_predicate(values, bits, |x| x < l || x > h),
        }
        self.out.bits(bits, values.len())
    }

    fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        self.out.run(u32::from(self.predicate.test(value)), count)
    }
}

/// Select's state apart from its unpacking buffer, so the two can be borrowed apart.
struct Selector<'m, 'w, 'd, T> {
    index: u64,
    mask: Mask<'m>,
    selected: [T; BLOCK],
    out: &'w mut Writer<'d>,
}

impl<T: Lane> Selector<'_, '_, '_, T> {
    /// Writes the values whose mask bit is set, driven by the mask's words, 64 elements each.
    fn take(&mut self, values: &[T]) -> Result<(), Status> {
        for values in values.chunks(BLOCK) {
            self.take_block(values.len(), |words, selected| {
                T::compress(values, words, selected)
            })?;
        }
        Ok(())
    }

    /// The next `count` (≤ [`BLOCK`]) elements: `compress` appends the selected ones to the
    /// buffer it is given, by the mask words it is given, and returns how many; they are
    /// then written.
    fn take_block(
        &mut self,
        count: usize,
        compress: impl FnOnce(&[u64], &mut [T; BLOCK]) -> usize,
    ) -> Result<(), Status> {
        let mut words = [0u64; BLOCK / 64];
        self.mask.words(self.index, count as u64, &mut words);
        self.index += count as u64;
        let kept = compress(&words, &mut self.selected);
        T::write(self.out, &self.selected[..kept])
    }
}

struct Select<'m, 'w, 'd, T: Lane> {
    selector: Selector<'m, 'w, 'd, T>,
    /// Narrow lanes' unpacking buffer (`u32` lanes unpack into the decoder's block).
    unpacked: T::Unpacked,
}

/// Converts `values` to lanes in `buffer`, a block at a time, for `take`: the path of values
/// a decoder hands over already unpacked (not taken by today's decoders, which hand select
/// and expand packed blocks and runs).
fn take_values<T: Lane>(
    values: &[u32],
    buffer: &mut [T; BLOCK],
    mut take: impl FnMut(&[T]) -> Result<(), Status>,
) -> Result<(), Status> {
    for chunk in values.chunks(BLOCK) {
        for (b, &v) in buffer.iter_mut().zip(chunk) {
            *b = T::from_u32(v);
        }
        take(&buffer[..chunk.len()])?;
    }
    Ok(())
}

impl<T: Lane> Consumer for Select<'_, '_, '_, T> {
    fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        let mut buffer = [T::default(); BLOCK];
        take_values(values, &mut buffer, |lanes| self.selector.take(lanes))
    }

    fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        let s = &mut self.selector;
        let kept = s.mask.count_ones(s.index, s.index + count);
        s.index += count;
        s.out.run(value, kept)
    }

    fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        let unpacked = &mut self.unpacked;
        self.selector.take_block(count, |words, selected| {
            match T::unpack_compress(width, big_endian, src, count, words, selected) {
                Some(kept) => kept,
                None => {
                    let lanes = T::unpack(width, big_endian, src, count, scratch, unpacked);
                    T::compress(lanes, words, selected)
                }
            }
        })
    }
}

/// Where expand takes its source values from.
#[derive(Clone, Copy)]
enum Source<'a, T> {
    /// Decoded values, used in order.
    Values(&'a [T]),
    /// `count` copies of one value (an RLE run).
    Run { value: T, count: u64 },
}

impl<T: Lane> Source<'_, T> {
    fn len(&self) -> u64 {
        match *self {
            Source::Values(v) => v.len() as u64,
            Source::Run { count, .. } => count,
        }
    }

    /// [`kernels::expand_words`] from this source into `out`, dropping the values used; returns
    /// the positions passed.
    fn expand_into(&mut self, words: &[u64], out: &mut [T]) -> u64 {
        match self {
            Source::Values(values) => {
                let (used, positions) = T::expand(values, words, out);
                *values = &values[used..];
                positions as u64
            }
            Source::Run { value, count } => {
                let available = usize::try_from(*count).unwrap_or(usize::MAX);
                let (used, positions) = kernels::expand_words(words, available, |i, word, _| {
                    for (j, slot) in out[64 * i..64 * i + 64].iter_mut().enumerate() {
                        *slot = if (word >> j) & 1 == 1 {
                            *value
                        } else {
                            T::default()
                        };
                    }
                });
                *count -= used as u64;
                positions as u64
            }
        }
    }
}

/// A block of lanes from a cache-line boundary: fewer of the vector stores into it and loads
/// from it straddle two lines.
#[repr(align(64))]
struct LineAligned<T>([T; BLOCK]);

/// Expand's state apart from its unpacking buffer, so the two can be borrowed apart.
struct Spreader<'m, 'w, 'd, T> {
    /// Next output position (mask bit).
    position: u64,
    /// n: the mask bits from here on are not used.
    end: u64,
    mask: Mask<'m>,
    expanded: LineAligned<T>,
    filled: usize,
    out: &'w mut Writer<'d>,
}

impl<T: Lane> Spreader<'_, '_, '_, T> {
    /// Writes the expanded values: all of them at the end, else whole groups of 8 (the rest
    /// move to the front), so nominal output stays on byte boundaries for the packing kernel.
    fn flush(&mut self, all: bool) -> Result<(), Status> {
        let flushed = if all {
            self.filled
        } else {
            self.filled / 8 * 8
        };
        T::write(self.out, &self.expanded.0[..flushed])?;
        self.expanded.0.copy_within(flushed..self.filled, 0);
        self.filled -= flushed;
        Ok(())
    }

    /// Places every value of `source` at the next set mask bits, zeros before them, as many
    /// mask words at a time as the buffer holds. The decoder delivers exactly
    /// popcount(mask bits below n) values, so a set bit below n always exists for each.
    fn place(&mut self, mut source: Source<T>) -> Result<(), Status> {
        while source.len() > 0 {
            if self.filled + 64 > BLOCK {
                self.flush(false)?;
            }
            let left = self.end - self.position;
            if left == 0 {
                // More values than set mask bits below n: the decoder broke its contract.
                return Err(Status::LIBRARY_INTERNAL_ERR);
            }
            let count = ((BLOCK - self.filled) / 64).min(left.div_ceil(64) as usize);
            let mut words = [0u64; BLOCK / 64];
            self.mask
                .words(self.position, left.min(64 * count as u64), &mut words);
            let out = &mut self.expanded.0[self.filled..self.filled + 64 * count];
            // Positions past n (or past the last value) were written as scratch; the next
            // words overwrite them.
            let emitted = source.expand_into(&words[..count], out).min(left);
            self.filled += emitted as usize;
            self.position += emitted;
        }
        Ok(())
    }
}

struct Expand<'m, 'w, 'd, T: Lane> {
    spreader: Spreader<'m, 'w, 'd, T>,
    /// Narrow lanes' unpacking buffer (`u32` lanes unpack into the decoder's block).
    unpacked: T::Unpacked,
}

impl<T: Lane> Consumer for Expand<'_, '_, '_, T> {
    fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        let mut buffer = [T::default(); BLOCK];
        take_values(values, &mut buffer, |lanes| {
            self.spreader.place(Source::Values(lanes))
        })
    }

    fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        self.spreader.place(Source::Run {
            value: T::from_u32(value),
            count,
        })
    }

    fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        let lanes = T::unpack(width, big_endian, src, count, scratch, &mut self.unpacked);
        self.spreader.place(Source::Values(lanes))
    }
}
