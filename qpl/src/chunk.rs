//! Jobs whose source-1 exceeds the device's transfer limit, split into jobs that fit and merged
//! into exactly the result of one big job.
//!
//! Packed sources split at element boundaries that are multiples of 8 (so every piece starts
//! on a byte, and so does its mask); Parquet sources split at run boundaries (a long
//! bit-packed run at group boundaries), each piece a copy with the bit-width byte in front.
//! Outputs are appended at bit granularity; aggregates, indices and checksums are merged.
//! Supported: scans and extract on every parser, select on packed sources (not to an index
//! list, whose positions `initial_output_index` may not shift for select). Anything else
//! returns `None`, and the caller runs the job on the CPU.

use std::borrow::Cow;

use qpl_fallback::{
    checksums, nominal_output_elements, read_run_header, write_run_header, Completion, Flags, Job,
    Operation, OutBitWidth, Parser, Status,
};

use crate::executor::{Executor, Route};

/// One piece of a split job.
struct Piece<'a> {
    job: Job,
    src1: Cow<'a, [u8]>,
    src2: Option<&'a [u8]>,
}

/// Runs `job` in pieces of at most `executor`'s transfer limit on `route`.
pub(crate) fn run_chunked(
    executor: &Executor,
    route: Route,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Option<Result<Completion, Status>> {
    let limit = executor.transfer_limit();
    let pieces = split(job, src1, src2, limit)?;
    let mut merged = Merged::new(job);
    for piece in pieces {
        match merged.run_piece(executor, route, piece, dst)? {
            Ok(()) => {}
            Err(status) => return Some(Err(status)),
        }
    }
    Some(Ok(merged.finish(job, src1)))
}

/// Splits `job` into pieces whose source-1 fits `limit` bytes, or `None` when this job kind
/// is not split.
fn split<'a>(
    job: &Job,
    src1: &'a [u8],
    src2: Option<&'a [u8]>,
    limit: u64,
) -> Option<Vec<Piece<'a>>> {
    let base = Job {
        flags: job.flags | Flags::OMIT_CHECKSUMS,
        drop_initial_bytes: 0,
        ..*job
    };
    if !splits(job) {
        None
    } else if job.parser == Parser::PARQUET_RLE {
        split_parquet(job, base, src1, limit)
    } else {
        split_packed(job, base, src1, src2, limit)
    }
}

/// Whether a packed select can be split: not when it writes an index list.
fn splits_select(job: &Job) -> bool {
    let index_list = job.src1_bit_width == 1
        && job.out_bit_width != OutBitWidth::NOMINAL
        && !job.flags.contains(Flags::FORCE_ARRAY_OUTPUT);
    !index_list
}

/// Whether `job` is split when too large (else it runs on the CPU).
pub(crate) fn splits(job: &Job) -> bool {
    match (job.parser, job.operation) {
        (Parser::PARQUET_RLE, op) => op.is_scan() || op == Operation::Extract,
        (_, Operation::Expand) => false,
        (_, Operation::Select) => splits_select(job),
        _ => true,
    }
}

/// Packed sources: pieces of `step` elements, a multiple of 8.
fn split_packed<'a>(
    job: &Job,
    base: Job,
    src1: &'a [u8],
    src2: Option<&'a [u8]>,
    limit: u64,
) -> Option<Vec<Piece<'a>>> {
    let width = u64::from(job.src1_bit_width);
    let data = &src1[job.drop_initial_bytes as usize..];
    let n = u64::from(job.num_input_elements);
    // Extract windows start up to 7 elements before the wanted one: leave room for them.
    let step = ((limit * 8 / width).saturating_sub(8) / 8 * 8).max(8);
    let bytes =
        |from: u64, to: u64| &data[(from * width / 8) as usize..(to * width).div_ceil(8) as usize];
    let mut pieces = Vec::new();
    if job.operation == Operation::Extract {
        let high = u64::from(job.param_high).min(n - 1);
        let mut first = u64::from(job.param_low);
        while first <= high {
            let last = (first + step - 1).min(high);
            let window = first / 8 * 8;
            pieces.push(Piece {
                job: Job {
                    num_input_elements: (last + 1 - window) as u32,
                    param_low: (first - window) as u32,
                    param_high: (last - window) as u32,
                    ..base
                },
                src1: Cow::Borrowed(bytes(window, last + 1)),
                src2: None,
            });
            first = last + 1;
        }
    } else {
        let mut start = 0;
        while start < n {
            let end = (start + step).min(n);
            pieces.push(Piece {
                job: Job {
                    num_input_elements: (end - start) as u32,
                    ..base
                },
                src1: Cow::Borrowed(bytes(start, end)),
                src2: src2.map(|m| &m[(start / 8) as usize..end.div_ceil(8) as usize]),
            });
            start = end;
        }
    }
    Some(pieces)
}

/// Parquet sources: whole runs (a long bit-packed run in group-aligned parts) copied behind
/// the width byte until a piece would exceed `limit`. Scans and extract only. A malformed or
/// short stream is not split: the CPU reports its error.
fn split_parquet<'a>(job: &Job, base: Job, src1: &'a [u8], limit: u64) -> Option<Vec<Piece<'a>>> {
    let width = u32::from(src1[0]);
    let value_bytes = width.div_ceil(8) as usize;
    let data = src1.get(1 + job.drop_initial_bytes as usize..)?;
    let n = u64::from(job.num_input_elements);
    let limit = limit as usize;
    let group_bytes = width as usize;
    // Room for the width byte and a header, and at least one group.
    if limit < 1 + 5 + group_bytes.max(value_bytes) {
        return None;
    }
    let mut pieces = Vec::new();
    let mut piece = vec![width as u8];
    let mut piece_values = 0u64;
    let mut pos = 0usize;
    let mut seen = 0u64;
    let mut flush = |piece: &mut Vec<u8>, values: &mut u64| {
        if *values > 0 {
            pieces.push((std::mem::replace(piece, vec![width as u8]), *values));
            *values = 0;
        }
    };
    while seen < n {
        let header = read_run_header(data, &mut pos).ok()?;
        let count = u64::from(header >> 1);
        if header & 1 == 0 {
            let value = data.get(pos..pos + value_bytes)?;
            pos += value_bytes;
            let take = count.min(n - seen);
            if take == 0 {
                continue;
            }
            if piece.len() + 5 + value_bytes > limit {
                flush(&mut piece, &mut piece_values);
            }
            write_run_header(&mut piece, (take as u32) << 1);
            piece.extend_from_slice(value);
            piece_values += take;
            seen += take;
        } else {
            let take = (count * 8).min(n - seen);
            let groups = take.div_ceil(8) as usize;
            let run = data.get(pos..pos + groups * group_bytes)?;
            pos += count as usize * group_bytes;
            let mut done = 0usize;
            while done < groups {
                let room = limit.saturating_sub(piece.len() + 5) / group_bytes.max(1);
                if room == 0 {
                    flush(&mut piece, &mut piece_values);
                    continue;
                }
                let part = room.min(groups - done);
                write_run_header(&mut piece, ((part as u32) << 1) | 1);
                piece.extend_from_slice(&run[done * group_bytes..(done + part) * group_bytes]);
                let values = (part as u64 * 8).min(take - done as u64 * 8);
                piece_values += values;
                seen += values;
                done += part;
            }
        }
    }
    flush(&mut piece, &mut piece_values);
    // Turn (stream, values) pieces into jobs; extract keeps its range in piece coordinates.
    let mut first = 0u64;
    let low = u64::from(job.param_low);
    let high = u64::from(job.param_high);
    let mut out = Vec::new();
    for (stream, values) in pieces {
        let last = first + values - 1;
        let job = if job.operation == Operation::Extract {
            if last < low || first > high {
                first += values;
                continue;
            }
            Job {
                num_input_elements: values as u32,
                param_low: low.saturating_sub(first) as u32,
                param_high: (high.min(last) - first) as u32,
                ..base
            }
        } else {
            Job {
                num_input_elements: values as u32,
                ..base
            }
        };
        out.push(Piece {
            job,
            src1: Cow::Owned(stream),
            src2: None,
        });
        first += values;
    }
    Some(out)
}

/// The merged result so far.
struct Merged {
    /// Bits of output written.
    bits: u64,
    /// Elements of the nominal output so far (index lists: positions).
    elements: u64,
    first: u32,
    last: u32,
    sum: u32,
    /// Bit-vector aggregates (else min/max/sum of values).
    bit_aggregates: bool,
    /// Width of one output element in bits, when elements are written (not index lists).
    element_bits: Option<u64>,
    big_endian: bool,
}

impl Merged {
    fn new(job: &Job) -> Merged {
        let nominal_width = if job.operation.is_scan() {
            1
        } else {
            job.src1_bit_width
        };
        let out_bits = u64::from(job.out_bit_width.bits().unwrap_or(0));
        let index_list = out_bits != 0 && nominal_width == 1;
        Merged {
            bits: 0,
            elements: 0,
            first: u32::MAX,
            last: 0,
            sum: 0,
            bit_aggregates: nominal_width == 1,
            element_bits: (!index_list).then_some(if out_bits == 0 {
                u64::from(nominal_width)
            } else {
                out_bits
            }),
            big_endian: job.flags.contains(Flags::OUT_BE),
        }
    }

    /// Runs one piece into the destination after what is already there.
    fn run_piece(
        &mut self,
        executor: &Executor,
        route: Route,
        mut piece: Piece<'_>,
        dst: &mut [u8],
    ) -> Option<Result<(), Status>> {
        if !piece.job.operation.uses_mask() {
            // Index lists continue where the previous piece stopped.
            let shifted = u64::from(piece.job.initial_output_index) + self.elements;
            let Ok(shifted) = u32::try_from(shifted) else {
                return Some(Err(Status::OUTPUT_OVERFLOW_ERR));
            };
            piece.job.initial_output_index = shifted;
        }
        let elements = nominal_output_elements(&piece.job, piece.src2);
        let offset = (self.bits / 8) as usize;
        let shift = (self.bits % 8) as u32;
        if offset >= dst.len() {
            // No room left: fine only if this piece writes nothing (an index list without a
            // match). A QPL job cannot have an empty destination, so probe into scratch.
            if self.element_bits.is_some() && elements > 0 {
                return Some(Err(Status::DST_IS_SHORT_ERR));
            }
            let mut probe = [0u8; 4];
            let c = match executor.run_on_slot(
                route,
                &piece.job,
                &piece.src1,
                piece.src2,
                &mut probe,
            )? {
                Ok(c) if c.total_out == 0 => c,
                Ok(_) => return Some(Err(Status::DST_IS_SHORT_ERR)),
                Err(status) => return Some(Err(status)),
            };
            self.merge_aggregates(&piece.job, &c);
            self.elements += elements;
            return Some(Ok(()));
        }
        let completion = if shift == 0 {
            let out = &mut dst[offset..];
            match executor.run_on_slot(route, &piece.job, &piece.src1, piece.src2, out)? {
                Ok(c) => c,
                Err(status) => return Some(Err(status)),
            }
        } else {
            let mut scratch = vec![0u8; dst.len() - offset];
            let c = match executor.run_on_slot(
                route,
                &piece.job,
                &piece.src1,
                piece.src2,
                &mut scratch,
            )? {
                Ok(c) => c,
                Err(status) => return Some(Err(status)),
            };
            let piece_bits = self
                .element_bits
                .map_or(u64::from(c.total_out) * 8, |w| w * elements);
            if self.bits + piece_bits > dst.len() as u64 * 8 {
                return Some(Err(Status::DST_IS_SHORT_ERR));
            }
            append_bits(
                &mut dst[offset..],
                shift,
                &scratch,
                piece_bits,
                self.big_endian,
            );
            c
        };
        let piece_bits = self
            .element_bits
            .map_or(u64::from(completion.total_out) * 8, |w| w * elements);
        self.merge_aggregates(&piece.job, &completion);
        self.bits += piece_bits;
        self.elements += elements;
        Some(Ok(()))
    }

    fn merge_aggregates(&mut self, job: &Job, c: &Completion) {
        if job.flags.contains(Flags::OMIT_AGGREGATES) {
            return;
        }
        if self.bit_aggregates {
            if c.sum_value > 0 {
                let offset = self.elements as u32;
                if self.first == u32::MAX {
                    self.first = offset + c.first_index_min_value;
                }
                self.last = offset + c.last_index_max_value;
                self.sum = self.sum.wrapping_add(c.sum_value);
            }
        } else if c.total_out > 0 {
            self.first = self.first.min(c.first_index_min_value);
            self.last = self.last.max(c.last_index_max_value);
            self.sum = self.sum.wrapping_add(c.sum_value);
        }
    }

    fn finish(self, job: &Job, src1: &[u8]) -> Completion {
        let (crc, xor_checksum) = if job.flags.contains(Flags::OMIT_CHECKSUMS) {
            (0, 0)
        } else {
            checksums(src1, job.flags.contains(Flags::CRC32C))
        };
        let bit_vector = self.element_bits == Some(1);
        Completion {
            total_out: self.bits.div_ceil(8) as u32,
            last_bit_offset: if bit_vector {
                (self.bits % 8) as u32
            } else {
                0
            },
            first_index_min_value: self.first,
            last_index_max_value: self.last,
            sum_value: self.sum,
            crc,
            xor_checksum,
        }
    }
}

/// Writes the first `bits` bits of `src` into `dst` starting at bit `shift` of `dst[0]`,
/// keeping the bits of `dst[0]` before it (LSB-first order, or MSB-first when `big_endian`).
fn append_bits(dst: &mut [u8], shift: u32, src: &[u8], bits: u64, big_endian: bool) {
    let total = (u64::from(shift) + bits).div_ceil(8) as usize;
    let keep = if big_endian {
        0xFFu8 << (8 - shift)
    } else {
        0xFFu8 >> (8 - shift)
    };
    dst[0] &= keep;
    dst[1..total].fill(0);
    for (i, &byte) in src.iter().enumerate().take(bits.div_ceil(8) as usize) {
        if big_endian {
            dst[i] |= byte >> shift;
            if i + 1 < total {
                dst[i + 1] |= byte << (8 - shift);
            }
        } else {
            dst[i] |= byte << shift;
            if i + 1 < total {
                dst[i + 1] |= byte >> (8 - shift);
            }
        }
    }
    // Zero the padding after the last bit, as a single job would.
    let end_bits = ((u64::from(shift) + bits) % 8) as u32;
    if end_bits != 0 {
        let last = &mut dst[total - 1];
        *last &= if big_endian {
            0xFFu8 << (8 - end_bits)
        } else {
            0xFFu8 >> (8 - end_bits)
        };
    }
}
