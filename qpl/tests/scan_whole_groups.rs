//! D8 (`docs/semantics.md`): QPL's software path fails some scans of a Parquet stream with 225
//! when a bit-packed run is met with fewer than 8 values wanted. `scan`, `scan_bitmap` and
//! `scan_indices` then scan whole groups and cut the answer back to `n`: on every path this
//! build can run, every `n` gives the fallback's bits, indices and aggregates.

use qpl_rs::{encode_parquet_rle, scan, scan_bitmap, scan_indices, Comparison, Path};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

#[test]
fn scans_of_any_length_agree_with_the_fallback() {
    // Values that make bit-packed runs (no long repeats), and a tail of matches in the padding
    // of the last group: the padding must not leak into the answer.
    let values: Vec<u32> = (0..203u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 5)
        .collect();
    let encoded = encode_parquet_rle(&values, 3).unwrap();
    let stream = qpl_rs::Stream::parquet_rle(&encoded);
    for comparison in [
        Comparison::Eq(1),
        Comparison::Eq(0),
        Comparison::Ne(4),
        Comparison::Range(2, 3),
        Comparison::Eq(6),
    ] {
        for n in 1..=values.len() as u32 {
            let what = format!("{comparison:?} n {n}");
            let (want, want_out) = scan(Path::Fallback, &stream, n, comparison).unwrap();
            let (want_indices, want_indices_out) =
                scan_indices(Path::Fallback, &stream, n, comparison).unwrap();
            let expected: Vec<u32> = (0..n)
                .filter(|&i| {
                    let v = values[i as usize];
                    match comparison {
                        Comparison::Eq(x) => v == x,
                        Comparison::Ne(x) => v != x,
                        Comparison::Range(l, h) => (l..=h).contains(&v),
                        _ => unreachable!(),
                    }
                })
                .collect();
            assert_eq!(want_indices, expected, "{what}");
            for path in paths() {
                let (bits, output) = scan(path, &stream, n, comparison)
                    .unwrap_or_else(|e| panic!("{what} {path}: {e}"));
                assert_eq!(bits, want, "{what} {path}");
                let (c, w) = (output.completion, want_out.completion);
                assert_eq!(
                    (c.total_out, c.last_bit_offset, c.sum_value),
                    (w.total_out, w.last_bit_offset, w.sum_value),
                    "{what} {path}"
                );
                if w.sum_value > 0 {
                    assert_eq!(
                        (c.first_index_min_value, c.last_index_max_value),
                        (w.first_index_min_value, w.last_index_max_value),
                        "{what} {path}"
                    );
                }
                let (bitmap, _) = scan_bitmap(path, &stream, n, comparison).unwrap();
                assert_eq!(bitmap.as_bytes(), &want[..], "{what} {path}");
                assert_eq!(bitmap.len(), n as usize);
                let (indices, output) = scan_indices(path, &stream, n, comparison)
                    .unwrap_or_else(|e| panic!("{what} {path}: indices: {e}"));
                assert_eq!(indices, expected, "{what} {path}");
                let (c, w) = (output.completion, want_indices_out.completion);
                assert_eq!(
                    (c.total_out, c.sum_value),
                    (w.total_out, w.sum_value),
                    "{what} {path}"
                );
            }
        }
    }
}
