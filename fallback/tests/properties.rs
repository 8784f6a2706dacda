//! Property tests: random bit widths, values with random run structure, every parser, every
//! operation and every output format, compared field by field (and byte by byte) with the
//! reference model in `common`.

mod common;

use common::{build_hybrid, check, check_against, gen_values, model, Expected, Rng};
use proptest::prelude::*;
use qpl_fallback::{
    decode_hybrid, encode_hybrid, encode_parquet_rle, pack_be, pack_le, Flags, Job, Operation,
    OutBitWidth, Parser, Status,
};

/// Source-1 for `values` under `parser`, with `drop` junk bytes in front of the data (after the
/// bit-width byte for Parquet) and `trail` junk bytes after it.
fn encode_source(
    rng: &mut Rng,
    parser: Parser,
    values: &[u32],
    bw: u32,
    drop: usize,
    trail: usize,
) -> Vec<u8> {
    let body = match parser {
        Parser::LE_PACKED => pack_le(values, bw).unwrap(),
        Parser::BE_PACKED => pack_be(values, bw).unwrap(),
        _ => encode_parquet_rle(values, bw).unwrap(),
    };
    let mut out = Vec::with_capacity(body.len() + drop + trail);
    if parser == Parser::PARQUET_RLE {
        out.push(body[0]);
        out.extend(rng.bytes(drop));
        out.extend(&body[1..]);
    } else {
        out.extend(rng.bytes(drop));
        out.extend(&body);
    }
    out.extend(rng.bytes(trail));
    out
}

/// A random mask of `n` bits plus `spare` bytes, with a random density.
fn gen_mask(rng: &mut Rng, n: usize, spare: usize) -> Vec<u8> {
    let len = n.div_ceil(8) + spare;
    match rng.below(5) {
        0 => vec![0xFF; len],
        1 => vec![0; len],
        2 => (0..len)
            .map(|_| {
                if rng.one_in(16) {
                    rng.next_u32() as u8
                } else {
                    0
                }
            })
            .collect(),
        _ => rng.bytes(len),
    }
}

fn scan_param(rng: &mut Rng, values: &[u32], bw: u32) -> u32 {
    match rng.below(4) {
        // A value that occurs, sometimes with garbage above the bit width (masked, §5.1).
        0 | 1 => {
            let v = values[rng.below(values.len() as u64) as usize];
            if bw < 32 && rng.one_in(3) {
                v | (rng.next_u32() << bw)
            } else {
                v
            }
        }
        2 => rng.next_u32(),
        _ => [0, 1, u32::MAX, common::width_mask(bw)][rng.below(4) as usize],
    }
}

fn initial_index(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0..=2 => 0,
        3 => rng.below(300) as u32,
        4 => 65_400 + rng.below(200) as u32,
        _ => u32::MAX - rng.below(70_000) as u32,
    }
}

fn random_flags(rng: &mut Rng) -> Flags {
    let mut flags = Flags::NONE;
    for flag in [
        Flags::OMIT_AGGREGATES,
        Flags::OMIT_CHECKSUMS,
        Flags::CRC32C,
        Flags::SRC2_BE,
        Flags::INV_OUT,
    ] {
        if rng.one_in(3) {
            flags |= flag;
        }
    }
    flags
}

/// Runs `job` twice through the model (to size the destination) and once through `execute`,
/// with a destination that is exact, larger, or too small.
fn run_case(rng: &mut Rng, job: &Job, src1: &[u8], src2: Option<&[u8]>) -> Expected {
    let unbounded = model(job, src1, src2, 1 << 30);
    let (dst_len, same) = match &unbounded {
        Expected::Done { out, .. } => {
            let needed = out.len().max(1);
            match rng.below(6) {
                0 if needed > 1 => (1 + rng.below(needed as u64 - 1) as usize, false),
                1 if needed > 1 => (needed - 1, false),
                2 => (needed + 1 + rng.below(9) as usize, true),
                _ => (needed, true),
            }
        }
        _ => (1 + rng.below(64) as usize, false),
    };
    if same {
        check_against(job, src1, src2, dst_len, unbounded)
    } else {
        check(job, src1, src2, dst_len)
    }
}

/// Every output format: nominal, 8/16/32 (LE and BE), forced arrays.
fn formats() -> Vec<(OutBitWidth, Flags)> {
    let mut all = Vec::new();
    for ow in 0..4 {
        for be in [Flags::NONE, Flags::OUT_BE] {
            all.push((OutBitWidth(ow), be));
            if ow != 0 {
                all.push((OutBitWidth(ow), be | Flags::FORCE_ARRAY_OUTPUT));
            }
        }
    }
    all
}

/// Every operation with every format over one source (or a random subset when `sample`).
fn all_operations(
    rng: &mut Rng,
    parser: Parser,
    bw: u32,
    values: &[u32],
    n: usize,
    sample: bool,
) -> Counts {
    let mut counts = Counts::default();
    // Scan/extract may drop a prologue; select/expand must not (75).
    let drop = if rng.one_in(3) {
        rng.below(5) as usize
    } else {
        0
    };
    let trail = if rng.one_in(3) {
        rng.below(4) as usize
    } else {
        0
    };
    let src_dropped = encode_source(rng, parser, values, bw, drop, trail);
    let src_plain = encode_source(rng, parser, values, bw, 0, trail);
    let spare = if rng.one_in(3) {
        rng.below(40) as usize
    } else {
        0
    };
    let mask = gen_mask(rng, n, spare);
    let formats = formats();
    for op in Operation::ALL {
        let chosen: Vec<_> = if sample {
            (0..3)
                .map(|_| formats[rng.below(formats.len() as u64) as usize])
                .collect()
        } else {
            formats.clone()
        };
        for (ow, out_flags) in chosen {
            let mut job = Job {
                parser,
                src1_bit_width: if parser == Parser::PARQUET_RLE && rng.one_in(2) {
                    rng.below(40) as u32
                } else {
                    bw
                },
                num_input_elements: n as u32,
                out_bit_width: ow,
                flags: random_flags(rng) | out_flags,
                ..Job::new(op)
            };
            let (src1, src2): (Vec<u8>, Option<&[u8]>) = if op.uses_mask() {
                job.src2_bit_width = 1;
                let mut src1 = src_plain.clone();
                if op == Operation::Expand && parser != Parser::PARQUET_RLE && rng.one_in(4) {
                    // D12: expand needs only ⌈popcount·bw/8⌉ bytes (sometimes one less).
                    let be = job.flags.contains(Flags::SRC2_BE);
                    let ones = (0..n).filter(|&i| common::mask_bit(&mask, i, be)).count();
                    let need = (ones * bw as usize).div_ceil(8);
                    src1.truncate(need.saturating_sub(usize::from(rng.one_in(3))).max(1));
                }
                (src1, Some(&mask[..]))
            } else {
                job.drop_initial_bytes = drop as u32;
                job.initial_output_index = initial_index(rng);
                if op == Operation::Extract {
                    let low = rng.below(n as u64 + 3) as u32;
                    job.param_low = low;
                    job.param_high = match rng.below(5) {
                        0 => u32::MAX,
                        1 => low.saturating_sub(1 + rng.below(3) as u32),
                        _ => low + rng.below(n as u64 + 2) as u32,
                    };
                } else {
                    job.param_low = scan_param(rng, values, bw);
                    job.param_high = scan_param(rng, values, bw);
                }
                (src_dropped.clone(), None)
            };
            counts.add(&run_case(rng, &job, &src1, src2));
        }
    }
    counts
}

#[derive(Default, Debug)]
struct Counts {
    ok: usize,
    dst_short: usize,
    overflow: usize,
    other: usize,
}

impl Counts {
    fn add(&mut self, e: &Expected) {
        match e {
            Expected::Done { .. } | Expected::Early => self.ok += 1,
            Expected::Failed { status, .. } if *status == Status::DST_IS_SHORT_ERR => {
                self.dst_short += 1
            }
            Expected::Failed { status, .. } if *status == Status::OUTPUT_OVERFLOW_ERR => {
                self.overflow += 1
            }
            Expected::Failed { .. } => self.other += 1,
        }
    }
}

fn size_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![
        8 => 1usize..64,
        6 => 64usize..700,
        3 => 700usize..3000,
        1 => 16_440usize..17_000,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The crate's encoders, every operation × output format, against the model.
    #[test]
    fn every_operation_and_format_matches_the_model(
        bw in 1u32..=32,
        parser in 0u32..3,
        size in size_strategy(),
        extra in 0usize..20,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let parser = Parser(parser);
        // Packed sources hold exactly n values (or a few more); Parquet streams may hold more.
        let values = gen_values(&mut rng, bw, size + extra);
        let n = size;
        let counts = all_operations(&mut rng, parser, bw, &values, n, size > 1000);
        // The run must exercise successes; errors are spread over cases.
        prop_assert!(counts.ok > 0, "{counts:?}");
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Independently built Parquet streams: padded headers, zero-length runs, over-wide RLE
    /// values, long runs — through every operation with random formats.
    #[test]
    fn hand_built_parquet_streams_match_the_model(
        bw in 1u32..=32,
        size in size_strategy(),
        over_wide in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let built = build_hybrid(&mut rng, bw, size, over_wide);
        let n = size.min(built.values.len());
        let mut src1 = vec![bw as u8];
        src1.extend(&built.body);
        let spare = rng.below(3) as usize;
        let mask = gen_mask(&mut rng, n, spare);
        let formats = formats();
        for op in Operation::ALL {
            for _ in 0..3 {
                let (ow, out_flags) = formats[rng.below(formats.len() as u64) as usize];
                let mut job = Job {
                    parser: Parser::PARQUET_RLE,
                    src1_bit_width: rng.below(2) as u32,
                    num_input_elements: n as u32,
                    out_bit_width: ow,
                    flags: random_flags(&mut rng) | out_flags,
                    ..Job::new(op)
                };
                if op.uses_mask() {
                    job.src2_bit_width = 1;
                } else if op == Operation::Extract {
                    job.param_low = rng.below(n as u64 + 1) as u32;
                    job.param_high = job.param_low + rng.below(n as u64 + 1) as u32;
                    job.initial_output_index = initial_index(&mut rng);
                } else {
                    job.param_low = scan_param(&mut rng, &built.values, bw);
                    job.param_high = scan_param(&mut rng, &built.values, bw);
                    job.initial_output_index = initial_index(&mut rng);
                }
                let src2 = op.uses_mask().then_some(&mask[..]);
                run_case(&mut rng, &job, &src1, src2);
            }
        }
        // decode_hybrid agrees with the reference decoder on the same body.
        let mut out = vec![0u32; n];
        prop_assert_eq!(decode_hybrid(&built.body, bw, &mut out), Ok(()));
        prop_assert_eq!(&out[..], &built.values[..n]);
    }

    /// The crate's hybrid encoder round-trips through the reference decoder (widths 0..=32).
    #[test]
    fn encode_hybrid_round_trips_through_the_reference_decoder(
        bw in 0u32..=32,
        size in 0usize..3000,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let values = if bw == 0 { vec![0; size] } else { gen_values(&mut rng, bw, size) };
        let body = encode_hybrid(&values, bw).unwrap();
        let (decoded, error) = common::ref_decode_hybrid(&body, bw, size as u64);
        prop_assert_eq!(error, None);
        prop_assert_eq!(&decoded, &values);
        let mut out = vec![u32::MAX; size];
        prop_assert_eq!(decode_hybrid(&body, bw, &mut out), Ok(()));
        prop_assert_eq!(&out, &values);
        // One more value than the stream can hold past its padding is short.
        let (_, error) = common::ref_decode_hybrid(&body, bw, size as u64 + 8);
        prop_assert_eq!(error, Some(Status::SRC_IS_SHORT_ERR));
    }
}
