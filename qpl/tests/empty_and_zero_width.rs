//! Every high-level call (`decode`, `decode_into`, `scan`, `scan_indices`, `select`, `expand`
//! and the `_bitmap` forms) takes empty requests (`n = 0`) and packed streams of bit width 0
//! the same way on every path this build can run: an empty request gives nothing (a raw job
//! keeps QPL's 57), a width-0 packed stream holds only zeros (a raw job keeps QPL's 231).

use qpl_rs::{
    decode, decode_into, encode_parquet_rle, expand, expand_bitmap, pack_be, pack_le, scan,
    scan_bitmap, scan_indices, select, select_bitmap, Bitmap, Comparison, Executor, Job, Operation,
    Output, Path, Status, Stream,
};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

fn empty(output: &Output, what: &str) {
    assert_eq!(output.completion.total_out, 0, "{what}");
    assert_eq!(output.completion.sum_value, 0, "{what}");
    assert_ne!(
        output.path,
        Path::Auto,
        "{what}: the path that was routed to"
    );
}

#[test]
fn empty_requests_give_nothing_on_every_call_and_path() {
    let packed = pack_le(&[1, 2, 3], 4).unwrap();
    let parquet = encode_parquet_rle(&[1, 2, 3], 4).unwrap();
    let streams = [
        Stream::le_packed(&packed, 4),
        Stream::be_packed(&[], 4),
        Stream::le_packed(&[], 0),
        Stream::be_packed(&[], 32),
        Stream::parquet_rle(&parquet),
        // An empty page may have an empty values section.
        Stream::parquet_rle(&[]),
    ];
    let mask = [0xFFu8; 4];
    for path in paths() {
        for stream in &streams {
            let what = format!("{path} {stream:?}");
            let (bits, output) = scan(path, stream, 0, Comparison::Eq(1)).unwrap();
            assert!(bits.is_empty(), "{what}");
            empty(&output, &what);
            let (bits, output) = scan_bitmap(path, stream, 0, Comparison::Ne(1)).unwrap();
            assert_eq!(bits, Bitmap::new(), "{what}");
            empty(&output, &what);
            let (indices, output) = scan_indices(path, stream, 0, Comparison::Range(0, 9)).unwrap();
            assert!(indices.is_empty(), "{what}");
            empty(&output, &what);
            // The mask is not read for 0 elements: an empty one will do as well as a full one.
            for mask in [&mask[..], &[]] {
                let (values, output) = select(path, stream, 0, mask).unwrap();
                assert!(values.is_empty(), "{what}");
                empty(&output, &what);
                let (values, output) = expand(path, stream, 0, mask).unwrap();
                assert!(values.is_empty(), "{what}");
                empty(&output, &what);
            }
            let none = Bitmap::new();
            let (values, output) = select_bitmap(path, stream, none.view()).unwrap();
            assert!(values.is_empty(), "{what}");
            empty(&output, &what);
            // An empty slice at an odd bit offset of a longer mask.
            let (values, output) =
                expand_bitmap(path, stream, Bitmap::repeat(true, 9).slice(5, 0)).unwrap();
            assert!(values.is_empty(), "{what}");
            empty(&output, &what);
            let (values, output) = decode::<u8>(path, stream, 0).unwrap();
            assert!(values.is_empty(), "{what}");
            empty(&output, &what);
            let output = decode_into::<i64>(path, stream, &mut []).unwrap();
            empty(&output, &what);
        }
        // Only the bit width is checked.
        for stream in [Stream::le_packed(&[], 33), Stream::parquet_rle(&[40])] {
            let what = format!("{path} {stream:?}");
            let status = |r: Result<(), qpl_rs::Error>| r.unwrap_err().status;
            let bad = Status::BIT_WIDTH_ERR;
            assert_eq!(
                status(scan(path, &stream, 0, Comparison::Eq(1)).map(drop)),
                bad,
                "{what}"
            );
            assert_eq!(
                status(scan_indices(path, &stream, 0, Comparison::Eq(1)).map(drop)),
                bad,
                "{what}"
            );
            assert_eq!(
                status(select(path, &stream, 0, &mask).map(drop)),
                bad,
                "{what}"
            );
            assert_eq!(
                status(expand(path, &stream, 0, &mask).map(drop)),
                bad,
                "{what}"
            );
        }
        // The raw job keeps QPL's answer.
        for operation in [Operation::ScanEq, Operation::Select, Operation::Expand] {
            let job = Job {
                src1_bit_width: 4,
                src2_bit_width: 1,
                num_input_elements: 0,
                ..Job::new(operation)
            };
            let src2 = (operation != Operation::ScanEq).then_some(&mask[..]);
            let err = Executor::new(path)
                .run(&job, &packed, src2, &mut [0u8; 64])
                .unwrap_err();
            assert_eq!(err.status, Status::SIZE_ERR, "{path} {operation:?}");
        }
    }
}

/// What a comparison answers for the value 0.
fn holds_for_zero(comparison: Comparison) -> bool {
    match comparison {
        Comparison::Eq(v) => v == 0,
        Comparison::Ne(v) => v != 0,
        Comparison::Lt(v) => 0 < v,
        Comparison::Le(_) => true,
        Comparison::Gt(_) => false,
        Comparison::Ge(v) => v == 0,
        Comparison::Range(l, h) => l == 0 && l <= h,
        Comparison::NotRange(l, h) => !(l == 0 && l <= h),
    }
}

const COMPARISONS: [Comparison; 16] = [
    Comparison::Eq(0),
    Comparison::Eq(1),
    Comparison::Eq(u32::MAX),
    Comparison::Ne(0),
    Comparison::Ne(5),
    Comparison::Lt(0),
    Comparison::Lt(1),
    Comparison::Le(0),
    Comparison::Gt(0),
    Comparison::Ge(0),
    Comparison::Ge(3),
    Comparison::Range(0, 0),
    Comparison::Range(0, 7),
    Comparison::Range(1, 7),
    Comparison::NotRange(0, 2),
    Comparison::NotRange(2, 9),
];

const LENGTHS: [u32; 7] = [1, 7, 8, 9, 64, 100, 1001];

fn mask(n: u32) -> Bitmap {
    (0..n).map(|i| i % 3 == 1 || i % 7 == 0).collect()
}

#[test]
fn width_zero_packed_streams_scan_as_zeros_on_every_path() {
    // No bytes at all, and bytes that are not zeros: a width-0 stream reads none of them.
    let junk = [0xFFu8; 4];
    for path in paths() {
        for bytes in [&[][..], &junk[..]] {
            for stream in [Stream::le_packed(bytes, 0), Stream::be_packed(bytes, 0)] {
                for comparison in COMPARISONS {
                    let hit = holds_for_zero(comparison);
                    for n in LENGTHS {
                        let what = format!("{path} {stream:?} {comparison:?} n {n}");
                        let (bits, output) = scan_bitmap(path, &stream, n, comparison)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        assert_eq!(bits, Bitmap::repeat(hit, n as usize), "{what}");
                        assert_eq!(
                            output.completion.sum_value,
                            if hit { n } else { 0 },
                            "{what}"
                        );
                        assert_ne!(output.path, Path::Auto, "{what}");
                        let (bytes, _) = scan(path, &stream, n, comparison).unwrap();
                        assert_eq!(bytes, bits.as_bytes(), "{what}");
                        let (indices, _) = scan_indices(path, &stream, n, comparison)
                            .unwrap_or_else(|e| panic!("{what}: indices: {e}"));
                        let expected: Vec<u32> = if hit { (0..n).collect() } else { Vec::new() };
                        assert_eq!(indices, expected, "{what}: indices");
                    }
                }
            }
        }
    }
}

#[test]
fn width_zero_packed_streams_select_and_expand_zeros_on_every_path() {
    for path in paths() {
        for stream in [Stream::le_packed(&[], 0), Stream::be_packed(&[0xAA], 0)] {
            for n in LENGTHS {
                let what = format!("{path} {stream:?} n {n}");
                let m = mask(n);
                let ones = m.count_ones();
                let (values, output) = select(path, &stream, n, m.as_bytes())
                    .unwrap_or_else(|e| panic!("{what}: select: {e}"));
                assert_eq!(values, vec![0; ones], "{what}: select");
                assert_ne!(output.path, Path::Auto);
                let (values, output) = expand(path, &stream, n, m.as_bytes())
                    .unwrap_or_else(|e| panic!("{what}: expand: {e}"));
                assert_eq!(values, vec![0; n as usize], "{what}: expand");
                assert_ne!(output.path, Path::Auto);
                // The bitmap forms, with the mask at an odd bit offset.
                let wide = mask(n + 5);
                let view = wide.slice(5, n as usize);
                let (values, _) = select_bitmap(path, &stream, view).unwrap();
                assert_eq!(values, vec![0; view.count_ones()], "{what}: select_bitmap");
                let (values, _) = expand_bitmap(path, &stream, view).unwrap();
                assert_eq!(values, vec![0; n as usize], "{what}: expand_bitmap");
                // Decoding agrees.
                let (values, _) = decode::<u32>(path, &stream, n).unwrap();
                assert_eq!(values, vec![0; n as usize], "{what}: decode");
            }
        }
    }
}

/// The same answers as a stream of width 1 holding zeros, which a raw job takes: the
/// stand-in is exact, outputs included.
#[test]
fn width_zero_answers_equal_those_of_an_explicit_stream_of_zeros() {
    for path in paths() {
        for n in LENGTHS {
            let zeros = vec![0u32; n as usize];
            for (zero, explicit) in [
                (Stream::le_packed(&[], 0), pack_le(&zeros, 3).unwrap()),
                (Stream::be_packed(&[], 0), pack_be(&zeros, 3).unwrap()),
            ] {
                let explicit = Stream {
                    bytes: &explicit,
                    bit_width: 3,
                    ..zero
                };
                for comparison in COMPARISONS {
                    let what = format!("{path} {zero:?} {comparison:?} n {n}");
                    let a = scan(path, &zero, n, comparison).unwrap();
                    let b = scan(path, &explicit, n, comparison).unwrap();
                    assert_eq!(a.0, b.0, "{what}");
                    assert_eq!(a.1.completion.sum_value, b.1.completion.sum_value, "{what}");
                    assert_eq!(
                        a.1.completion.first_index_min_value, b.1.completion.first_index_min_value,
                        "{what}"
                    );
                    assert_eq!(
                        a.1.completion.last_index_max_value, b.1.completion.last_index_max_value,
                        "{what}"
                    );
                }
                let m = mask(n);
                let a = select(path, &zero, n, m.as_bytes()).unwrap();
                let b = select(path, &explicit, n, m.as_bytes()).unwrap();
                assert_eq!(a.0, b.0, "{path} n {n}: select");
            }
        }
    }
}

#[test]
fn a_raw_job_of_width_zero_keeps_231() {
    for path in paths() {
        let job = Job {
            src1_bit_width: 0,
            num_input_elements: 8,
            ..Job::new(Operation::ScanEq)
        };
        let err = Executor::new(path)
            .run(&job, &[0u8; 4], None, &mut [0u8; 8])
            .unwrap_err();
        assert_eq!(err.status, Status::BIT_WIDTH_ERR, "{path}");
    }
}
