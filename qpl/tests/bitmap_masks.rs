//! `select_bitmap`/`expand_bitmap` with masks at every bit offset 0..64 and lengths that cross
//! byte, word and page-sized boundaries, and `scan_bitmap`, on every path this build can run.

use qpl_rs::{
    encode_parquet_rle, expand_bitmap, pack_le, scan_bitmap, select_bitmap, Bitmap, Comparison,
    Path, Stream,
};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

/// Deterministic pseudo-random values below 32 and mask bits (no RNG dependency needed).
fn values(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7) % 32)
        .collect()
}

fn mask_bits(n: usize) -> Bitmap {
    (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) & 1 == 1 || i % 11 == 0)
        .collect()
}

const LENGTHS: [usize; 14] = [1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 129, 513, 1100];

#[test]
fn select_and_expand_take_masks_at_every_bit_offset() {
    let max = 64 + LENGTHS.iter().max().unwrap();
    let values = values(max);
    let packed = pack_le(&values, 5).unwrap();
    let rle = encode_parquet_rle(&values, 5).unwrap();
    let streams = [
        ("le_packed", Stream::le_packed(&packed, 5)),
        ("parquet_rle", Stream::parquet_rle(&rle)),
    ];
    let big = mask_bits(max + 64);
    for path in paths() {
        for (name, stream) in &streams {
            for offset in 0..64 {
                for &len in &LENGTHS {
                    let mask = big.slice(offset, len);
                    let what = format!("{path} {name} offset {offset} len {len}");
                    let expected: Vec<u32> = mask.iter_ones().map(|i| values[i]).collect();
                    let (selected, output) = select_bitmap(path, stream, mask)
                        .unwrap_or_else(|e| panic!("{what}: select: {e}"));
                    assert_eq!(selected, expected, "{what}: select");
                    assert_ne!(output.path, Path::Auto);
                    // Expand reads the stream's first values into the 1 positions.
                    let mut next = values.iter();
                    let expected: Vec<u32> = mask
                        .iter()
                        .map(|bit| if bit { *next.next().unwrap() } else { 0 })
                        .collect();
                    let (expanded, _) = expand_bitmap(path, stream, mask)
                        .unwrap_or_else(|e| panic!("{what}: expand: {e}"));
                    assert_eq!(expanded, expected, "{what}: expand");
                }
            }
        }
    }
}

#[test]
fn scans_are_bitmaps_of_exactly_n_bits_that_concatenate_across_pages() {
    let values = values(3000);
    for path in paths() {
        // Three "pages" of lengths that are not multiples of 8: their scans, concatenated,
        // equal the scan of the whole.
        let mut joined = Bitmap::new();
        let mut start = 0;
        for len in [1001, 997, 1002] {
            let page = &values[start..start + len];
            let rle = encode_parquet_rle(page, 5).unwrap();
            let (bits, output) = scan_bitmap(
                path,
                &Stream::parquet_rle(&rle),
                len as u32,
                Comparison::Range(3, 9),
            )
            .unwrap();
            assert_eq!(bits.len(), len);
            assert_eq!(bits.count_ones() as u32, output.completion.sum_value);
            joined.extend_from_bitmap(bits.view());
            start += len;
        }
        let expected: Bitmap = values.iter().map(|v| (3..=9).contains(v)).collect();
        assert_eq!(joined, expected, "{path}");
        // And a scan's bitmap, sliced at odd offsets, is a select mask as it is.
        let packed = pack_le(&values, 5).unwrap();
        let stream = Stream::le_packed(&packed, 5);
        for offset in [1, 13, 999] {
            let mask = joined.slice(offset, 1500);
            let (selected, _) = select_bitmap(path, &stream, mask).unwrap();
            let want: Vec<u32> = mask.iter_ones().map(|i| values[i]).collect();
            assert_eq!(selected, want, "{path} offset {offset}");
        }
    }
}
