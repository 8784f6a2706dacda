//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY: the specification's
//! golden vectors, round trips, incremental decoding against whole-page decoding, and
//! differential tests against arrow-rs in both directions.

mod common;

use bytes::Bytes;
use common::arrow_rs;
use parquet::basic::{Encoding, Type as ArrowPhysical};
use parquet::data_type::{
    ByteArray, ByteArrayType, DataType, FixedLenByteArray, FixedLenByteArrayType, Int32Type,
    Int64Type,
};
use parquet::encodings::decoding::get_decoder;
use parquet::encodings::encoding::get_encoder;
use parquet_layouts::encodings::encoding::{
    DeltaBinaryPackedEncoderOptions, DeltaBitPackEncoder, Encoder as _,
};
use proptest::prelude::*;
use qpl_fallback::parquet::delta_binary_packed::{self as dbp, DeltaBinaryPackedDecoder, DeltaInt};
use qpl_fallback::parquet::delta_byte_array::{self as dba, DeltaByteArrayDecoder};
use qpl_fallback::parquet::delta_length_byte_array::{self as dlba, DeltaLengthByteArrayDecoder};
use qpl_fallback::parquet::{ByteArrayDecoder, ByteArrays, ValueDecoder};

// ---------------------------------------------------------------------------------------
// Helpers

fn dbp_encode<T: DeltaInt>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    dbp::encode(values, &mut out);
    out
}

fn dbp_decode<T: DeltaInt>(data: &[u8], max: usize) -> (Vec<T>, usize) {
    let mut out = vec![T::default(); max];
    let (n, bytes) = dbp::decode(data, &mut out).expect("valid stream");
    out.truncate(n);
    (out, bytes)
}

fn dlba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    dlba::encode(values.iter().map(Vec::as_slice), &mut out).unwrap();
    out
}

fn dba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    dba::encode(values.iter().map(Vec::as_slice), &mut out).unwrap();
    out
}

fn decode_all(mut decoder: impl ByteArrayDecoder) -> Vec<Vec<u8>> {
    let mut out = ByteArrays::new();
    let n = decoder.remaining();
    assert_eq!(decoder.next_batch(&mut out, usize::MAX).unwrap(), n);
    assert_eq!(decoder.remaining(), 0);
    out.iter().map(<[u8]>::to_vec).collect()
}

fn arrow_encode<A: DataType>(encoding: Encoding, values: &[A::T]) -> Vec<u8> {
    arrow_rs::encode::<A>(encoding, values, -1)
}

fn arrow_decode<A: DataType>(encoding: Encoding, data: &[u8], count: usize) -> Vec<A::T> {
    arrow_rs::decode::<A>(encoding, data, count, -1)
}

fn to_arrow(values: &[Vec<u8>]) -> Vec<ByteArray> {
    values.iter().map(|v| ByteArray::from(v.clone())).collect()
}

fn from_arrow(values: &[ByteArray]) -> Vec<Vec<u8>> {
    values.iter().map(|v| v.data().to_vec()).collect()
}

// ---------------------------------------------------------------------------------------
// Golden vectors of the specification

/// Example 1: 1, 2, 3, 4, 5 with block size 8, 1 miniblock: the header, then min delta 1 and
/// width 0.
const EXAMPLE_1: [u8; 6] = [8, 1, 5, 2, 2, 0];
/// Example 2: 7, 5, 3, 1, 2, 3, 4, 5: min delta -2 (zigzag 3), width 2, then 0,0,0,3 | 3,3,3
/// and one padding value, LSB-first: 0xC0 0x3F.
const EXAMPLE_2: [u8; 8] = [8, 1, 8, 14, 3, 2, 0xC0, 0x3F];

#[test]
fn spec_example_1_decodes() {
    assert_eq!(dbp_decode::<i32>(&EXAMPLE_1, 5), (vec![1, 2, 3, 4, 5], 6));
    assert_eq!(dbp_decode::<i64>(&EXAMPLE_1, 100), (vec![1, 2, 3, 4, 5], 6));
    assert_eq!(dbp::stream_len::<i32>(&EXAMPLE_1, 5), Ok((5, 6)));
}

#[test]
fn spec_example_2_decodes_with_any_padding_bits() {
    let expected = vec![7, 5, 3, 1, 2, 3, 4, 5];
    assert_eq!(dbp_decode::<i32>(&EXAMPLE_2, 8), (expected.clone(), 8));
    assert_eq!(
        dbp_decode::<i64>(&EXAMPLE_2, 8),
        (expected.iter().map(|&v| i64::from(v)).collect(), 8)
    );
    // The padding value's two bits set: readers must accept arbitrary padding.
    let mut padded = EXAMPLE_2;
    padded[7] |= 0xC0;
    assert_eq!(dbp_decode::<i32>(&padded, 8), (expected, 8));
}

#[test]
fn spec_example_lengths_encode_as_worked_out_by_hand() {
    // [5, 5, 6, 6]: header 128 (ULEB128 0x80 0x01), 4 miniblocks, 4 values, first 5 (zigzag
    // 10); one block: deltas 0, 1, 0, min 0, widths 1, 0, 0, 0, then 32 one-bit values
    // 0, 1, 0, 0... = 0x02 0x00 0x00 0x00.
    let expected = [0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0];
    assert_eq!(dbp_encode(&[5i32, 5, 6, 6]), expected);
}

#[test]
fn spec_delta_length_byte_array_example() {
    let values: Vec<Vec<u8>> = ["Hello", "World", "Foobar", "ABCDEF"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let mut expected = dbp_encode(&[5i32, 5, 6, 6]);
    let lengths_end = expected.len();
    expected.extend_from_slice(b"HelloWorldFoobarABCDEF");
    assert_eq!(dlba_encode(&values), expected);
    assert_eq!(
        dbp_decode::<i32>(&expected, 4),
        (vec![5, 5, 6, 6], lengths_end)
    );
    let decoder = DeltaLengthByteArrayDecoder::new(&expected, 4).unwrap();
    assert_eq!(decode_all(decoder), values);
}

#[test]
fn spec_delta_byte_array_example() {
    let values: Vec<Vec<u8>> = ["axis", "axle", "babble", "babyhood"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let mut expected = dbp_encode(&[0i32, 2, 0, 3]);
    let prefixes_end = expected.len();
    expected.extend(dbp_encode(&[4i32, 2, 6, 5]));
    let suffixes_end = expected.len();
    expected.extend_from_slice(b"axislebabbleyhood");
    assert_eq!(dba_encode(&values), expected);
    assert_eq!(
        dbp_decode::<i32>(&expected, 4),
        (vec![0, 2, 0, 3], prefixes_end)
    );
    assert_eq!(
        dbp_decode::<i32>(&expected[prefixes_end..], 4),
        (vec![4, 2, 6, 5], suffixes_end - prefixes_end)
    );
    let decoder = DeltaByteArrayDecoder::new(&expected, 4).unwrap();
    assert_eq!(decode_all(decoder), values);
}

// ---------------------------------------------------------------------------------------
// Strategies

/// Lengths around the encoder's miniblock (32) and block (128) boundaries, and anything.
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..3,
        30usize..35,
        126usize..131,
        254usize..260,
        0usize..700,
    ]
}

fn special_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0),
        Just(-1),
        Just(i64::from(i32::MIN)),
        Just(i64::from(i32::MAX)),
        any::<i64>(),
        -1000i64..1000,
    ]
}

/// Random, extreme (wrapping jumps), sorted with small gaps, and constant runs.
fn values_i64() -> impl Strategy<Value = Vec<i64>> {
    prop_oneof![
        length().prop_flat_map(|n| proptest::collection::vec(special_i64(), n)),
        (length(), special_i64(), 0u64..20).prop_flat_map(|(n, start, gap)| {
            proptest::collection::vec(0..=gap, n).prop_map(move |gaps| {
                gaps.iter()
                    .scan(start, |acc, &g| {
                        *acc = acc.wrapping_add(g as i64);
                        Some(*acc)
                    })
                    .collect()
            })
        }),
        (length(), special_i64(), 1usize..300).prop_flat_map(|(n, v, run)| {
            proptest::collection::vec(prop_oneof![Just(v), special_i64()], n.div_ceil(run))
                .prop_map(move |runs| {
                    runs.iter()
                        .flat_map(|&v| std::iter::repeat_n(v, run))
                        .take(n)
                        .collect()
                })
        }),
    ]
}

fn values_i32() -> impl Strategy<Value = Vec<i32>> {
    prop_oneof![
        values_i64().prop_map(|v| v.iter().map(|&x| x as i32).collect()),
        length().prop_flat_map(|n| proptest::collection::vec(
            prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>()],
            n
        )),
    ]
}

/// Byte arrays with empty values and shared prefixes (sorted or not).
fn byte_arrays() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let value = prop_oneof![
        Just(Vec::new()),
        proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), any::<u8>()], 0..12),
        proptest::collection::vec(any::<u8>(), 0..300),
    ];
    (proptest::collection::vec(value, 0..300), any::<bool>()).prop_map(|(mut values, sort)| {
        if sort {
            values.sort();
        }
        values
    })
}

/// Decodes with random batch sizes and skips, returning what was decoded and the skipped
/// positions, to compare with the whole page.
#[derive(Clone, Debug)]
enum Step {
    Batch(usize),
    Skip(usize),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    proptest::collection::vec(
        prop_oneof![
            (0usize..140).prop_map(Step::Batch),
            (0usize..140).prop_map(Step::Skip),
            (1usize..4).prop_map(Step::Batch),
            (1usize..4).prop_map(Step::Skip),
        ],
        1..40,
    )
}

fn incremental_values<T: DeltaInt>(data: &[u8], count: usize, steps: &[Step]) -> Vec<Option<T>> {
    let mut decoder = DeltaBinaryPackedDecoder::<T>::new(data, count).unwrap();
    let mut seen = Vec::new();
    for step in steps.iter().cycle().take(steps.len() * 20) {
        if decoder.remaining() == 0 {
            break;
        }
        match *step {
            Step::Batch(n) => {
                let mut out = vec![T::default(); n];
                let before = decoder.remaining();
                let got = decoder.next_batch(&mut out).unwrap();
                assert_eq!(got, n.min(before));
                seen.extend(out[..got].iter().copied().map(Some));
            }
            Step::Skip(n) => {
                let got = decoder.skip(n).unwrap();
                seen.extend(std::iter::repeat_n(None, got));
            }
        }
    }
    // The rest in one batch.
    let mut rest = vec![T::default(); decoder.remaining()];
    decoder.next_batch(&mut rest).unwrap();
    seen.extend(rest.into_iter().map(Some));
    assert_eq!(decoder.remaining(), 0);
    assert_eq!(decoder.bytes_consumed(), data.len());
    seen
}

fn incremental_arrays(mut decoder: impl ByteArrayDecoder, steps: &[Step]) -> Vec<Option<Vec<u8>>> {
    let mut seen = Vec::new();
    let mut out = ByteArrays::new();
    for step in steps.iter().cycle().take(steps.len() * 20) {
        if decoder.remaining() == 0 {
            break;
        }
        match *step {
            Step::Batch(n) => {
                let before = out.len();
                let got = decoder.next_batch(&mut out, n).unwrap();
                assert_eq!(out.len(), before + got);
                seen.extend((before..out.len()).map(|i| Some(out.get(i).to_vec())));
            }
            Step::Skip(n) => {
                let got = decoder.skip(n).unwrap();
                seen.extend(std::iter::repeat_n(None, got));
            }
        }
    }
    let before = out.len();
    decoder.next_batch(&mut out, usize::MAX).unwrap();
    seen.extend((before..out.len()).map(|i| Some(out.get(i).to_vec())));
    seen
}

fn check_incremental<V: Clone + PartialEq + std::fmt::Debug>(whole: &[V], seen: &[Option<V>]) {
    assert_eq!(seen.len(), whole.len());
    for (i, (s, w)) in seen.iter().zip(whole).enumerate() {
        if let Some(s) = s {
            assert_eq!(s, w, "value {i}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Round trips and incremental decoding

fn round_trip<T: DeltaInt>(values: &[T]) {
    let encoded = dbp_encode(values);
    assert_eq!(
        dbp::stream_len::<T>(&encoded, values.len()),
        Ok((values.len(), encoded.len()))
    );
    // A larger limit than the count, with garbage after the stream: same values, same end.
    let mut padded = encoded.clone();
    padded.extend_from_slice(&[0xFF; 9]);
    let (decoded, bytes) = dbp_decode::<T>(&padded, values.len() + 5);
    assert_eq!(decoded, values);
    assert_eq!(bytes, encoded.len());
    let decoder = DeltaBinaryPackedDecoder::<T>::new(&encoded, values.len()).unwrap();
    assert_eq!(decoder.total_values(), values.len());
    assert_eq!(decoder.remaining(), values.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn dbp_i32_round_trips(values in values_i32()) {
        round_trip(&values);
    }

    #[test]
    fn dbp_i64_round_trips(values in values_i64()) {
        round_trip(&values);
    }

    #[test]
    fn dbp_incremental_equals_whole_page(values in values_i64(), steps in steps()) {
        let encoded = dbp_encode(&values);
        check_incremental(&values, &incremental_values::<i64>(&encoded, values.len(), &steps));
        let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        let encoded = dbp_encode(&narrow);
        check_incremental(&narrow, &incremental_values::<i32>(&encoded, narrow.len(), &steps));
    }

    #[test]
    fn byte_arrays_round_trip_whole_and_incremental(values in byte_arrays(), steps in steps()) {
        let encoded = dlba_encode(&values);
        let decoder = DeltaLengthByteArrayDecoder::new(&encoded, values.len()).unwrap();
        prop_assert_eq!(decoder.remaining(), values.len());
        let decoded = decode_all(decoder.clone());
        prop_assert_eq!(&decoded, &values);
        check_incremental(&values, &incremental_arrays(decoder, &steps));

        let encoded = dba_encode(&values);
        let decoder = DeltaByteArrayDecoder::new(&encoded, values.len()).unwrap();
        prop_assert_eq!(&decode_all(decoder.clone()), &values);
        check_incremental(&values, &incremental_arrays(decoder, &steps));
    }

    #[test]
    fn byte_array_decoders_append_to_existing_output(values in byte_arrays()) {
        let mut out: ByteArrays = [b"kept".as_slice(), b""].into_iter().collect();
        let encoded = dba_encode(&values);
        let mut decoder = DeltaByteArrayDecoder::new(&encoded, values.len()).unwrap();
        decoder.next_batch(&mut out, usize::MAX).unwrap();
        let encoded = dlba_encode(&values);
        let mut decoder = DeltaLengthByteArrayDecoder::new(&encoded, values.len()).unwrap();
        decoder.next_batch(&mut out, usize::MAX).unwrap();
        let expected: Vec<&[u8]> = [b"kept".as_slice(), b""]
            .into_iter()
            .chain(values.iter().map(Vec::as_slice))
            .chain(values.iter().map(Vec::as_slice))
            .collect();
        prop_assert_eq!(out.iter().collect::<Vec<_>>(), expected);
    }
}

// ---------------------------------------------------------------------------------------
// Differential tests against arrow-rs

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn dbp_i32_matches_arrow_both_ways_and_byte_for_byte(values in values_i32()) {
        let theirs = arrow_encode::<Int32Type>(Encoding::DELTA_BINARY_PACKED, &values);
        let ours = dbp_encode(&values);
        // arrow-rs writes INT32 in blocks of 128 = 4 miniblocks of 32, as we do.
        prop_assert_eq!(&ours, &theirs);
        prop_assert_eq!(dbp_decode::<i32>(&theirs, values.len()), (values.clone(), theirs.len()));
        prop_assert_eq!(
            arrow_decode::<Int32Type>(Encoding::DELTA_BINARY_PACKED, &ours, values.len()),
            values
        );
    }

    #[test]
    fn dbp_i64_matches_arrow_both_ways(values in values_i64()) {
        // arrow-rs writes INT64 in blocks of 256 = 4 miniblocks of 64 (not our 128 = 4 × 32,
        // parquet-mr's layout for both types): we decode theirs, they decode ours.
        let theirs = arrow_encode::<Int64Type>(Encoding::DELTA_BINARY_PACKED, &values);
        prop_assert_eq!(dbp_decode::<i64>(&theirs, values.len()), (values.clone(), theirs.len()));
        let ours = dbp_encode(&values);
        prop_assert_eq!(
            arrow_decode::<Int64Type>(Encoding::DELTA_BINARY_PACKED, &ours, values.len()),
            values.clone()
        );
        // With our layout requested, arrow-rs writes our bytes.
        let mut encoder = DeltaBitPackEncoder::<parquet_layouts::data_type::Int64Type>::new_with_options(
            DeltaBinaryPackedEncoderOptions::try_new(128, 4).unwrap(),
        );
        encoder.put(&values).unwrap();
        prop_assert_eq!(encoder.flush_buffer().unwrap().to_vec(), ours);
    }

    #[test]
    fn byte_arrays_match_arrow_both_ways_and_byte_for_byte(values in byte_arrays()) {
        let arrow_values = to_arrow(&values);
        for encoding in [Encoding::DELTA_LENGTH_BYTE_ARRAY, Encoding::DELTA_BYTE_ARRAY] {
            let theirs = arrow_encode::<ByteArrayType>(encoding, &arrow_values);
            let ours = if encoding == Encoding::DELTA_BYTE_ARRAY {
                dba_encode(&values)
            } else {
                dlba_encode(&values)
            };
            prop_assert_eq!(&ours, &theirs);
            let decoded = if encoding == Encoding::DELTA_BYTE_ARRAY {
                decode_all(DeltaByteArrayDecoder::new(&theirs, values.len()).unwrap())
            } else {
                decode_all(DeltaLengthByteArrayDecoder::new(&theirs, values.len()).unwrap())
            };
            prop_assert_eq!(&decoded, &values);
            let back = arrow_decode::<ByteArrayType>(encoding, &ours, values.len());
            prop_assert_eq!(from_arrow(&back), values.clone());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// FIXED_LEN_BYTE_ARRAY: arrow-rs's DELTA_BYTE_ARRAY of fixed-length values decodes with
    /// the length checked; ours (the same bytes) decodes in arrow-rs.
    #[test]
    fn fixed_len_byte_arrays_match_arrow(
        len in 1usize..6,
        seeds in proptest::collection::vec(any::<u64>(), 0..200),
    ) {
        let values: Vec<Vec<u8>> = seeds.iter().map(|s| s.to_le_bytes()[..len].iter().map(|b| b % 3).collect()).collect();
        let descr = arrow_rs::column(ArrowPhysical::FIXED_LEN_BYTE_ARRAY, len as i32);
        let arrow_values: Vec<FixedLenByteArray> = to_arrow(&values).into_iter().map(FixedLenByteArray::from).collect();
        let mut encoder = get_encoder::<FixedLenByteArrayType>(Encoding::DELTA_BYTE_ARRAY, &descr).unwrap();
        encoder.put(&arrow_values).unwrap();
        let theirs = encoder.flush_buffer().unwrap().to_vec();
        let ours = dba_encode(&values);
        prop_assert_eq!(&ours, &theirs);
        let decoded = decode_all(DeltaByteArrayDecoder::new_fixed_len(&theirs, values.len(), len).unwrap());
        prop_assert_eq!(&decoded, &values);
        let mut decoder = get_decoder::<FixedLenByteArrayType>(descr, Encoding::DELTA_BYTE_ARRAY).unwrap();
        decoder.set_data(Bytes::from(ours), values.len()).unwrap();
        let mut back = vec![FixedLenByteArray::default(); values.len()];
        prop_assert_eq!(decoder.get(&mut back).unwrap(), values.len());
        prop_assert_eq!(back.iter().map(|v| v.data().to_vec()).collect::<Vec<_>>(), values);
    }
}

/// arrow-rs with its other valid layouts: miniblocks of 64..1024 values exercise chunks inside a
/// miniblock (the decoder unpacks 64 values at a time) and blocks of up to 8 miniblocks.
fn arrow_layout() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![
        Just((128, 1)),
        Just((128, 2)),
        Just((256, 8)),
        Just((512, 4)),
        Just((1024, 1)),
        Just((384, 3)),
    ]
}

fn arrow_encode_with<A: parquet_layouts::data_type::DataType>(
    layout: (usize, usize),
    values: &[A::T],
) -> Vec<u8> {
    let options = DeltaBinaryPackedEncoderOptions::try_new(layout.0, layout.1).unwrap();
    let mut encoder = DeltaBitPackEncoder::<A>::new_with_options(options);
    encoder.put(values).unwrap();
    encoder.flush_buffer().unwrap().to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn dbp_decodes_arrow_layouts_whole_and_incremental(
        values in values_i64(),
        layout in arrow_layout(),
        steps in steps(),
    ) {
        let theirs = arrow_encode_with::<parquet_layouts::data_type::Int64Type>(layout, &values);
        prop_assert_eq!(dbp::stream_len::<i64>(&theirs, values.len()), Ok((values.len(), theirs.len())));
        prop_assert_eq!(dbp_decode::<i64>(&theirs, values.len()), (values.clone(), theirs.len()));
        check_incremental(&values, &incremental_values::<i64>(&theirs, values.len(), &steps));

        let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        let theirs = arrow_encode_with::<parquet_layouts::data_type::Int32Type>(layout, &narrow);
        prop_assert_eq!(dbp::stream_len::<i32>(&theirs, narrow.len()), Ok((narrow.len(), theirs.len())));
        prop_assert_eq!(dbp_decode::<i32>(&theirs, narrow.len()), (narrow.clone(), theirs.len()));
        check_incremental(&narrow, &incremental_values::<i32>(&theirs, narrow.len(), &steps));
    }
}
