//! What QPL lacks or would do unsafely, closed before a job reaches it:
//! - Parquet streams of bit width 0 (one-entry dictionaries): every path, as a width-1 stream
//!   of zeros;
//! - `FORCE_ARRAY_OUTPUT` (IAA 2.0 only): the nominal bit vector, widened here;
//! - jobs QPL would run past a buffer (docs/semantics.md, D12 and D14): Parquet with dropped bytes, expand
//!   with a short packed source, big-endian index lists straddling the destination's end.

use std::borrow::Cow;

use qpl_fallback::{
    checksums, write_run_header, Completion, Flags, Job, Operation, OutBitWidth, Parser, Shape,
    Status, MAX_RUN_LENGTH,
};

use crate::error::{Error, Stage};
use crate::executor::{Executor, Output, Route};
use crate::path::Path;

/// A Parquet RLE job whose stream declares bit width 0.
pub(crate) fn is_width_zero_stream(job: &Job, src1: &[u8]) -> bool {
    job.parser == Parser::PARQUET_RLE && src1.first() == Some(&0)
}

/// Runs a width-0 Parquet job as the same job over a stream of zeros, after checking that the
/// original stream is well formed and long enough. The stand-in width is 8 where values are
/// written as arrays (so they stay arrays of zeros, with value aggregates), 1 otherwise (a
/// nominal output of 0-bit values is a bit vector of zeros).
pub(crate) fn run_width_zero(
    executor: &Executor,
    route: Route,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<Output, Error> {
    let fail = |status| {
        Error::from_status(
            job.operation,
            executor.config().path,
            route.path(),
            Stage::Check,
            status,
        )
    };
    // Every other field is checked as for a stream of that width and the same length.
    let mut same_length = src1.to_vec();
    same_length[0] = stand_in_width(job);
    if qpl_fallback::validate(job, &same_length, src2, dst.len())
        .map_err(fail)?
        .is_none()
    {
        return executor.run_routed(route, job, &same_length, src2, dst);
    }
    let drop = job.drop_initial_bytes as usize;
    let needed = qpl_fallback::source_values_needed(job, src2);
    qpl_fallback::check_hybrid(src1.get(1 + drop..).unwrap_or(&[]), 0, needed).map_err(fail)?;
    let zeros = width_zero_stand_in(job, src2);
    let mut output = executor.run_routed(route, job, &zeros, src2, dst)?;
    set_checksums(&mut output.completion, job, src1);
    Ok(output)
}

/// The bit width of a width-0 job's stand-in stream (see [`run_width_zero`]).
fn stand_in_width(job: &Job) -> u8 {
    let arrays = !job.operation.is_scan() && job.out_bit_width != OutBitWidth::NOMINAL;
    if arrays {
        8
    } else {
        1
    }
}

/// The stream of zeros a width-0 Parquet job runs over in its place (see [`run_width_zero`]):
/// its [`stand_in_width`], `drop_initial_bytes` zero bytes, then n zeros, or more when the
/// job needs more (QPL's Parquet expand reads up to n values whatever the mask, §5.4, and
/// extra values are ignored by every operation). Public (hidden) for `qpl-difftest`, which
/// checks QPL's result on this stream.
#[doc(hidden)]
pub fn width_zero_stand_in(job: &Job, src2: Option<&[u8]>) -> Vec<u8> {
    let mut zeros = vec![0u8; 1 + job.drop_initial_bytes as usize];
    zeros[0] = stand_in_width(job);
    let needed = qpl_fallback::source_values_needed(job, src2);
    let mut left = u64::from(job.num_input_elements).max(needed);
    while left > 0 {
        let run = left.min(u64::from(MAX_RUN_LENGTH));
        write_run_header(&mut zeros, (run as u32) << 1);
        zeros.push(0);
        left -= run;
    }
    zeros
}

/// Reports the checksums of the caller's own source-1 (after QPL ran on a copy).
fn set_checksums(completion: &mut Completion, job: &Job, src1: &[u8]) {
    if !job.flags.contains(Flags::OMIT_CHECKSUMS) {
        (completion.crc, completion.xor_checksum) =
            checksums(src1, job.flags.contains(Flags::CRC32C));
    }
}

/// Runs a validated job on QPL (`route` is Software or Hardware). `None`: QPL cannot take
/// this job safely, or the accelerator is busy or faulted; the caller runs it on the CPU.
pub(crate) fn run_qpl(
    executor: &Executor,
    route: Route,
    job: &Job,
    shape: Shape,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Option<Result<Completion, Error>> {
    let fail = |status| {
        let requested = executor.config().path;
        Some(Err(Error::from_status(
            job.operation,
            requested,
            route.path(),
            Stage::Check,
            status,
        )))
    };
    let mut qpl_job = *job;
    let mut source = Cow::Borrowed(src1);
    let parquet = job.parser == Parser::PARQUET_RLE;
    let drop = job.drop_initial_bytes as usize;
    if drop > 0 {
        qpl_job.drop_initial_bytes = 0;
        source = if parquet {
            // QPL's Parquet decoder may read `drop` bytes past the buffer (§4.3.1): a copy
            // without them, behind the width byte.
            let mut copy = vec![src1[0]];
            copy.extend_from_slice(src1.get(1 + drop..).unwrap_or(&[]));
            Cow::Owned(copy)
        } else {
            // QPL's extract ignores the drop on LE 8/16/32-bit input (§4.2, D19): skip the
            // bytes here instead, for every packed input.
            Cow::Borrowed(&src1[drop..])
        };
    }
    // Expand on a packed source reads n elements' worth of bytes whatever the mask (§5.4):
    // after the fallback's own check (popcount(mask) elements), pad a copy.
    if job.operation == Operation::Expand && !parquet {
        let width = u64::from(shape.bit_width);
        let wanted = qpl_fallback::source_values_needed(job, src2);
        if (wanted * width).div_ceil(8) > source.len() as u64 {
            return fail(Status::SRC_IS_SHORT_ERR);
        }
        let needed = (u64::from(job.num_input_elements) * width).div_ceil(8);
        if (source.len() as u64) < needed {
            // The output needs at least as many bytes; a smaller destination fails anyway.
            if needed > dst.len() as u64 {
                return None;
            }
            let mut padded = source.into_owned();
            padded.resize(needed as usize, 0);
            source = Cow::Owned(padded);
        }
    }
    // The checksums cover the caller's buffer, not an adapted copy or slice.
    let adapted = source.len() != src1.len();
    let out_bits = job.out_bit_width.bits().unwrap_or(0);
    let force_array = job.flags.contains(Flags::FORCE_ARRAY_OUTPUT) && shape.nominal_width == 1;
    // On wider elements the flag changes nothing (an array is an array), but QPL refuses it.
    qpl_job.flags = Flags(qpl_job.flags.0 & !Flags::FORCE_ARRAY_OUTPUT.0);
    let index_list = out_bits != 0 && shape.nominal_width == 1 && !force_array;
    let mut dst_len = dst.len();
    if index_list && job.flags.contains(Flags::OUT_BE) && out_bits > 8 {
        // QPL lets a big-endian 16/32-bit index straddle the end (§6.7): whole indices only.
        dst_len -= dst_len % (out_bits as usize / 8);
        if dst_len == 0 {
            return None;
        }
    }
    let result = if force_array {
        run_widened(
            executor,
            route,
            &qpl_job,
            &source,
            src2,
            &mut dst[..dst_len],
            out_bits,
        )?
    } else {
        executor.run_job(route, &qpl_job, &source, src2, &mut dst[..dst_len])?
    };
    Some(
        result
            .map(|mut completion| {
                if adapted {
                    set_checksums(&mut completion, job, src1);
                }
                completion
            })
            .map_err(|status| {
                Error::from_status(
                    job.operation,
                    executor.config().path,
                    route.path(),
                    Stage::Run,
                    status,
                )
            }),
    )
}

/// `FORCE_ARRAY_OUTPUT` done here: the nominal bit vector (LSB first) into a scratch buffer,
/// then each bit written as a 0/1 element of `out_bits`, in the job's byte order.
fn run_widened(
    executor: &Executor,
    route: Route,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
    out_bits: u32,
) -> Option<Result<Completion, Status>> {
    let elements = qpl_fallback::nominal_output_elements(job, src2);
    let bytes = out_bits as usize / 8;
    if elements > (dst.len() / bytes) as u64 {
        // The fallback reports the destination error at the right point of the stream.
        return None;
    }
    let nominal = Job {
        out_bit_width: qpl_fallback::OutBitWidth::NOMINAL,
        flags: Flags(job.flags.0 & !(Flags::FORCE_ARRAY_OUTPUT.0 | Flags::OUT_BE.0)),
        ..*job
    };
    // QPL's expand may write past n, up to available_src2·8 bits (D11): room for those too,
    // or its overshoot would fail the job (225) on this buffer of ours.
    let mut scratch_bits = elements;
    if job.operation == Operation::Expand {
        scratch_bits = scratch_bits.max(src2.map_or(0, |mask| mask.len() as u64 * 8));
    }
    let mut bits = vec![0u8; (scratch_bits as usize).div_ceil(8).max(1)];
    let result = executor.run_job(route, &nominal, src1, src2, &mut bits)?;
    Some(result.map(|mut completion| {
        // Only the bits the engine reports: QPL's software select can stop short of the
        // expected count (D10), and widening the scratch buffer's zeros past its output would
        // turn that into wrong values with a full-length total_out.
        let written = elements.min(u64::from(completion.total_out) * 8) as usize;
        let big_endian = job.flags.contains(Flags::OUT_BE);
        for (i, out) in dst.chunks_exact_mut(bytes).take(written).enumerate() {
            let bit = (bits[i / 8] >> (i % 8)) & 1;
            out.fill(0);
            out[if big_endian { bytes - 1 } else { 0 }] = bit;
        }
        completion.total_out = (written * bytes) as u32;
        completion.last_bit_offset = 0;
        completion
    }))
}

/// A decompress-enabled job (`docs/decompress.md`, DZ10–DZ12) on any route.
///
/// - Fallback: the fallback inflates and runs it.
/// - Software: QPL 1.6's software inflate loops forever on a page with fewer elements than the
///   job reads and on a cut stream, or crashes (DZ7), so the fallback runs the job first, with
///   checksums (which read the stream to its end); only a job it completes goes to QPL, with the gzip/zlib header removed (QPL's software analytics
///   read raw deflate only, DZ2), and the result reports the fallback's checksums of the whole
///   page (QPL's are not, DZ4). Jobs QPL gets wrong whatever the stream (Parquet with dropped
///   bytes, DZ8; expand, which QPL reads n source values for whatever the mask, §5.4) stay on
///   the CPU.
/// - Hardware: one descriptor, never split (a deflate stream cannot be cut at a byte
///   boundary): above the transfer limit the job runs on the CPU. A device refusal (a busy
///   or faulted device, or an inflate error, which on first-generation IAA is also how a
///   history window above 4 KB is refused) reruns the job on the CPU, which decides.
///
/// In every case `Output::path` names the path that produced the result.
pub(crate) fn run_decompress(
    executor: &Executor,
    route: Route,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<Output, Error> {
    if route == Route::Fallback {
        return executor.run_fallback(job, src1, src2, dst);
    }
    let requested = executor.config().path;
    let check =
        |status| Error::from_status(job.operation, requested, route.path(), Stage::Check, status);
    // The checks that need no inflating, in QPL's order, on every route.
    if qpl_fallback::validate(job, src1, src2, dst.len())
        .map_err(check)?
        .is_none()
    {
        return executor.run_fallback(job, src1, src2, dst);
    }
    let header = qpl_fallback::deflate_header_len(job.flags, src1).map_err(check)?;
    let raw_job = Job {
        flags: Flags(job.flags.0 & !(Flags::GZIP_MODE.0 | Flags::ZLIB_MODE.0)),
        ..*job
    };
    let raw = &src1[header..];
    match route {
        Route::Software => {
            // The fallback checks the whole stream first (with checksums, which need it to
            // its end): QPL gets only a stream that is whole, valid and long enough.
            let whole = Job {
                flags: Flags(job.flags.0 & !Flags::OMIT_CHECKSUMS.0),
                ..*job
            };
            let Ok(reference) = executor.run_fallback(&whole, src1, src2, dst) else {
                return executor.run_fallback(job, src1, src2, dst);
            };
            // QPL's expand reads up to n source values whatever the mask (§5.4): past the end
            // of a page holding only the popcount it loops or crashes (DZ7).
            let expand = job.operation == Operation::Expand;
            let parquet_drop = job.parser == Parser::PARQUET_RLE && job.drop_initial_bytes != 0;
            // QPL's software path refuses it (52, D15); the fallback implements it.
            let force_array = job.flags.contains(Flags::FORCE_ARRAY_OUTPUT);
            // QPL inflates step by step (16448, 8224 or 4112 elements by width) keeping at most
            // 4 KB of history (its documented limit, DZ13): distance errors on valid streams
            // with longer back-references and, on a valid page, a job that never returned
            // (random jobs, DIFF_SEED=7, case 4112). One step at most.
            let step_width = if job.parser == Parser::PARQUET_RLE {
                32
            } else {
                job.src1_bit_width
            };
            let step = match step_width {
                0..=8 => 16448,
                9..=16 => 8224,
                _ => 4112,
            };
            let multi_step = job.num_input_elements > step;
            if expand || parquet_drop || force_array || multi_step {
                return executor.run_fallback(job, src1, src2, dst);
            }
            match executor.run_on_slot(route, &raw_job, raw, src2, dst) {
                Some(Ok(mut completion)) => {
                    if !job.flags.contains(Flags::OMIT_CHECKSUMS) {
                        completion.crc = reference.completion.crc;
                        completion.xor_checksum = reference.completion.xor_checksum;
                    }
                    Ok(Output {
                        completion,
                        path: Path::Software,
                    })
                }
                Some(Err(status)) => Err(Error::from_status(
                    job.operation,
                    requested,
                    Path::Software,
                    Stage::Run,
                    status,
                )),
                // QPL could not take the job: the fallback's result stands (dst is rewritten).
                None => executor.run_fallback(job, src1, src2, dst),
            }
        }
        _ => {
            if raw.len() as u64 > executor.transfer_limit() {
                return executor.run_fallback(job, src1, src2, dst);
            }
            match executor.run_on_slot(route, &raw_job, raw, src2, dst) {
                Some(Ok(completion)) => {
                    // The device checksums the bytes it inflated (DZ4).
                    Ok(Output {
                        completion,
                        path: route.path(),
                    })
                }
                Some(Err(status)) if is_inflate_status(status) => {
                    executor.run_fallback(job, src1, src2, dst)
                }
                Some(Err(status)) => Err(Error::from_status(
                    job.operation,
                    requested,
                    route.path(),
                    Stage::Run,
                    status,
                )),
                None => executor.run_fallback(job, src1, src2, dst),
            }
        }
    }
}

/// The completion-record codes of the device's inflate (201–219, 230, 235, 236): the stream's
/// fault, or on IAA 1.0 a history window it cannot hold.
fn is_inflate_status(status: Status) -> bool {
    matches!(status.0, 201..=219 | 230 | 235 | 236)
}
