//! Hostile inputs: random bytes and arbitrary job fields (execute must return, never write
//! outside the destination, and — where the model can follow — agree with the contract), huge
//! counts, malformed Parquet streams, truncations at every byte, decode_hybrid at every width.

mod common;

use std::time::{Duration, Instant};

use common::{build_hybrid, check, ref_decode_hybrid, run_guarded, Expected, Rng};
use proptest::prelude::*;
use qpl_fallback::{
    decode_hybrid, encode_hybrid, encode_parquet_rle, pack_be, pack_le, EncodeError, Flags, Job,
    Operation, OutBitWidth, Parser, Status,
};

/// Largest element count for which the (materialising) model is consulted.
const MODEL_LIMIT: u32 = 1 << 16;

/// A u32 that is sometimes anything, usually small or near an edge.
fn field() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..70,
        2 => 0u32..2000,
        1 => prop_oneof![Just(255u32), Just(256), Just(65_535), Just(65_536), Just(u32::MAX), Just(u32::MAX - 1)],
        2 => any::<u32>(),
    ]
}

fn flags() -> impl Strategy<Value = u32> {
    prop_oneof![
        5 => proptest::sample::subsequence(
            vec![0x4u32, 0x40, 0x80, 0x100, 0x4_0000, 0x10_0000, 0x20_0000, 0x80_0000],
            0..4,
        )
        .prop_map(|bits| bits.into_iter().fold(0, |a, b| a | b)),
        1 => any::<u32>(),
    ]
}

#[derive(Debug, Clone)]
struct Hostile {
    job: Job,
    src1: Vec<u8>,
    src2: Option<Vec<u8>>,
    dst_len: usize,
}

fn hostile() -> impl Strategy<Value = Hostile> {
    let fields = (
        0usize..11,
        0u32..4,
        prop_oneof![6 => 1u32..=32, 2 => 0u32..=33, 1 => any::<u32>()],
        prop_oneof![6 => Just(1u32), 1 => 0u32..3, 1 => any::<u32>()],
        field(),
        field(),
        field(),
        flags(),
        0u32..5,
        prop_oneof![3 => Just(0u32), 1 => field()],
        prop_oneof![3 => Just(0u32), 1 => field()],
    );
    let buffers = (
        proptest::collection::vec(any::<u8>(), 0..300),
        proptest::option::weighted(0.9, proptest::collection::vec(any::<u8>(), 0..80)),
        0usize..400,
        prop_oneof![Just(None), (1u8..=32).prop_map(Some)],
    );
    (fields, buffers).prop_map(|(f, b)| {
        let (op, parser, bw, bw2, n, low, high, flags, ow, drop, iidx) = f;
        let (mut src1, src2, dst_len, width_byte) = b;
        if let (Some(w), Some(first)) = (width_byte, src1.first_mut()) {
            *first = w;
        }
        Hostile {
            job: Job {
                operation: Operation::ALL[op],
                parser: Parser(parser),
                src1_bit_width: bw,
                src2_bit_width: bw2,
                num_input_elements: n,
                param_low: low,
                param_high: high,
                flags: Flags(flags),
                out_bit_width: OutBitWidth(ow),
                drop_initial_bytes: drop,
                initial_output_index: iidx,
            },
            src1,
            src2,
            dst_len,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Never panics, never writes outside dst, returns quickly; agrees with the model whenever
    /// the element count is small enough for it.
    #[test]
    fn random_jobs_and_bytes_are_handled(h in hostile()) {
        let start = Instant::now();
        let src2 = h.src2.as_deref();
        if h.job.num_input_elements <= MODEL_LIMIT
            && !h.job.flags.contains(Flags::DECOMPRESS_ENABLE)
        {
            check(&h.job, &h.src1, src2, h.dst_len);
        } else {
            // Too many elements for the model, or a deflate source it does not model: only
            // the guards and the time are checked.
            let _unchecked = run_guarded(&h.job, &h.src1, src2, h.dst_len);
        }
        prop_assert!(start.elapsed() < Duration::from_secs(2), "took {:?}", start.elapsed());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Valid streams cut at every byte: OK (same output) while the cut stream still holds the
    /// values wanted, else the reference decoder's error — through all four operations.
    #[test]
    fn truncated_streams_at_every_byte(
        bw in 1u32..=32,
        size in 1usize..80,
        own in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let (body, values) = if own {
            let b = build_hybrid(&mut rng, bw, size, true);
            (b.body, b.values)
        } else {
            let v = common::gen_values(&mut rng, bw, size);
            (encode_hybrid(&v, bw).unwrap(), v)
        };
        let n = size.min(values.len()) as u32;
        let mut full = vec![bw as u8];
        full.extend(&body);
        let mask = rng.bytes((n as usize).div_ceil(8));
        for cut in 1..=full.len() {
            let src = &full[..cut];
            let (_, short) = ref_decode_hybrid(&src[1..], bw, u64::from(n));
            for op in [Operation::ScanGe, Operation::Extract, Operation::Select, Operation::Expand] {
                let job = Job {
                    parser: Parser::PARQUET_RLE,
                    src2_bit_width: 1,
                    num_input_elements: n,
                    param_low: 1,
                    param_high: n,
                    out_bit_width: OutBitWidth::W32,
                    ..Job::new(op)
                };
                let src2 = op.uses_mask().then_some(&mask[..]);
                let e = check(&job, src, src2, 4 * n as usize + 4);
                if op != Operation::Expand {
                    // The reference says: short (or malformed) stream ⇔ error.
                    prop_assert_eq!(matches!(e, Expected::Done { .. }), short.is_none(), "cut {}", cut);
                }
            }
        }
        // Packed sources: cut at every byte, 232 exactly when fewer than ⌈n·bw/8⌉ bytes.
        let narrow: Vec<u32> = values[..n as usize].iter().map(|&v| v & common::width_mask(bw)).collect();
        let packed = pack_le(&narrow, bw).unwrap();
        for cut in 1..=packed.len() {
            let job = Job { src1_bit_width: bw, num_input_elements: n, param_low: 3, ..Job::new(Operation::ScanLt) };
            let e = check(&job, &packed[..cut], None, 1024);
            prop_assert_eq!(matches!(e, Expected::Done { .. }), cut == packed.len());
        }
    }

    /// decode_hybrid at every width 0..=33 on valid and random bodies agrees with the reference.
    #[test]
    fn decode_hybrid_at_every_width(
        bw in 0u32..=33,
        count in 0usize..300,
        random_body in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let body = if random_body || bw > 32 {
            let len = rng.below(64) as usize;
            rng.bytes(len)
        } else {
            let over_wide = rng.one_in(2);
            build_hybrid(&mut rng, bw, count, over_wide).body
        };
        let mut out = vec![0xDEAD_BEEF; count];
        let got = decode_hybrid(&body, bw, &mut out);
        if bw > 32 {
            prop_assert_eq!(got, Err(Status::BIT_WIDTH_ERR));
        } else {
            let (values, error) = ref_decode_hybrid(&body, bw, count as u64);
            match error {
                None => {
                    prop_assert_eq!(got, Ok(()));
                    prop_assert_eq!(&out, &values);
                }
                Some(e) => prop_assert_eq!(got, Err(e)),
            }
        }
    }
}

fn quick<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let r = f();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{what} took {:?}",
        start.elapsed()
    );
    r
}

#[test]
fn huge_element_counts_fail_quickly_with_tiny_buffers() {
    let src = [3u8, 0x08, 1, 0x03, 0xFF, 0xFF, 0xFF];
    let mask = [0xFFu8; 8];
    for op in Operation::ALL {
        for parser in [Parser::LE_PACKED, Parser::BE_PACKED, Parser::PARQUET_RLE] {
            for ow in 0..4 {
                let job = Job {
                    parser,
                    src1_bit_width: 3,
                    src2_bit_width: 1,
                    num_input_elements: u32::MAX,
                    param_high: u32::MAX,
                    out_bit_width: OutBitWidth(ow),
                    ..Job::new(op)
                };
                let (result, _) = quick("huge n", || run_guarded(&job, &src, Some(&mask), 64));
                assert!(result.is_err(), "{job:?}");
            }
        }
    }
}

#[test]
fn rle_run_of_2_pow_27_minus_1_with_n_max_is_short_quickly() {
    // (2^27 - 1) << 1 in 4 bytes, value 5, bw 3 — then the stream ends.
    let src = [3u8, 0xFE, 0xFF, 0xFF, 0x7F, 5];
    let base = Job {
        parser: Parser::PARQUET_RLE,
        num_input_elements: u32::MAX,
        ..Job::new(Operation::Extract)
    };
    let jobs = [
        // Extract of one element: the run goes by as one (value, count) pair.
        Job {
            param_low: 0,
            param_high: 0,
            ..base
        },
        Job {
            param_low: 0,
            param_high: 0,
            out_bit_width: OutBitWidth::W8,
            ..base
        },
        Job {
            param_low: 1 << 28,
            param_high: u32::MAX,
            ..base
        },
        // 32-bit index list of a scan with no match in the run.
        Job {
            operation: Operation::ScanEq,
            param_low: 4,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
        Job {
            operation: Operation::ScanGt,
            param_low: 5,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
    ];
    for job in jobs {
        let (result, _) = quick("2^27 run", || run_guarded(&job, &src, None, 16));
        assert_eq!(result, Err(Status::SRC_IS_SHORT_ERR), "{job:?}");
    }
    // A matching scan fills the small index destination first.
    let job = Job {
        operation: Operation::ScanEq,
        param_low: 5,
        out_bit_width: OutBitWidth::W32,
        ..base
    };
    let (result, _) = quick("2^27 run, matching", || run_guarded(&job, &src, None, 16));
    assert_eq!(result, Err(Status::DST_IS_SHORT_ERR));
    // Exactly 2^27 - 1 wanted: OK.
    let job = Job {
        num_input_elements: (1 << 27) - 1,
        param_low: 0,
        param_high: 2,
        out_bit_width: OutBitWidth::W8,
        ..base
    };
    let (result, buf) = quick("2^27 run, exact", || run_guarded(&job, &src, None, 16));
    assert_eq!(result.map(|c| c.total_out), Ok(3));
    assert_eq!(&buf[common::GUARD..common::GUARD + 3], [5, 5, 5]);
}

#[test]
fn bit_packed_header_of_2_pow_27_minus_1_groups_with_few_bytes_is_short() {
    let src = [3u8, 0xFF, 0xFF, 0xFF, 0x7F, 0x88, 0xC6, 0xFA, 0x11];
    for n in [9, 1000, u32::MAX] {
        let job = Job {
            parser: Parser::PARQUET_RLE,
            num_input_elements: n,
            param_low: 0,
            ..Job::new(Operation::ScanEq)
        };
        let (result, _) = quick("bit-packed 2^27", || {
            run_guarded(
                &Job {
                    out_bit_width: OutBitWidth::W32,
                    ..job
                },
                &src,
                None,
                64,
            )
        });
        assert_eq!(result, Err(Status::SRC_IS_SHORT_ERR), "n {n}");
    }
    // The groups that are present serve a small n (D7).
    let job = Job {
        parser: Parser::PARQUET_RLE,
        num_input_elements: 8,
        param_high: 7,
        out_bit_width: OutBitWidth::W8,
        ..Job::new(Operation::Extract)
    };
    let (result, buf) = run_guarded(&job, &src, None, 8);
    assert!(result.is_ok());
    assert_eq!(
        &buf[common::GUARD..common::GUARD + 8],
        [0, 1, 2, 3, 4, 5, 6, 7]
    );
}

#[test]
fn five_byte_varints_are_220_for_every_operation() {
    let mask = [0xFFu8; 2];
    for header in [
        [0x82u8, 0x80, 0x80, 0x80, 0x00],
        [0x83, 0x80, 0x80, 0x80, 0x00],
        [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
    ] {
        // After one good run, so the long header is met mid-stream.
        let mut src = vec![3u8, 0x02, 1];
        src.extend(header);
        src.extend([5, 5, 5, 5]);
        for op in Operation::ALL {
            let job = Job {
                parser: Parser::PARQUET_RLE,
                src2_bit_width: 1,
                num_input_elements: 9,
                param_high: 8,
                ..Job::new(op)
            };
            let (result, _) = run_guarded(&job, &src, Some(&mask), 64);
            assert_eq!(result, Err(Status::PRLE_FORMAT_ERR), "{op} {header:?}");
        }
    }
}

#[test]
fn widths_0_and_33_are_231() {
    let mask = [0xFFu8; 2];
    for op in Operation::ALL {
        for width in [0u32, 33, 64, 255] {
            let base = Job {
                src2_bit_width: 1,
                num_input_elements: 4,
                param_high: 3,
                ..Job::new(op)
            };
            let packed = Job {
                src1_bit_width: width,
                ..base
            };
            assert_eq!(
                run_guarded(&packed, &[0; 8], Some(&mask), 64).0,
                Err(Status::BIT_WIDTH_ERR)
            );
            let pq = Job {
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 3,
                ..base
            };
            let src = [width as u8, 0x08, 0, 0, 0, 0];
            assert_eq!(
                run_guarded(&pq, &src, Some(&mask), 64).0,
                Err(Status::BIT_WIDTH_ERR),
                "{op} {width}"
            );
        }
    }
    let mut out = [0u32; 4];
    assert_eq!(
        decode_hybrid(&[0x08, 0, 0, 0, 0], 33, &mut out),
        Err(Status::BIT_WIDTH_ERR)
    );
    assert_eq!(decode_hybrid(&[0x08], 0, &mut out), Ok(()));
    assert_eq!(out, [0; 4]);
}

#[test]
fn encoders_reject_what_they_cannot_encode() {
    assert_eq!(pack_le(&[1], 0), Err(EncodeError::BitWidth(0)));
    assert_eq!(pack_be(&[1], 33), Err(EncodeError::BitWidth(33)));
    assert_eq!(encode_hybrid(&[1], 33), Err(EncodeError::BitWidth(33)));
    assert_eq!(encode_parquet_rle(&[0], 0), Err(EncodeError::BitWidth(0)));
    assert_eq!(
        pack_le(&[0, 4], 2),
        Err(EncodeError::ValueTooWide { index: 1, value: 4 })
    );
    assert_eq!(
        encode_hybrid(&[1], 0),
        Err(EncodeError::ValueTooWide { index: 0, value: 1 })
    );
}

#[test]
fn model_and_execute_agree_on_a_malformed_stream_mix() {
    // Over-wide values, padded headers, zero runs, a 4-byte-limit violation at the very end
    // (after the wanted values): OK; one more value wanted: 220.
    let mut src = vec![5u8, 0x82, 0x80, 0x80, 0x00, 0xFF, 0x00, 0x07, 0x01, 0x03];
    src.extend(pack_le(&[1, 2, 3, 4, 5, 6, 7, 8], 5).unwrap());
    src.extend([0x82, 0x80, 0x80, 0x80, 0x00, 9]);
    for n in [9u32, 10] {
        for op in Operation::ALL {
            let job = Job {
                parser: Parser::PARQUET_RLE,
                src2_bit_width: 1,
                num_input_elements: n,
                param_high: 20,
                out_bit_width: OutBitWidth::W8,
                ..Job::new(op)
            };
            let e = check(&job, &src, Some(&[0xFF, 0xFF]), 64);
            if n == 10 {
                assert_eq!(
                    e,
                    Expected::Failed {
                        status: Status::PRLE_FORMAT_ERR,
                        alt: None
                    },
                    "{op}"
                );
            } else {
                assert!(matches!(e, Expected::Done { .. }), "{op}");
            }
        }
    }
}
