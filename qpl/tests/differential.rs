//! Differential tests: every job runs through QPL's software path (through the safe wrapper,
//! `Executor::new(Path::Software)`) and through the fallback (`qpl_fallback::execute`), and the
//! status, every `Completion` field and the output bytes `[..total_out]` are compared.
//!
//! Where they differ, the difference must be one of the known divergences of
//! `docs/semantics.md` (the decisions D1–D21, with the measured behaviour behind them), each
//! named by `qpl_difftest::known_divergence` with a predicate as narrow as the measured
//! behaviour; anything else fails the test with the job printed in full. The machinery (cases,
//! the generator, the predicates) lives in the `qpl-difftest` crate (`difftest/`), shared with
//! the `differential` fuzz target.

/// Without QPL the comparisons cannot run, and a passing test would claim they did: this one
/// is ignored, so that `cargo test` lists its name and reason in its normal output
/// (`test qpl_comparisons_skipped_qpl_not_linked ... ignored, QPL not linked: …`). Run anyway
/// (`--ignored`), it fails: there is no QPL to compare with.
#[cfg(not(qpl_linked))]
#[test]
#[ignore = "QPL not linked: the comparisons with QPL's software path did not run (install QPL, README section QPL)"]
fn qpl_comparisons_skipped_qpl_not_linked() {
    const { assert!(!qpl_rs::QPL_LINKED) };
    panic!("QPL not linked: the differential tests against QPL's software path were not built");
}

#[cfg(qpl_linked)]
mod linked {
    use qpl_difftest::{
        agree, compare, describe, gen_case, gen_decompress_case, run_fallback, run_software,
        width_mask, Case, Choices, Rng, Tally, Verdict,
    };
    use qpl_fallback::write_run_header;
    use qpl_rs::{
        encode_parquet_rle, pack_be, pack_le, Executor, Flags, Job, Operation, OutBitWidth, Parser,
        Path, Status,
    };

    // ---------------------------------------------------------------------------------------
    // Tests.

    #[test]
    fn differential_mode_is_announced() {
        const { assert!(qpl_rs::QPL_LINKED) };
        eprintln!(
            "QPL linked (version {}): differential tests against QPL's software path run",
            qpl_difftest::qpl_version().unwrap_or("unknown")
        );
    }

    /// Runs `case` on both paths and requires them to agree exactly: no divergence excused.
    fn assert_identical(label: &str, case: &Case) {
        let sw = run_software(case);
        let fb = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
        assert!(
            matches!(&sw.result, Ok(out) if out.path == Path::Software),
            "{label}: did not run on QPL\n{}",
            describe(case, &sw, &fb)
        );
        assert!(
            agree(&sw, &fb),
            "{label}: QPL and the fallback differ\n{}",
            describe(case, &sw, &fb)
        );
    }

    /// The seeds' golden vectors: values 0..7 at width 3, LE and BE packed, and the Parquet
    /// stream `[3, 0x03, 0x88, 0xC6, 0xFA]` (one bit-packed group of 0..7). Select and expand
    /// omit aggregates (D16: QPL's byte-based aggregates differ by design).
    #[test]
    fn golden_vectors_agree_exactly() {
        let values: Vec<u32> = (0..8).collect();
        let le = pack_le(&values, 3).unwrap();
        let be = pack_be(&values, 3).unwrap();
        assert_eq!(le, [0x88, 0xC6, 0xFA]);
        assert_eq!(be, [0x05, 0x39, 0x77]);
        let parquet = vec![3u8, 0x03, 0x88, 0xC6, 0xFA];
        let streams = [
            (Parser::LE_PACKED, le),
            (Parser::BE_PACKED, be),
            (Parser::PARQUET_RLE, parquet),
        ];
        let mask = vec![0b1010_0110u8];
        for (parser, src1) in streams {
            for op in Operation::ALL {
                for ow in 0..=3 {
                    for flags in [Flags::NONE, Flags::OUT_BE | Flags::CRC32C, Flags::SRC2_BE] {
                        let mut flags = flags;
                        if op.uses_mask() {
                            flags |= Flags::OMIT_AGGREGATES;
                        }
                        let job = Job {
                            parser,
                            src1_bit_width: 3,
                            src2_bit_width: 1,
                            num_input_elements: 8,
                            param_low: if op == Operation::Extract { 1 } else { 3 },
                            param_high: if op == Operation::Extract { 6 } else { 5 },
                            flags,
                            out_bit_width: OutBitWidth(ow),
                            ..Job::new(op)
                        };
                        let case = Case {
                            job,
                            src1: src1.clone(),
                            src2: op.uses_mask().then(|| mask.clone()),
                            dst_len: 64,
                        };
                        assert_identical(&format!("golden {parser:?} {op} ow {ow}"), &case);
                    }
                }
            }
        }
        // The golden outputs themselves.
        let job = Job {
            parser: Parser::PARQUET_RLE,
            num_input_elements: 8,
            param_low: 0,
            param_high: 7,
            out_bit_width: OutBitWidth::W8,
            ..Job::new(Operation::Extract)
        };
        let stream = [3u8, 0x03, 0x88, 0xC6, 0xFA];
        let mut dst = [0u8; 8];
        let out = Executor::new(Path::Software)
            .run(&job, &stream, None, &mut dst)
            .unwrap();
        assert_eq!(out.completion.total_out, 8);
        assert_eq!(dst, [0, 1, 2, 3, 4, 5, 6, 7]);
    }

    /// Scans of 100 000 elements at widths 1, 8, 13 and 32 agree exactly. n = 100 000 leaves a
    /// last step of 1312 elements at every width (100 000 − 6·16448 = 100 000 − 12·8224 =
    /// 100 000 − 24·4112), not a multiple of 64, and about half the elements match in every
    /// step: D16's 64-multiple bug cannot trigger, so nothing is excused.
    #[test]
    fn large_scans_agree_exactly() {
        let n = 100_000usize;
        for bw in [1u32, 8, 13, 32] {
            let mut rng = Rng::new(u64::from(bw));
            let values: Vec<u32> = (0..n).map(|_| rng.word() & width_mask(bw)).collect();
            let half = width_mask(bw) / 2;
            for (parser, src1) in [
                (Parser::LE_PACKED, pack_le(&values, bw).unwrap()),
                (Parser::BE_PACKED, pack_be(&values, bw).unwrap()),
                (
                    Parser::PARQUET_RLE,
                    encode_parquet_rle(&values, bw).unwrap(),
                ),
            ] {
                for (op, low, high, ow) in [
                    (Operation::ScanLe, half, 0, OutBitWidth::NOMINAL),
                    (
                        Operation::ScanRange,
                        half / 2,
                        half + half / 2,
                        OutBitWidth::NOMINAL,
                    ),
                    (Operation::ScanGt, half, 0, OutBitWidth::W32),
                ] {
                    let job = Job {
                        parser,
                        src1_bit_width: bw,
                        num_input_elements: n as u32,
                        param_low: low,
                        param_high: high,
                        out_bit_width: ow,
                        ..Job::new(op)
                    };
                    let case = Case {
                        job,
                        src1: src1.clone(),
                        src2: None,
                        dst_len: n * 4,
                    };
                    assert_identical(
                        &format!("scan of 100 000, bw {bw}, {parser:?}, {op}"),
                        &case,
                    );
                }
            }
        }
    }

    #[test]
    fn random_jobs_agree_or_diverge_by_name() {
        let cases: u64 = std::env::var("DIFF_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(12000);
        let seed: u64 = std::env::var("DIFF_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0x51AB_1E5E_ED00);
        let mut tally = Tally::default();
        for i in 0..cases {
            let case = random_case(seed, i);
            tally.check(&format!("case {i} (seed {seed} + {i})"), &case);
        }
        tally.finish("random jobs");
    }

    /// Decompress-enabled jobs (docs/decompress.md): `gen_decompress_case`'s jobs, as many as
    /// `DIFF_DECOMPRESS_CASES` says (default 400; the run was 20,000), from
    /// `DIFF_SEED`. QPL's software path loops forever or crashes on short or cut streams
    /// (DZ7), so the wrapper runs such jobs on QPL only after the fallback completed them
    /// (DZ10): what is compared is QPL's analytics on the streams it can take, and the
    /// wrapper's statuses on the others.
    #[test]
    fn random_decompress_jobs_agree_or_diverge_by_name() {
        let cases: u64 = std::env::var("DIFF_DECOMPRESS_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        let seed: u64 = std::env::var("DIFF_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0x51AB_1E5E_ED00);
        let mut tally = Tally::default();
        for i in 0..cases {
            let case =
                gen_decompress_case(&mut Rng::new(seed.wrapping_mul(1_000_033).wrapping_add(i)));
            if std::env::var_os("DIFF_TRACE").is_some() {
                // Before the run: a job that never returns is named.
                eprintln!("decompress case {i}:\n{}", qpl_difftest::hex(&case.src1));
                eprintln!(
                    "  {:?} dst_len {} src2 {:?}",
                    case.job,
                    case.dst_len,
                    case.src2.as_ref().map(|m| qpl_difftest::hex(m))
                );
            }
            tally.check(&format!("decompress case {i} (seed {seed} + {i})"), &case);
        }
        tally.finish("random decompress jobs");
    }

    /// Case `i` of the random jobs with `DIFF_SEED=seed`.
    fn random_case(seed: u64, i: u64) -> Case {
        gen_case(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)))
    }

    /// Findings of the random jobs with other seeds, where QPL's output is shorter or longer
    /// than the fallback's:
    /// - D5 (over-wide RLE values spill into a nominal packed output) together with D10
    ///   (Parquet select drops a tail: seed 122, case 1537, width 20, n 32861) or D11
    ///   (Parquet expand overshoots n: seed 123, case 6360, width 6, n 2870, OUT_BE). Each
    ///   was excused alone; together, the tail or overshoot check wanted equal bytes and the
    ///   D5 check equal lengths.
    /// - D10 with FORCE_ARRAY_OUTPUT (seed 239, case 4927: select of 32836 1-bit elements to
    ///   u32, 16425 kept by QPL): the wrapper widens the whole bytes of QPL's bit vector, so
    ///   QPL's array ends with zero elements up to a multiple of 8 (16432).
    ///
    /// The cases come from the generator; the job's shape is checked first, so that a change
    /// to the generator shows here instead of silently testing another job.
    #[test]
    fn random_findings_with_another_output_length() {
        for (seed, i, operation, parser, n, id) in [
            (
                122,
                1537,
                Operation::Select,
                Parser::PARQUET_RLE,
                32861,
                "D10",
            ),
            (
                123,
                6360,
                Operation::Expand,
                Parser::PARQUET_RLE,
                2870,
                "D11",
            ),
            (
                239,
                4927,
                Operation::Select,
                Parser::LE_PACKED,
                32836,
                "D10",
            ),
        ] {
            let case = random_case(seed, i);
            let label = format!("seed {seed}, case {i}");
            let shape = (
                case.job.operation,
                case.job.parser,
                case.job.num_input_elements,
            );
            assert_eq!(
                shape,
                (operation, parser, n),
                "{label}: the generator changed"
            );
            let comparison = compare(&case);
            let details = describe(&case, &comparison.software, &comparison.fallback);
            let lengths = (
                comparison
                    .software
                    .result
                    .as_ref()
                    .map(|out| out.completion.total_out),
                comparison.fallback.result.map(|c| c.total_out),
            );
            assert!(
                matches!(lengths, (Ok(a), Ok(b)) if a != b),
                "{label}: QPL's output has another length\n{details}"
            );
            assert_eq!(
                comparison.verdict,
                Verdict::Excused(id),
                "{label}\n{details}"
            );
        }
    }

    // ---------------------------------------------------------------------------------------
    // Findings of the `differential` fuzz target, each kept as a regression test.

    /// Runs `case` on both paths and requires the difference to be excused as `id`, with the
    /// statuses given (`None`: success): the divergence is still there and still named.
    fn assert_excused(
        label: &str,
        case: &Case,
        id: &'static str,
        software: Option<Status>,
        fallback: Option<Status>,
    ) {
        let comparison = compare(case);
        let details = describe(case, &comparison.software, &comparison.fallback);
        assert_eq!(
            comparison.software.result.as_ref().err().map(|e| e.status),
            software,
            "{label}: QPL's status\n{details}"
        );
        assert_eq!(
            comparison.fallback.result.err(),
            fallback,
            "{label}: the fallback's status\n{details}"
        );
        assert_eq!(
            comparison.verdict,
            Verdict::Excused(id),
            "{label}: verdict\n{details}"
        );
    }

    /// Runs `case` on both paths for a regression test pinning a QPL bug that only some of
    /// QPL's kernel families have: its AVX-512 kernels show the bugs named `id` here (QPL
    /// with the `software` status, the difference excused as `id`), its generic ("px")
    /// kernels, which QPL runs on a CPU without AVX-512, agree with the fallback. Either is
    /// accepted; the fallback's status must be `fallback` in both, and any other outcome
    /// fails.
    fn assert_bug_or_agreement(
        label: &str,
        case: &Case,
        id: &'static str,
        software: Option<Status>,
        fallback: Option<Status>,
    ) {
        let comparison = compare(case);
        if comparison.verdict == Verdict::Identical {
            let details = describe(case, &comparison.software, &comparison.fallback);
            assert_eq!(
                comparison.fallback.result.err(),
                fallback,
                "{label}: the fallback's status\n{details}"
            );
        } else {
            assert_excused(label, case, id, software, fallback);
        }
    }

    /// A Parquet stream of width 1 made of `groups` bit-packed runs of one group of zeros.
    fn zero_groups(groups: usize) -> Vec<u8> {
        let mut stream = vec![1u8];
        for _ in 0..groups {
            stream.extend([0x03, 0x00]);
        }
        stream
    }

    /// A job over a Parquet stream of width 1 whose ignored `src1_bit_width` field is 5 (so
    /// no §3 index pre-check applies), to an index list of `out_bit_width`.
    fn index_list_job(operation: Operation, n: u32, out_bit_width: OutBitWidth) -> Job {
        Job {
            parser: Parser::PARQUET_RLE,
            src1_bit_width: 5,
            src2_bit_width: 1,
            num_input_elements: n,
            out_bit_width,
            ..Job::new(operation)
        }
    }

    /// NEW-Q3, as the fuzz target found it: extract of elements 611..=1209 from a Parquet
    /// stream of width 1 to an 8-bit index list. All values are 0, so no index is written and
    /// the fallback succeeds; QPL fails with 221 because the 599 elements' indices would pass
    /// 255. The same job with 256 elements agrees exactly. Select and expand (to a 16-bit
    /// list, with a step starting past 65535) do the same. QPL's generic ("px") kernels, run
    /// on a CPU without AVX-512, have no NEW-Q3: there all four agree with the fallback.
    #[test]
    fn fuzz_finding_index_range_past_max_is_new_q3() {
        const NEW_Q3: &str = "NEW-Q3 index list range past the width's max";
        let overflow = Some(Status::OUTPUT_OVERFLOW_ERR);
        let found = Case {
            job: Job {
                param_low: 611,
                param_high: 1209,
                flags: Flags::OUT_BE | Flags::CRC32C,
                ..index_list_job(Operation::Extract, 1210, OutBitWidth::W8)
            },
            src1: zero_groups(152),
            src2: None,
            dst_len: 1,
        };
        assert_bug_or_agreement("fuzz finding", &found, NEW_Q3, overflow, None);
        let fits = Case {
            job: Job {
                param_low: 0,
                param_high: 255,
                ..index_list_job(Operation::Extract, 256, OutBitWidth::W8)
            },
            src1: zero_groups(32),
            src2: None,
            dst_len: 1,
        };
        assert_identical("256 elements", &fits);
        let select = Case {
            job: index_list_job(Operation::Select, 300, OutBitWidth::W8),
            src1: zero_groups(38),
            src2: Some(vec![0xFF; 38]),
            dst_len: 64,
        };
        assert_bug_or_agreement("select of 300", &select, NEW_Q3, overflow, None);
        let n: usize = 65537;
        let expand = Case {
            job: index_list_job(Operation::Expand, n as u32, OutBitWidth::W16),
            src1: zero_groups(n.div_ceil(8)),
            src2: Some(vec![0xFF; n.div_ceil(8)]),
            dst_len: 64,
        };
        assert_bug_or_agreement("expand of 65537 to u16", &expand, NEW_Q3, overflow, None);
    }

    /// NEW-Q3 behind a short stream, as the fuzz target found it: an RLE run of 21 089 zeros
    /// and 1555 bit-packed groups of zeros, one value short of n = 33 530, extracted to an
    /// 8-bit index list. QPL fails with 221 (its index check passes the width's max before it
    /// reaches the stream's end); the fallback reports the short stream (232). With the whole
    /// stream it is NEW-Q3 proper. (AVX-512 kernels only: QPL's px kernels agree, 232 / OK.)
    #[test]
    fn fuzz_finding_index_range_past_max_before_a_short_stream_is_new_q3() {
        const NEW_Q3: &str = "NEW-Q3 index list range past the width's max";
        let overflow = Some(Status::OUTPUT_OVERFLOW_ERR);
        // A header of 3 bytes: run of 21 089 (LEB128 of 21 089 << 1), value byte 0.
        let mut src1 = vec![1u8, 0xC2, 0xC9, 0x02, 0x00];
        src1.extend(zero_groups(1555).into_iter().skip(1));
        let held = 21_089 + 8 * 1555;
        let case = |n: u32| Case {
            job: Job {
                param_high: u32::MAX,
                ..index_list_job(Operation::Extract, n, OutBitWidth::W8)
            },
            src1: src1.clone(),
            src2: None,
            dst_len: 64,
        };
        let short = Some(Status::SRC_IS_SHORT_ERR);
        assert_bug_or_agreement("one value short", &case(held + 1), NEW_Q3, overflow, short);
        assert_bug_or_agreement("whole stream", &case(held), NEW_Q3, overflow, None);
    }

    /// D7 behind a full destination, as the fuzz target found it: a scan of 3 276 801
    /// elements to a 32-bit index list over one RLE run of 63 963 137 zeros (a 4-byte header)
    /// with a 64-byte destination. QPL's false 232 (the step that reads the stream's last
    /// byte is not the last step, §4.3.2) comes before its destination check; the fallback
    /// finds the destination full (225). The output (13 MB) is too large to rerun the
    /// fallback with a destination that fits, so the predicate counts the stream's values.
    /// Within one step (n = 16448, destination large enough) the paths agree exactly.
    #[test]
    fn fuzz_finding_d7_behind_a_full_destination() {
        let job = Job {
            parser: Parser::PARQUET_RLE,
            src1_bit_width: 0,
            src2_bit_width: 0,
            num_input_elements: 3_276_801,
            param_low: 6,
            out_bit_width: OutBitWidth::W32,
            ..Job::new(Operation::ScanLt)
        };
        let found = Case {
            job,
            src1: vec![3, 0x82, 0x80, 0x80, 0x3D, 0x00],
            src2: None,
            dst_len: 64,
        };
        assert_excused(
            "fuzz finding",
            &found,
            "D7",
            Some(Status::SRC_IS_SHORT_ERR),
            Some(Status::DST_IS_SHORT_ERR),
        );
        let one_step = Case {
            job: Job {
                num_input_elements: 16448,
                ..job
            },
            dst_len: 16448 * 4,
            ..found
        };
        assert_identical("one step", &one_step);
    }

    /// Found by the CI's fuzz smoke run: an extract of 2^24 elements to nominal u8 over a
    /// Parquet stream of width 6 holding one empty RLE run and one RLE run of 315 780 values
    /// (a 3-byte header), with a 16 448-byte destination. The stream is short (232) and the
    /// destination too small (225): QPL decodes a step and finds the stream ended, the
    /// fallback fills the destination first. A destination 8 times larger is still too
    /// small, so the predicate counts the stream's values. With room for every value the
    /// stream holds, both paths say 232.
    #[test]
    fn fuzz_finding_short_stream_behind_a_long_run_and_a_full_destination() {
        let job = Job {
            parser: Parser::PARQUET_RLE,
            src1_bit_width: 1 << 24,
            src2_bit_width: 1 << 27,
            num_input_elements: 1 << 24,
            param_low: 2,
            param_high: 425_984,
            // INV_OUT and a bit without meaning, as the fuzzer left them (both ignored).
            flags: Flags::INV_OUT | Flags(0x0001_0000),
            ..Job::new(Operation::Extract)
        };
        let found = Case {
            job,
            src1: vec![0x06, 0x00, 0x03, 0x88, 0xC6, 0x26, 0xFA],
            src2: None,
            dst_len: 16448,
        };
        assert_excused(
            "fuzz finding",
            &found,
            "ORDER 225/232",
            Some(Status::SRC_IS_SHORT_ERR),
            Some(Status::DST_IS_SHORT_ERR),
        );
        let roomy = Case {
            dst_len: 315_780,
            ..found
        };
        let comparison = compare(&roomy);
        assert_eq!(
            (comparison.verdict, comparison.fallback.result.err()),
            (Verdict::Identical, Some(Status::SRC_IS_SHORT_ERR)),
            "room for the stream's values\n{}",
            describe(&roomy, &comparison.software, &comparison.fallback)
        );
    }

    /// Found by a 12-minute ASan run of the `differential` fuzz target (seed 20261124): a
    /// scan to a 32-bit index list, 64-byte destination, over a width-3 Parquet stream of an
    /// RLE run of 23 (an over-wide value 0x88), an RLE run of 16 035 zeros, an empty run, then
    /// a run header of 17 bytes. QPL reads that header as 5 bytes (D4) and runs out of stream
    /// (232); the fallback fills the destination first (225), and with room for the 16 058
    /// values before the long header stops there (220). The larger destination of
    /// `ORDER 225/232` (8 × 64 + 4096 bytes) holds too few indices to show it.
    #[test]
    fn fuzz_finding_long_header_behind_a_full_destination_is_d4() {
        let text = concat!(
            "032e88c6fa010000ffffffffffffffffffffffffffffffff00000010ffffffffffffffff3535353535",
            "ffffffffffffffffffffffffffffffffffffff8bd236ae240247060000000113005d59190004020602",
            "001f0000001323f1fbfd839a0d2c000000000010612108f7f76ffa5ae5d2ff",
        );
        let src1: Vec<u8> = (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect();
        let found = Case {
            job: Job {
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 16_777_212,
                src2_bit_width: 16_777_217,
                num_input_elements: 2_281_897_984,
                param_low: 293_447_239,
                param_high: 537_002_125,
                flags: Flags::OMIT_AGGREGATES,
                out_bit_width: OutBitWidth::W32,
                ..Job::new(Operation::ScanLe)
            },
            src1,
            src2: Some(vec![0xA6]),
            dst_len: 64,
        };
        assert_excused(
            "fuzz finding",
            &found,
            "D4",
            Some(Status::SRC_IS_SHORT_ERR),
            Some(Status::DST_IS_SHORT_ERR),
        );
        let roomy = Case {
            dst_len: 16_058 * 4,
            ..found
        };
        let fallback = run_fallback(&roomy.job, &roomy.src1, None, roomy.dst_len);
        assert_eq!(fallback.result.err(), Some(Status::PRLE_FORMAT_ERR));
    }

    /// Found by a local run of the `differential` fuzz target: extract of elements
    /// 0..=32191 of 32728 1-bit elements (LE), one element set, to a 32-bit index list.
    /// QPL's 64-multiple step bug (D16, §7.3) moves last_index_max_value to 16448, the
    /// start of the second step, whose 15744 extracted elements are a multiple of 64; the
    /// predicate counted the step in source elements (16280, up to n) instead. Measured
    /// with QPL 1.6.0: steps are C source elements from element 0, their length and the
    /// index counted in extracted elements (param_low 64, param_high 17087 → max 16384).
    /// Without a multiple of 64 the paths agree exactly. The bug is in the AVX-512
    /// aggregate kernel: QPL's px kernels (a CPU without AVX-512) agree everywhere.
    #[test]
    fn fuzz_finding_extract_step_bug_counts_extracted_elements() {
        let n = 32728u32;
        let mut src1 = vec![0u8; n.div_ceil(8) as usize];
        src1[100 / 8] = 1 << (100 % 8);
        let extract = |param_low: u32, param_high: u32| Case {
            job: Job {
                parser: Parser::LE_PACKED,
                src1_bit_width: 1,
                num_input_elements: n,
                param_low,
                param_high,
                out_bit_width: OutBitWidth::W32,
                ..Job::new(Operation::Extract)
            },
            src1: src1.clone(),
            src2: None,
            dst_len: 4,
        };
        for (low, high, bug) in [
            (0, 32191, true),
            (64, 17087, true),
            (0, 32192, false),
            (64, 17150, false),
        ] {
            let case = extract(low, high);
            let label = format!("param_low {low}, param_high {high}");
            if bug {
                assert_bug_or_agreement(&label, &case, "D16", None, None);
            } else {
                assert_identical(&label, &case);
            }
        }
    }

    /// Found by the random jobs with `DIFF_SEED=41` (case 3134): expand over a Parquet
    /// stream of width 0 with spare mask bytes. The wrapper runs QPL on a stand-in stream of
    /// n zeros, and QPL's expand overshoots n on it (D11); the suite's own copy of the
    /// stand-in held only popcount(mask) zeros, so the fallback could not produce the
    /// overshoot and the difference went unexplained. The suite now uses the wrapper's
    /// stand-in (`qpl_rs::width_zero_stand_in`). Same shape here: 16400 elements (more than
    /// one 16384-bit mask step, where QPL overshoots), the mask's first byte clear (16392
    /// values needed), one spare mask byte.
    #[test]
    fn width_zero_expand_overshoot_uses_the_wrappers_stand_in() {
        let mut mask = vec![0xFF; 16400 / 8 + 1];
        mask[0] = 0;
        let case = Case {
            job: Job {
                parser: Parser::PARQUET_RLE,
                src2_bit_width: 1,
                num_input_elements: 16400,
                out_bit_width: OutBitWidth::W8,
                ..Job::new(Operation::Expand)
            },
            // Width 0: one RLE run of 16392 values, no value bytes.
            src1: vec![0, 0x90, 0x80, 0x02],
            src2: Some(mask),
            dst_len: 32768,
        };
        let comparison = compare(&case);
        let details = describe(&case, &comparison.software, &comparison.fallback);
        let written = comparison
            .software
            .result
            .as_ref()
            .map(|out| out.completion.total_out);
        assert!(
            written.is_ok_and(|w| w > 16400),
            "QPL's expand overshoots n\n{details}"
        );
        assert_eq!(
            comparison.verdict,
            Verdict::Excused("W0 width-0 stream"),
            "{details}"
        );
    }

    /// Found by a local run of the `differential` fuzz target after affbe19: expand of one
    /// element over a Parquet stream of width 1 whose RLE value is 0x5E (over-wide, D5), one
    /// mask byte. QPL packs the value as 1, the fallback as 0 (masked); no overshoot shows
    /// in the length, so D11's search must not pick a longer count on D5's say-so alone
    /// (it did: any count then "matched", and the aggregates did not).
    #[test]
    fn fuzz_finding_over_wide_value_without_an_overshoot_is_d5() {
        let case = Case {
            job: Job {
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 1,
                src2_bit_width: 1,
                num_input_elements: 1,
                ..Job::new(Operation::Expand)
            },
            src1: vec![0x01, 0x5E, 0x5E],
            src2: Some(vec![0xFF]),
            dst_len: 1,
        };
        // QPL's generic ("px") kernels (a CPU without AVX-512) pack bit 0 as the fallback
        // does, and report the value 0x5E as the sum instead (PX-1).
        let px = compare(&case).verdict == Verdict::Excused("PX-1");
        let id = if px { "PX-1" } else { "D5" };
        assert_excused("fuzz finding", &case, id, None, None);
    }

    /// PX-1, found by the random jobs on a CPU without AVX-512 (default seed, case 5486):
    /// extract of elements 37..=51 of a Parquet stream of width 1 (24 zeros, then an RLE
    /// run of 0xCF) to an 8-bit index list from index 58. QPL's generic kernels report sum_value 15·0xCF,
    /// the sum of the unmasked values, where its AVX-512 kernels and the fallback report the
    /// 15 set bits. (Select and expand do the same on px; their AVX-512 aggregates follow
    /// other rules, D16, so the predicate's unit test covers them.)
    #[test]
    fn random_finding_px_bit_aggregate_sums_unmasked_values() {
        let found = Case {
            job: Job {
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 1,
                src2_bit_width: 1,
                num_input_elements: 52,
                param_low: 37,
                param_high: 51,
                flags: Flags::OUT_BE | Flags::SRC2_BE,
                out_bit_width: OutBitWidth::W8,
                initial_output_index: 58,
                ..Job::new(Operation::Extract)
            },
            src1: vec![0x01, 0x07, 0x00, 0x00, 0x00, 0x9A, 0x03, 0xCF],
            src2: None,
            dst_len: 272,
        };
        assert_bug_or_agreement("random finding", &found, "PX-1", None, None);
    }

    /// NEW-Q4, found by the random jobs with `DIFF_SEED=164` (case 3971): QPL accepts a
    /// bit-packed run whose last group is cut short (3 of its 16 bytes missing, width 16)
    /// but holds every wanted value, when the run began before the job's last step; the
    /// fallback says 232 (D6). Measured: RLE 16445 values, then that run, n 16459 (steps of
    /// 8224) → QPL OK, its output that of the stream with the group completed; within one
    /// step (RLE 8000, n 8014), or with the cut group all that is left of the run after the
    /// step boundary (RLE 8200, 4 groups, n 8230) → 232 on both paths.
    #[test]
    fn random_finding_cut_short_group_after_a_step_boundary_is_new_q4() {
        let stream = |rle: u32, groups: u8| {
            let mut stream = vec![16u8];
            write_run_header(&mut stream, rle << 1);
            stream.extend([0x01, 0x00]);
            write_run_header(&mut stream, (u32::from(groups) << 1) | 1);
            stream.extend((0..usize::from(groups) * 16 - 3).map(|i| (i * 37 + 11) as u8));
            stream
        };
        let case = |rle: u32, groups: u8, n: u32| Case {
            job: Job {
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 16,
                num_input_elements: n,
                param_high: u32::MAX,
                out_bit_width: OutBitWidth::W32,
                ..Job::new(Operation::Extract)
            },
            src1: stream(rle, groups),
            src2: None,
            dst_len: 4 * n as usize,
        };
        let new_q4 = "NEW-Q4 cut-short group after a step boundary";
        let short = Some(Status::SRC_IS_SHORT_ERR);
        assert_excused(
            "after a boundary",
            &case(16445, 2, 16459),
            new_q4,
            None,
            short,
        );
        assert_excused(
            "across a boundary",
            &case(8220, 2, 8234),
            new_q4,
            None,
            short,
        );
        for (label, rle, groups, n) in [
            ("one step", 8000, 2, 8014),
            ("only the cut group pending", 8200, 4, 8230),
        ] {
            let comparison = compare(&case(rle, groups, n));
            let statuses = (
                comparison.software.result.as_ref().err().map(|e| e.status),
                comparison.fallback.result.err(),
            );
            assert_eq!(statuses, (short, short), "{label}");
        }
    }

    /// A wrapper bug the random jobs found (`DIFF_SEED=195`, case 54; fixed in gaps.rs):
    /// expand of 1-bit elements with `FORCE_ARRAY_OUTPUT` to u32 and spare mask bytes. The
    /// wrapper asks QPL for the nominal bit vector in a buffer of n bits, and QPL's expand
    /// overshoots n (D11), so the job failed with 225 although the caller's destination had
    /// room. Now the buffer has room for available_src2·8 bits, and the widened output has
    /// the n elements the fallback writes.
    #[test]
    fn forced_array_expand_overshoot_fits_the_wrappers_buffer() {
        let n = 21230u32;
        let src1: Vec<u8> = (0..n.div_ceil(8)).map(|i| (i * 151 + 7) as u8).collect();
        let mask_bytes = n as usize / 8 + 217;
        let case = Case {
            job: Job {
                parser: Parser::LE_PACKED,
                src1_bit_width: 1,
                src2_bit_width: 1,
                num_input_elements: n,
                flags: Flags::FORCE_ARRAY_OUTPUT | Flags::OMIT_CHECKSUMS,
                out_bit_width: OutBitWidth::W32,
                ..Job::new(Operation::Expand)
            },
            src1,
            src2: Some(vec![0; mask_bytes]),
            dst_len: 4 * mask_bytes * 8 + 64,
        };
        assert_identical("all-zero mask", &case);
    }

    /// A wrapper bug the fuzz target found (fixed in gaps.rs): select of 16447 1-bit
    /// elements (all-ones mask) with `FORCE_ARRAY_OUTPUT` to u16. QPL's software path drops
    /// the tail after element 16384 (D10) from the nominal bit vector the wrapper asks it
    /// for; the wrapper widened the fallback's count of elements anyway, padding zeros and
    /// reporting the full total_out. Now it widens the 16384 elements QPL wrote, which is D10.
    #[test]
    fn fuzz_finding_forced_array_widens_only_what_qpl_wrote() {
        let n = 16447usize;
        let mut src1 = vec![0xFFu8; 2056];
        src1[2055] = 0x7F;
        let found = Case {
            job: Job {
                src1_bit_width: 1,
                src2_bit_width: 1,
                num_input_elements: n as u32,
                param_low: 2_004_318_071,
                param_high: 1,
                flags: Flags::OMIT_CHECKSUMS | Flags::OMIT_AGGREGATES | Flags::FORCE_ARRAY_OUTPUT,
                out_bit_width: OutBitWidth::W16,
                ..Job::new(Operation::Select)
            },
            src1,
            src2: Some(vec![0xFF; 2056]),
            dst_len: n * 2,
        };
        assert_excused("fuzz finding", &found, "D10", None, None);
        let software = run_software(&found);
        let written = software.result.map(|out| out.completion.total_out);
        assert_eq!(
            written,
            Ok(16384 * 2),
            "the 16384 elements QPL wrote, widened"
        );
    }

    /// QPL's false decoder errors before the fallback's 221, as the fuzz target found the
    /// first: extract of element 2 of a 3-element stream that starts with a bit-packed run of
    /// ones, to a u16 index list from initial_output_index 3267543746. QPL stops at the run
    /// header with 225 (D8: fewer than 8 values wanted); the fallback decodes the value and
    /// fails writing its index (221). Then D7: an RLE run of 20001 ones with n = 20000
    /// extracted to u8, where QPL's false 232 comes before the fallback's 221 at index 256.
    #[test]
    fn fuzz_finding_d7_d8_before_an_index_overflow() {
        let d8 = Case {
            job: Job {
                param_low: 2,
                param_high: 12,
                flags: Flags::OMIT_CHECKSUMS
                    | Flags::OMIT_AGGREGATES
                    | Flags::OUT_BE
                    | Flags::SRC2_BE
                    | Flags::CRC32C,
                initial_output_index: 3_267_543_746,
                ..index_list_job(Operation::Extract, 3, OutBitWidth::W16)
            },
            src1: vec![0x01, 0x03, 0xFF],
            src2: None,
            dst_len: 76,
        };
        let overflow = Some(Status::OUTPUT_OVERFLOW_ERR);
        assert_excused("D8", &d8, "D8", Some(Status::DST_IS_SHORT_ERR), overflow);
        let d7 = Case {
            job: Job {
                param_high: 19999,
                ..index_list_job(Operation::Extract, 20000, OutBitWidth::W8)
            },
            // Width 1, one RLE run: header 20001 << 1 = 40002 as a varint, value 1.
            src1: vec![0x01, 0xC2, 0xB8, 0x02, 0x01],
            src2: None,
            dst_len: 100_000,
        };
        assert_excused("D7", &d7, "D7", Some(Status::SRC_IS_SHORT_ERR), overflow);
    }
}
