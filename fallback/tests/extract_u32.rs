//! Whole extracts into little-endian 32-bit arrays, the jobs whose values the fallback writes
//! straight into the destination (one kernel call per packed span, the Parquet hybrid
//! decoded in place, with or without aggregates): every parser and bit width, forced 0/1
//! arrays, destinations at every 4-byte position of a cache line (and unaligned), exact,
//! larger and too small, against the reference model in `common`, with guard bytes around
//! the destination.

mod common;

use common::{build_hybrid, check_against_at, gen_values, model, Rng};
use qpl_fallback::{
    encode_parquet_rle, pack_be, pack_le, Flags, Job, Operation, OutBitWidth, Parser,
};

/// Runs `job` with a destination of `dst_len` bytes starting `shift` bytes past a 64-byte
/// boundary, and checks the result, the bytes written and the guards against the model.
fn check_at(job: &Job, src1: &[u8], dst_len: usize, shift: usize) {
    check_against_at(
        job,
        src1,
        None,
        dst_len,
        Some(shift),
        model(job, src1, None, dst_len),
    );
}

/// The extract-everything job of `n` elements into a 32-bit array, with or without the
/// aggregates (value aggregates are computed in the kernels that write the destination; the
/// bit aggregates of a forced 0/1 array through the writer's blocks).
fn job(parser: Parser, width: u32, n: usize, aggregates: bool) -> Job {
    let mut flags = Flags::OMIT_CHECKSUMS;
    if !aggregates {
        flags |= Flags::OMIT_AGGREGATES;
    }
    if width == 1 {
        flags |= Flags::FORCE_ARRAY_OUTPUT;
    }
    Job {
        parser,
        src1_bit_width: width,
        num_input_elements: n as u32,
        param_low: 0,
        param_high: n as u32 - 1,
        out_bit_width: OutBitWidth::W32,
        flags,
        ..Job::new(Operation::Extract)
    }
}

/// Destination lengths: exact, larger, and one element or one byte short.
fn lengths(n: usize) -> [usize; 4] {
    [4 * n, 4 * n + 5, 4 * n - 4, 4 * n - 1]
}

#[test]
fn packed_arrays_at_every_width_length_and_alignment() {
    let mut rng = Rng(7);
    let shifts: Vec<usize> = (0..16).map(|k| 4 * k).chain([1, 2, 3]).collect();
    for width in 1..=32u32 {
        for n in [1usize, 7, 9, 16, 63, 65, 100, 1025, 2100] {
            let values = gen_values(&mut rng, width, n);
            for (parser, src1) in [
                (Parser::LE_PACKED, pack_le(&values, width).unwrap()),
                (Parser::BE_PACKED, pack_be(&values, width).unwrap()),
                (
                    Parser::PARQUET_RLE,
                    encode_parquet_rle(&values, width).unwrap(),
                ),
            ] {
                for aggregates in [false, true] {
                    let job = job(parser, width, n, aggregates);
                    for &shift in &shifts {
                        check_at(&job, &src1, 4 * n, shift);
                    }
                    for dst_len in lengths(n) {
                        check_at(&job, &src1, dst_len, 4);
                    }
                }
            }
        }
    }
}

#[test]
fn hand_built_parquet_streams_whole_cut_and_malformed() {
    let mut rng = Rng(11);
    for width in 1..=32u32 {
        for size in [5usize, 60, 700, 5000] {
            // Padded headers, zero-length runs, RLE values over the width (kept, or masked
            // to the 0/1 of a forced array at width 1).
            let built = build_hybrid(&mut rng, width, size, true);
            let n = size.min(built.values.len());
            let mut src1 = vec![width as u8];
            src1.extend(&built.body);
            let cut = 1 + rng.below(src1.len() as u64 - 1) as usize;
            let mut long_header = src1.clone();
            long_header.extend([0x81, 0x80, 0x80, 0x80, 0x00]);
            for src1 in [&src1[..], &src1[..cut], &long_header[..]] {
                for aggregates in [false, true] {
                    for n in [n, built.values.len() + 3] {
                        let job = job(Parser::PARQUET_RLE, width, n, aggregates);
                        for shift in [0, 4, 36, 2] {
                            check_at(&job, src1, 4 * n, shift);
                        }
                        check_at(&job, src1, 4 * n - 4, 0);
                    }
                }
            }
        }
    }
}
