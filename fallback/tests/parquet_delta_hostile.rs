//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY on bad input: every
//! truncation, lying counts, widths past the type, hostile block layouts, what the
//! specification says readers must accept (arbitrary padding bits and widths of unneeded
//! miniblocks), bad lengths and prefixes, and random bytes (no panic).

mod common;

use common::expect_error;
use proptest::prelude::*;
use qpl_fallback::parquet::delta_binary_packed::{
    self as dbp, DeltaBinaryPackedDecoder, DeltaInt, MAX_BLOCK_SIZE,
};
use qpl_fallback::parquet::delta_byte_array::{self as dba, DeltaByteArrayDecoder};
use qpl_fallback::parquet::delta_length_byte_array::{self as dlba, DeltaLengthByteArrayDecoder};
use qpl_fallback::parquet::{
    read_uleb128, read_zigzag, write_uleb128, write_zigzag, ByteArrayDecoder, ByteArrays,
    ErrorKind, ParquetError, ValueDecoder,
};

fn dbp_encode<T: DeltaInt>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    dbp::encode(values, &mut out);
    out
}

fn dbp_decode<T: DeltaInt>(data: &[u8], max: usize) -> Result<Vec<T>, ParquetError> {
    let mut out = vec![T::default(); max];
    let (n, _) = dbp::decode(data, &mut out)?;
    out.truncate(n);
    Ok(out)
}

fn header(block_size: u64, miniblocks: u64, total: u64, first: i64) -> Vec<u8> {
    let mut out = Vec::new();
    write_uleb128(&mut out, block_size);
    write_uleb128(&mut out, miniblocks);
    write_uleb128(&mut out, total);
    write_zigzag(&mut out, first);
    out
}

fn decode_arrays(
    decoder: Result<impl ByteArrayDecoder, ParquetError>,
) -> Result<ByteArrays, ParquetError> {
    let mut decoder = decoder?;
    let mut out = ByteArrays::new();
    decoder.next_batch(&mut out, usize::MAX)?;
    Ok(out)
}

fn dlba_decode(data: &[u8], max: usize) -> Result<ByteArrays, ParquetError> {
    decode_arrays(DeltaLengthByteArrayDecoder::new(data, max))
}

fn dba_decode(data: &[u8], max: usize) -> Result<ByteArrays, ParquetError> {
    decode_arrays(DeltaByteArrayDecoder::new(data, max))
}

fn kind<T>(result: Result<T, ParquetError>) -> ErrorKind {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind,
    }
}

/// Where our encoder's stream (blocks of 128, 4 miniblocks of 32) has the width bytes of
/// unneeded miniblocks and the padding bits of its last needed miniblock: the places the
/// specification says readers must accept anything in.
fn free_bits(data: &[u8], count: usize) -> (Vec<usize>, Vec<(usize, u8)>) {
    let mut pos = 0;
    for _ in 0..3 {
        read_uleb128(data, &mut pos, "test").unwrap();
    }
    read_zigzag(data, &mut pos, "test").unwrap();
    let (mut widths, mut padding) = (Vec::new(), Vec::new());
    let mut deltas_left = count.saturating_sub(1);
    while deltas_left > 0 {
        read_zigzag(data, &mut pos, "test").unwrap();
        let widths_at = pos;
        pos += 4;
        let mut in_block = deltas_left.min(128);
        deltas_left -= in_block;
        for miniblock in 0..4 {
            if in_block == 0 {
                widths.push(widths_at + miniblock);
                continue;
            }
            let width = data[widths_at + miniblock] as usize;
            let used = in_block.min(32);
            in_block -= used;
            for bit in used * width..32 * width {
                padding.push((pos + bit / 8, 1u8 << (bit % 8)));
            }
            pos += 4 * width;
        }
    }
    assert_eq!(pos, data.len());
    (widths, padding)
}

fn any_values() -> impl Strategy<Value = Vec<i64>> {
    prop_oneof![
        proptest::collection::vec(any::<i64>(), 0..300),
        proptest::collection::vec(-50i64..50, 0..300),
        proptest::collection::vec(prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0)], 0..80),
    ]
}

// ---------------------------------------------------------------------------------------
// Truncation

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn every_truncation_of_a_dbp_stream_is_truncated(values in any_values()) {
        let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        let wide = dbp_encode(&values);
        let thin = dbp_encode(&narrow);
        for cut in 0..wide.len() {
            prop_assert_eq!(kind(dbp_decode::<i64>(&wide[..cut], values.len())), ErrorKind::Truncated, "cut {}", cut);
            prop_assert_eq!(kind(dbp::stream_len::<i64>(&wide[..cut], values.len())), ErrorKind::Truncated);
        }
        for cut in 0..thin.len() {
            prop_assert_eq!(kind(dbp_decode::<i32>(&thin[..cut], values.len())), ErrorKind::Truncated, "cut {}", cut);
            prop_assert_eq!(kind(dbp::stream_len::<i32>(&thin[..cut], values.len())), ErrorKind::Truncated);
        }
    }

    #[test]
    fn every_truncation_of_a_byte_array_stream_is_truncated(
        values in proptest::collection::vec(proptest::collection::vec(b'a'..b'd', 0..6), 0..150)
    ) {
        let mut dl = Vec::new();
        dlba::encode(values.iter().map(Vec::as_slice), &mut dl).unwrap();
        let mut d = Vec::new();
        dba::encode(values.iter().map(Vec::as_slice), &mut d).unwrap();
        for cut in 0..dl.len() {
            prop_assert_eq!(kind(dlba_decode(&dl[..cut], values.len())), ErrorKind::Truncated, "cut {}", cut);
        }
        for cut in 0..d.len() {
            prop_assert_eq!(kind(dba_decode(&d[..cut], values.len())), ErrorKind::Truncated, "cut {}", cut);
        }
    }

    /// The specification: padding bits and the widths of unneeded miniblocks can be anything.
    #[test]
    fn arbitrary_padding_and_unneeded_widths_are_accepted(
        values in any_values(),
        noise in proptest::collection::vec(any::<u8>(), 64),
    ) {
        let mut data = dbp_encode(&values);
        let len = data.len();
        let (widths, padding) = free_bits(&data, values.len());
        for (i, &at) in widths.iter().enumerate() {
            data[at] = if i % 2 == 0 { 255 } else { noise[i % noise.len()] };
        }
        for (i, &(at, bit)) in padding.iter().enumerate() {
            if noise[i % noise.len()] & 1 == 1 {
                data[at] |= bit;
            }
        }
        prop_assert_eq!(dbp::stream_len::<i64>(&data, values.len()), Ok((values.len(), len)));
        let mut out = vec![0i64; values.len()];
        prop_assert_eq!(dbp::decode(&data, &mut out), Ok((values.len(), len)));
        prop_assert_eq!(out, values);
    }

    /// Random bytes: an error or values, never a panic, with small and unbounded limits.
    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200), max in 0usize..3000) {
        for limit in [max, usize::MAX] {
            let small = limit.min(4096);
            let _ = dbp_decode::<i32>(&data, small);
            let _ = dbp_decode::<i64>(&data, small);
            let _ = dbp::stream_len::<i32>(&data, limit);
            let _ = dbp::stream_len::<i64>(&data, limit);
            if let Ok(mut decoder) = DeltaBinaryPackedDecoder::<i64>::new(&data, limit) {
                let mut out = [0i64; 100];
                let _ = decoder.skip(7).and_then(|_| decoder.next_batch(&mut out));
            }
            let _ = dlba_decode(&data, small);
            let _ = dba_decode(&data, small);
        }
    }

    /// Random bytes after a valid header: the body is all that is random.
    #[test]
    fn random_blocks_never_panic(
        body in proptest::collection::vec(any::<u8>(), 0..400),
        block in prop_oneof![Just((128u64, 4u64)), Just((8, 1)), Just((64, 8)), Just((256, 2))],
        total in 0u64..600,
    ) {
        let mut data = header(block.0, block.1, total, -3);
        data.extend_from_slice(&body);
        let _ = dbp_decode::<i32>(&data, 600);
        let _ = dbp_decode::<i64>(&data, 600);
        let _ = dlba_decode(&data, 600);
        let _ = dba_decode(&data, 600);
    }
}

// ---------------------------------------------------------------------------------------
// Counts

#[test]
fn a_count_above_the_limit_is_refused_before_anything_else() {
    // 20 bytes claiming 2^31 values, with a bad block size too: TooMany comes first.
    let mut data = header(0, 0, 1 << 31, 0);
    data.resize(20, 0);
    for limit in [0, 100] {
        assert_eq!(
            kind(DeltaBinaryPackedDecoder::<i32>::new(&data, limit)),
            ErrorKind::TooMany
        );
        assert_eq!(
            kind(dbp::stream_len::<i64>(&data, limit)),
            ErrorKind::TooMany
        );
        assert_eq!(kind(dlba_decode(&data, limit)), ErrorKind::TooMany);
        assert_eq!(kind(dba_decode(&data, limit)), ErrorKind::TooMany);
    }
    assert_eq!(kind(dbp_decode::<i32>(&data, 100)), ErrorKind::TooMany);
    // The whole-page decoder's limit is the output's length.
    let valid = dbp_encode(&[1i32, 2, 3]);
    assert_eq!(kind(dbp_decode::<i32>(&valid, 2)), ErrorKind::TooMany);
    let message = dbp_decode::<i32>(&data, 100).unwrap_err().to_string();
    assert!(
        message.contains("2147483648") && message.contains("100"),
        "{message}"
    );
}

#[test]
fn a_huge_count_within_an_unbounded_limit_fails_on_the_missing_blocks() {
    let data = header(128, 4, 1 << 62, 7);
    let mut decoder = DeltaBinaryPackedDecoder::<i64>::new(&data, usize::MAX).unwrap();
    assert_eq!(decoder.total_values(), 1 << 62);
    let mut out = [0i64; 1000];
    assert_eq!(kind(decoder.next_batch(&mut out)), ErrorKind::Truncated);
    assert_eq!(out[0], 7);
    assert_eq!(
        kind(dbp::stream_len::<i64>(&data, usize::MAX)),
        ErrorKind::Truncated
    );
    let mut decoder = DeltaBinaryPackedDecoder::<i64>::new(&data, usize::MAX).unwrap();
    assert_eq!(kind(decoder.skip(usize::MAX)), ErrorKind::Truncated);
}

#[test]
fn a_count_past_the_last_block_is_truncated() {
    // 40 values: one block; claiming 200 needs a second block that is not there.
    let values: Vec<i32> = (0..40).map(|i| i * i).collect();
    let mut data = dbp_encode(&values);
    assert_eq!(data[3], 40);
    data[3] = 100; // 99 deltas still fit the first block: undetectable, decodes the padding
    assert_eq!(dbp_decode::<i32>(&data, 200).unwrap()[..40], values[..]);
    let mut lying = data.clone();
    lying[3] = 0xC8;
    lying.insert(4, 0x01); // ULEB128 200
    assert_eq!(kind(dbp_decode::<i32>(&lying, 200)), ErrorKind::Truncated);
    let message = dbp_decode::<i32>(&lying, 200).unwrap_err().message;
    assert!(message.contains("block 1"), "{message}");
}

// ---------------------------------------------------------------------------------------
// Widths and block layouts

/// A header for `total` values, then one block with `widths` and the given body.
fn one_block(block: (u64, u64), total: u64, min_delta: i64, widths: &[u8], body: &[u8]) -> Vec<u8> {
    let mut data = header(block.0, block.1, total, 0);
    write_zigzag(&mut data, min_delta);
    data.extend_from_slice(widths);
    data.extend_from_slice(body);
    data
}

#[test]
fn widths_above_the_type_are_corrupt_and_the_widest_decode() {
    // 3 values: deltas of all ones at the type's width are -1.
    let all_ones = |width: usize| vec![0xFF; 32 * width / 8];
    let w32 = one_block((128, 4), 3, 0, &[32, 0, 0, 0], &all_ones(32));
    assert_eq!(dbp_decode::<i32>(&w32, 3).unwrap(), [0, -1, -2]);
    let w33 = one_block((128, 4), 3, 0, &[33, 0, 0, 0], &all_ones(33));
    expect_error(
        dbp_decode::<i32>(&w33, 3),
        ErrorKind::Corrupt,
        "bit width 33",
    );
    assert_eq!(kind(dbp::stream_len::<i32>(&w33, 3)), ErrorKind::Corrupt);
    // 33 bits of ones are 2^33 - 1 for INT64.
    assert_eq!(
        dbp_decode::<i64>(&w33, 3).unwrap(),
        [0, (1 << 33) - 1, (1 << 34) - 2]
    );
    let w64 = one_block((128, 4), 3, 0, &[64, 0, 0, 0], &all_ones(64));
    assert_eq!(dbp_decode::<i64>(&w64, 3).unwrap(), [0, -1, -2]);
    let w65 = one_block((128, 4), 3, 0, &[65, 0, 0, 0], &all_ones(65));
    assert_eq!(kind(dbp_decode::<i64>(&w65, 3)), ErrorKind::Corrupt);
    assert_eq!(kind(dbp::stream_len::<i64>(&w65, 3)), ErrorKind::Corrupt);
}

#[test]
fn unneeded_miniblock_widths_of_255_are_accepted() {
    // 3 values need one miniblock (deltas 0, 1 at width 1); the others' widths are 255
    // and have no body.
    let data = one_block((128, 4), 3, 0, &[1, 255, 255, 255], &[0b10, 0, 0, 0]);
    assert_eq!(dbp::stream_len::<i32>(&data, 3), Ok((3, data.len())));
    let mut out = [0i32; 3];
    assert_eq!(dbp::decode(&data, &mut out), Ok((3, data.len())));
    assert_eq!(out, [0, 0, 1]);
    // A needed miniblock of width 255 is corrupt.
    let data = one_block((128, 4), 3, 0, &[255, 0, 0, 0], &[0; 40]);
    assert_eq!(kind(dbp_decode::<i64>(&data, 3)), ErrorKind::Corrupt);
}

#[test]
fn hostile_block_layouts_are_corrupt() {
    let cases: [(u64, u64, &str); 7] = [
        (1 << 40, 4, "block size 1099511627776"),
        (0, 1, "block size 0"),
        (MAX_BLOCK_SIZE + 8, 1, "block size"),
        (128, 0, "miniblock count 0"),
        (128, 3, "miniblock count 3"),
        (128, 32, "miniblocks of 4 values"),
        (8, 16, "miniblock count 16"),
    ];
    for (block_size, miniblocks, expected) in cases {
        let mut data = header(block_size, miniblocks, 3, 0);
        data.extend_from_slice(&[0; 64]);
        let error = dbp_decode::<i32>(&data, 3).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Corrupt, "{block_size}/{miniblocks}");
        assert!(error.message.contains(expected), "{}", error.message);
        assert_eq!(kind(dbp::stream_len::<i64>(&data, 3)), ErrorKind::Corrupt);
    }
    // The largest block accepted: 2^20 values in one miniblock of width 0.
    let data = one_block((MAX_BLOCK_SIZE, 1), 5, 3, &[0], &[]);
    assert_eq!(dbp_decode::<i64>(&data, 5).unwrap(), [0, 3, 6, 9, 12]);
    // Hostile but valid: 2^17 miniblocks of 8 values, whose widths are not in the data.
    let data = header(MAX_BLOCK_SIZE, MAX_BLOCK_SIZE / 8, 1000, 0);
    assert_eq!(
        kind(dbp::stream_len::<i32>(&data, 1000)),
        ErrorKind::Truncated
    );
}

#[test]
fn values_out_of_int32_are_corrupt_for_int32_only() {
    let first = i64::from(i32::MAX) + 1;
    let data = header(128, 4, 1, first);
    expect_error(
        dbp_decode::<i32>(&data, 1),
        ErrorKind::Corrupt,
        "first value 2147483648",
    );
    assert_eq!(dbp_decode::<i64>(&data, 1).unwrap(), [first]);
    let data = one_block((128, 4), 2, i64::from(i32::MIN) - 1, &[0, 0, 0, 0], &[]);
    expect_error(
        dbp_decode::<i32>(&data, 2),
        ErrorKind::Corrupt,
        "min delta -2147483649",
    );
    assert_eq!(
        dbp_decode::<i64>(&data, 2).unwrap(),
        [0, i64::from(i32::MIN) - 1]
    );
}

#[test]
fn overlong_header_integers_are_corrupt() {
    let mut data = vec![0x80; 10];
    data.push(0);
    assert_eq!(kind(dbp_decode::<i32>(&data, 10)), ErrorKind::Corrupt);
    expect_error(
        dbp_decode::<i32>(&[0x80], 10),
        ErrorKind::Truncated,
        "block size",
    );
}

// ---------------------------------------------------------------------------------------
// Byte arrays

fn lengths_then(lengths: &[i32], bytes: &[u8]) -> Vec<u8> {
    let mut data = dbp_encode(lengths);
    data.extend_from_slice(bytes);
    data
}

#[test]
fn dlba_negative_and_overlong_lengths() {
    let data = lengths_then(&[3, -1], b"abc");
    expect_error(
        dlba_decode(&data, 2),
        ErrorKind::Corrupt,
        "value 1's length -1",
    );

    let data = lengths_then(&[3, 5], b"abcde");
    let mut decoder = DeltaLengthByteArrayDecoder::new(&data, 2).unwrap();
    let mut out: ByteArrays = [b"x".as_slice()].into_iter().collect();
    expect_error(
        decoder.next_batch(&mut out, 2),
        ErrorKind::Truncated,
        "value 1 of length 5",
    );
    // The caller's values are untouched and the output stays consistent.
    assert_eq!(out.iter().collect::<Vec<_>>(), [b"x".as_slice()]);
    let mut decoder = DeltaLengthByteArrayDecoder::new(&data, 2).unwrap();
    assert_eq!(kind(decoder.skip(2)), ErrorKind::Truncated);
    // The lengths' own count is checked.
    assert_eq!(kind(dlba_decode(&data, 1)), ErrorKind::TooMany);
}

#[test]
fn dlba_ignores_bytes_after_the_last_value() {
    let data = lengths_then(&[1, 2], b"abcTRAILING");
    let mut decoder = DeltaLengthByteArrayDecoder::new(&data, 2).unwrap();
    let mut out = ByteArrays::new();
    assert_eq!(decoder.next_batch(&mut out, 10).unwrap(), 2);
    assert_eq!(out.iter().collect::<Vec<_>>(), [b"a".as_slice(), b"bc"]);
    assert_eq!(decoder.bytes_consumed(), data.len() - b"TRAILING".len());
}

fn dba_stream(prefixes: &[i32], suffixes: &[&str]) -> Vec<u8> {
    let mut data = dbp_encode(prefixes);
    dlba::encode(suffixes.iter().map(|s| s.as_bytes()), &mut data).unwrap();
    data
}

#[test]
fn dba_bad_prefixes_are_corrupt_naming_the_value() {
    let cases: [(&[i32], &[&str], &str); 4] = [
        (
            &[0, 3],
            &["ab", "c"],
            "value 1's prefix length 3 is not in 0..=2",
        ),
        (&[1], &["a"], "value 0's prefix length 1 is not in 0..=0"),
        (&[0, -1], &["ab", "c"], "value 1's prefix length -1"),
        (
            &[0, 2, 4],
            &["ab", "c", "d"],
            "value 2's prefix length 4 is not in 0..=3",
        ),
    ];
    for (prefixes, suffixes, expected) in cases {
        let data = dba_stream(prefixes, suffixes);
        expect_error(dba_decode(&data, 3), ErrorKind::Corrupt, expected);
        // Skipping still checks the prefixes it builds the previous value from.
        let mut decoder = DeltaByteArrayDecoder::new(&data, 3).unwrap();
        assert_eq!(kind(decoder.skip(3)), ErrorKind::Corrupt);
    }
    // The valid neighbour of the first case.
    let data = dba_stream(&[0, 2], &["ab", "c"]);
    let out = dba_decode(&data, 2).unwrap();
    assert_eq!(out.iter().collect::<Vec<_>>(), [b"ab".as_slice(), b"abc"]);
}

#[test]
fn dba_prefix_and_suffix_counts_must_agree() {
    let data = dba_stream(&[0, 0, 0], &["a", "b"]);
    expect_error(
        dba_decode(&data, 3),
        ErrorKind::Corrupt,
        "3 prefix lengths but 2 suffixes",
    );
    let data = dba_stream(&[0], &["a", "b"]);
    assert_eq!(kind(dba_decode(&data, 3)), ErrorKind::Corrupt);
    // Either count above the limit is TooMany.
    assert_eq!(kind(dba_decode(&data, 1)), ErrorKind::TooMany);
    let data = dba_stream(&[0, 0], &["a"]);
    assert_eq!(kind(dba_decode(&data, 1)), ErrorKind::TooMany);
}

#[test]
fn dba_suffixes_past_the_data_are_truncated() {
    let mut data = dba_stream(&[0, 1], &["ab", "cd"]);
    data.pop();
    expect_error(
        dba_decode(&data, 2),
        ErrorKind::Truncated,
        "value 1 of length 2",
    );
}

#[test]
fn dba_fixed_len_checks_every_value() {
    let data = dba_stream(&[0, 2, 1], &["ab", "c", "d"]);
    expect_error(
        decode_arrays(DeltaByteArrayDecoder::new_fixed_len(&data, 3, 2)),
        ErrorKind::Corrupt,
        "value 1 has 3 bytes",
    );
    let out = decode_arrays(DeltaByteArrayDecoder::new(&data, 3)).unwrap();
    assert_eq!(
        out.iter().collect::<Vec<_>>(),
        [b"ab".as_slice(), b"abc", b"ad"]
    );
    assert_eq!(
        kind(DeltaByteArrayDecoder::new_fixed_len(&data, 3, 0)),
        ErrorKind::InvalidArgument
    );
}
