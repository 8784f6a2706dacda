use qpl_rs::{Completion, Error, Flags, Job, Operation, OutBitWidth, Output, Parser, Path, Status};

use crate::{
    gen_case, known_divergence, run_fallback, run_software, ByteChoices, Case, Choices, Outcome,
    Rng, Software, FUZZ_MODE_RAW, FUZZ_MODE_STRUCTURED, QPL_LINKED,
};

/// `DIFF_SEED` reproduces a failure only while the generator draws the same numbers: the
/// first outputs of seed 1, computed independently (Python, xorshift64* as documented).
#[test]
fn rng_sequence_is_pinned() {
    let mut rng = Rng::new(1);
    assert_eq!(
        [rng.next_u64(), rng.next_u64(), rng.next_u64()],
        [
            0x0d83_b3e2_9a21_487a,
            0x54c4_4c79_f1fe_9d67,
            0xa845_f342_007a_0e78
        ]
    );
}

/// The test's choices are the plain xorshift draws: `range` is `lo + x % count` (drawing
/// for a single value too), `chance` is `x % 100 < percent`, `pick` is `items[x % len]`.
#[test]
fn rng_choices_are_the_plain_draws() {
    let draws: Vec<u64> = {
        let mut rng = Rng::new(9);
        (0..5).map(|_| rng.next_u64()).collect()
    };
    let mut rng = Rng::new(9);
    assert_eq!(rng.range(10, 20), 10 + draws[0] % 11);
    assert_eq!(rng.range(7, 7), 7);
    assert_eq!(rng.chance(30), draws[2] % 100 < 30);
    assert_eq!(rng.pick(&[1u8, 2, 3]), [1u8, 2, 3][(draws[3] % 3) as usize]);
    assert_eq!(rng.word(), draws[4] as u32);
}

#[test]
fn byte_choices_read_only_the_bytes_they_need() {
    let mut c = ByteChoices::new(&[5, 0x00, 0xFF, 99, 0, 7, 0xAA, 0xBB, 0xCC, 0xDD]);
    assert_eq!(c.range(10, 265), 15, "a span of 256 values takes one byte");
    assert_eq!(
        c.range(0, 256),
        0x00FF,
        "257 values take two bytes, big-endian"
    );
    assert!(c.chance(1), "byte 99 is yes for any percent above 0");
    assert!(!c.chance(99), "byte 0 is no below 100 percent");
    assert_eq!(c.range(4, 4), 4, "a single value takes no byte");
    assert_eq!(c.pick(&['a', 'b', 'c']), 'b', "byte 7 picks 7 % 3");
    assert_eq!(c.word(), 0xDDCC_BBAA, "words are little-endian");
    assert!(c.remaining().is_empty());
    // Past the end: zeros, the first branch of every choice.
    assert_eq!(c.range(3, 1000), 3);
    assert!(!c.chance(99));
    assert_eq!(c.pick(&[8u8, 9]), 8);
    assert_eq!((c.bits(), c.word(), c.byte()), (0, 0, 0));
}

/// The empty structured input is the all-defaults job: a one-element extract of LE-packed
/// 1-bit values, which the fallback runs.
#[test]
fn empty_fuzz_input_is_a_small_valid_job() {
    for input in [&[][..], &[FUZZ_MODE_STRUCTURED], &[4, 0, 0], &[2, 0, 0]] {
        let case = Case::from_fuzz_input(input);
        assert_eq!(case.job.operation, Operation::Extract);
        assert_eq!(case.job.parser, Parser::LE_PACKED);
        assert_eq!(
            (case.job.src1_bit_width, case.job.num_input_elements),
            (1, 1)
        );
        let fallback = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
        assert!(fallback.result.is_ok(), "{case:?}: {:?}", fallback.result);
        // A first byte of 2 (mod 4) is the same job with a raw deflate source-1.
        let decompress = input.first().is_some_and(|&b| b & 3 == 2);
        assert_eq!(
            case.job.flags.contains(qpl_rs::Flags::DECOMPRESS_ENABLE),
            decompress
        );
    }
}

/// Raw inputs use the `job` fuzz target's layout: its committed seeds read as written.
#[test]
fn raw_inputs_read_the_job_targets_seeds() {
    let seed = include_bytes!("../../fuzz/seeds/job/extract_be_0_7");
    let mut input = vec![FUZZ_MODE_RAW];
    input.extend_from_slice(seed);
    let case = Case::from_fuzz_input(&input);
    let expected = Job {
        parser: Parser::BE_PACKED,
        src1_bit_width: 3,
        num_input_elements: 8,
        param_low: 2,
        param_high: 5,
        ..Job::new(Operation::Extract)
    };
    assert_eq!(case.job, expected);
    assert_eq!(case.src1, [0x05, 0x39, 0x77]);
    assert_eq!((case.src2, case.dst_len), (None, 64));

    let seed = include_bytes!("../../fuzz/seeds/job/select_src2_be");
    let case = Case::from_raw_job_bytes(seed);
    assert_eq!(case.job.operation, Operation::Select);
    assert_eq!(case.job.flags, Flags::SRC2_BE);
    assert_eq!(case.src2.as_deref(), Some(&[0xA5][..]));
    assert_eq!(case.src1, [0x88, 0xC6, 0xFA]);

    // A short header reads zeros; every raw field keeps its value (the operation, parser and
    // output width are reduced to their ranges, one invalid parser and width included).
    let case = Case::from_raw_job_bytes(&[13, 0, 0, 0, 7]);
    assert_eq!(case.job.operation, Operation::Expand);
    assert_eq!(case.job.parser, Parser(3));
    assert_eq!((case.src1.len(), case.src2, case.dst_len), (0, None, 0));
}

/// A stand-in for QPL's result when QPL is not linked: the predicates must take any pair
/// of results without panicking.
fn pretend_software(case: &Case) -> Software {
    let fallback = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
    match fallback.result {
        Ok(mut completion) => {
            // A changed field, so that the predicates look for an explanation.
            completion.last_index_max_value ^= 1;
            Outcome {
                result: Ok(Output {
                    completion,
                    path: Path::Software,
                }),
                bytes: fallback.bytes,
            }
        }
        Err(_) => Outcome {
            result: Err(Error {
                operation: case.job.operation,
                status: Status::SRC_IS_SHORT_ERR,
                requested: Path::Software,
                path: Path::Software,
                stage: qpl_rs::Stage::Run,
                message: String::new(),
            }),
            bytes: Vec::new(),
        },
    }
}

/// Fuzz-shaped inputs in both modes, odd ones included (empty Parquet sources, bit widths 0
/// and 255): the generator, the fallback and the predicates run without panicking, and with
/// QPL linked both paths run too.
#[test]
fn fuzz_inputs_run_without_panics() {
    let mut rng = Rng::new(0xF022);
    for i in 0..400u64 {
        let len = rng.range(0, 300) as usize;
        let mut input: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        if let Some(mode) = input.first_mut() {
            *mode = (i % 2) as u8;
        }
        let case = Case::from_fuzz_input(&input);
        let fallback = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
        let software = if QPL_LINKED {
            run_software(&case)
        } else {
            pretend_software(&case)
        };
        let _ = known_divergence(
            &case.job,
            &case.src1,
            case.src2.as_deref(),
            case.dst_len,
            &software,
            &fallback,
        );
    }
    for src1 in [&[][..], &[0], &[255, 1, 2]] {
        for operation in [Operation::Select, Operation::Expand, Operation::ScanEq] {
            let case = Case {
                job: Job {
                    parser: Parser::PARQUET_RLE,
                    src1_bit_width: 1,
                    num_input_elements: 9,
                    out_bit_width: OutBitWidth::W8,
                    ..Job::new(operation)
                },
                src1: src1.to_vec(),
                src2: Some(vec![0xFF; 2]),
                dst_len: 16,
            };
            let fallback = Outcome {
                result: Ok(Completion::default()),
                bytes: Vec::new(),
            };
            let _ = known_divergence(
                &case.job,
                &case.src1,
                case.src2.as_deref(),
                case.dst_len,
                &pretend_software(&case),
                &fallback,
            );
        }
    }
}

/// The generator over fuzz bytes makes mostly valid jobs, as it does over the seeded
/// generator: most structured inputs run on the fallback.
#[test]
fn structured_inputs_are_mostly_valid_jobs() {
    let mut rng = Rng::new(77);
    let mut ok = 0;
    for _ in 0..200 {
        let mut input = vec![FUZZ_MODE_STRUCTURED];
        input.extend((0..64).map(|_| rng.byte()));
        let case = gen_case(&mut ByteChoices::new(&input[1..]));
        assert_eq!(case, Case::from_fuzz_input(&input));
        let fallback = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
        ok += usize::from(fallback.result.is_ok());
    }
    assert!(ok > 120, "{ok} of 200 structured inputs ran");
}

/// PX-1: QPL's generic kernels report the sum of the unmasked values of a width-1 Parquet
/// stream's over-wide RLE values as the `sum_value` of a bit vector. Only that exact sum,
/// with every other field equal, is excused (QPL's results stood in for without QPL).
#[test]
fn px1_excuses_exactly_the_unmasked_sum() {
    let job = |operation, n, low, high| Job {
        parser: Parser::PARQUET_RLE,
        src1_bit_width: 1,
        src2_bit_width: 1,
        num_input_elements: n,
        param_low: low,
        param_high: high,
        out_bit_width: OutBitWidth::W8,
        ..Job::new(operation)
    };
    // 8 zeros (one bit-packed group), then 20 RLE values 0xCF; mask bits 4..=11 and
    // 17, 19, 21, 23: select takes 8 values of the run, expand the first 12 values (4 of
    // the run).
    let stream = vec![0x01, 0x03, 0x00, 0x28, 0xCF];
    let mask = vec![0xF0, 0x0F, 0xAA];
    let cases = [
        // The random jobs' finding (default seed, case 5486): 24 zeros, RLE 205 × 0xCF,
        // elements 37..=51 extracted.
        (
            job(Operation::Extract, 52, 37, 51),
            vec![0x01, 0x07, 0x00, 0x00, 0x00, 0x9A, 0x03, 0xCF],
            None,
            15 * 0xCF,
        ),
        (
            job(Operation::Extract, 24, 5, 20),
            stream.clone(),
            None,
            13 * 0xCF,
        ),
        (
            job(Operation::Select, 24, 0, 0),
            stream.clone(),
            Some(mask.clone()),
            8 * 0xCF,
        ),
        (
            job(Operation::Expand, 24, 0, 0),
            stream,
            Some(mask),
            4 * 0xCF,
        ),
    ];
    for (job, src1, src2, px_sum) in cases {
        let fallback = run_fallback(&job, &src1, src2.as_deref(), 256);
        let completion = fallback.result.expect("the fallback runs the job");
        let qpl = |change: &dyn Fn(&mut Completion)| {
            let mut completion = completion;
            change(&mut completion);
            let software = Outcome {
                result: Ok(Output {
                    completion,
                    path: Path::Software,
                }),
                bytes: fallback.bytes.clone(),
            };
            known_divergence(&job, &src1, src2.as_deref(), 256, &software, &fallback)
        };
        let op = job.operation;
        assert_eq!(qpl(&|c| c.sum_value = px_sum), Some("PX-1"), "{op}");
        assert_eq!(
            qpl(&|c| c.sum_value = px_sum + 1),
            None,
            "{op}: another sum"
        );
        let moved = |c: &mut Completion| {
            c.sum_value = px_sum;
            c.first_index_min_value += 1;
        };
        assert_eq!(qpl(&moved), None, "{op}: the first index moved too");
    }
}
