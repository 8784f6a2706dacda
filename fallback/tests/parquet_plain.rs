//! PLAIN (`qpl_fallback::parquet::plain`): the spec's layout byte for byte, round trips of
//! random values of every physical type, incremental decoding against whole-page decoding,
//! arrow-rs in both directions, and hostile input (truncation at every length, lying counts,
//! lengths past the data).

mod common;

use common::{arrow_rs, steps};
use parquet::basic::Encoding;
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FixedLenByteArray,
    FixedLenByteArrayType, FloatType, Int32Type, Int64Type, Int96Type,
};
use proptest::prelude::*;
use qpl_fallback::parquet::plain::{
    self, PlainBooleanDecoder, PlainByteArrayDecoder, PlainDecoder, PlainFixedLenDecoder,
};
use qpl_fallback::parquet::{
    ByteArrayDecoder, ByteArrays, ErrorKind, FixedWidth, Int96, ValueDecoder,
};

/// arrow-rs's PLAIN bytes of `values`.
fn arrow_encode<T: DataType>(values: &[T::T], type_length: i32) -> Vec<u8> {
    arrow_rs::encode::<T>(Encoding::PLAIN, values, type_length)
}

/// arrow-rs's decoding of `n` PLAIN values.
fn arrow_decode<T: DataType>(data: &[u8], n: usize, type_length: i32) -> Vec<T::T> {
    arrow_rs::decode::<T>(Encoding::PLAIN, data, n, type_length)
}

/// A value's bits, so that NaNs compare equal to themselves.
trait Bits: Copy + Default + std::fmt::Debug {
    fn bits(&self) -> Vec<u8>;
}

impl<T: FixedWidth> Bits for T {
    fn bits(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; T::SIZE];
        self.write_le(&mut bytes);
        bytes
    }
}

fn bits<V: Bits>(values: &[V]) -> Vec<Vec<u8>> {
    values.iter().map(Bits::bits).collect()
}

/// Drives `decoder` with `steps` (skip or decode, how many) until it is empty, checking each
/// batch against `whole` (bit for bit) and each count against what remained.
fn check_incremental<D>(mut decoder: D, whole: &[D::Value], steps: &[(bool, usize)])
where
    D: ValueDecoder,
    D::Value: Bits,
{
    steps::check_values(&mut decoder, whole, steps, D::Value::default(), bits)
}

fn check_booleans<D: ValueDecoder<Value = bool>>(
    mut decoder: D,
    whole: &[bool],
    steps: &[(bool, usize)],
) {
    steps::check_values(&mut decoder, whole, steps, false, <[bool]>::to_vec)
}

fn steps() -> impl Strategy<Value = Vec<(bool, usize)>> {
    prop::collection::vec((any::<bool>(), 1usize..40), 1..8)
}

/// Checks one fixed-width type: our bytes are the values' LE bytes back to back; `decode`
/// and the incremental decoder give the values back (compared as bytes, so NaN payloads
/// count).
fn round_trip<T: FixedWidth>(values: &[T], steps: &[(bool, usize)]) -> Vec<u8> {
    let mut data = vec![0xEE]; // encode appends
    plain::encode(values, &mut data);
    assert_eq!(data[0], 0xEE);
    let data = data.split_off(1);
    assert_eq!(data.len(), values.len() * T::SIZE);
    for (value, chunk) in values.iter().zip(data.chunks_exact(T::SIZE)) {
        let mut bytes = vec![0u8; T::SIZE];
        value.write_le(&mut bytes);
        assert_eq!(chunk, &bytes[..]);
    }
    let mut decoded = vec![T::default(); values.len()];
    assert_eq!(plain::decode(&data, &mut decoded).unwrap(), data.len());
    let mut again = Vec::new();
    plain::encode(&decoded, &mut again);
    assert_eq!(again, data, "decoded values re-encode to the same bytes");
    check_incremental(
        PlainDecoder::<T>::new(&data, values.len()).unwrap(),
        &decoded,
        steps,
    );
    data
}

fn int96() -> impl Strategy<Value = Int96> {
    any::<[u32; 3]>().prop_map(Int96)
}

fn arrow_int96(value: Int96) -> parquet::data_type::Int96 {
    let mut v = parquet::data_type::Int96::new();
    v.set_data(value.0[0], value.0[1], value.0[2]);
    v
}

proptest! {
    #[test]
    fn int32_round_trip_and_arrow(
        values in prop::collection::vec(prop_oneof![any::<i32>(), Just(i32::MIN), Just(i32::MAX)], 0..300),
        steps in steps(),
    ) {
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<Int32Type, _>(Encoding::PLAIN, &values, &data, -1, Clone::clone);
    }

    #[test]
    fn int64_round_trip_and_arrow(
        values in prop::collection::vec(prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX)], 0..300),
        steps in steps(),
    ) {
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<Int64Type, _>(Encoding::PLAIN, &values, &data, -1, Clone::clone);
    }

    #[test]
    fn float_round_trip_and_arrow(bits in prop::collection::vec(any::<u32>(), 0..300), steps in steps()) {
        let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<FloatType, _>(Encoding::PLAIN, &values, &data, -1, |v| v.to_bits());
    }

    #[test]
    fn double_round_trip_and_arrow(bits in prop::collection::vec(any::<u64>(), 0..300), steps in steps()) {
        let values: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<DoubleType, _>(Encoding::PLAIN, &values, &data, -1, |v| v.to_bits());
    }

    #[test]
    fn int96_round_trip_and_arrow(values in prop::collection::vec(int96(), 0..200), steps in steps()) {
        let data = round_trip(&values, &steps);
        let arrow_values: Vec<_> = values.iter().map(|&v| arrow_int96(v)).collect();
        arrow_rs::check_both_ways::<Int96Type, _>(Encoding::PLAIN, &arrow_values, &data, -1, Clone::clone);
    }

    #[test]
    fn boolean_round_trip_and_arrow(values in prop::collection::vec(any::<bool>(), 0..300), steps in steps(), garbage in any::<u8>()) {
        let mut data = Vec::new();
        plain::encode_booleans(&values, &mut data);
        prop_assert_eq!(data.len(), values.len().div_ceil(8));
        arrow_rs::check_both_ways::<BoolType, _>(Encoding::PLAIN, &values, &data, -1, Clone::clone);
        // The last byte's padding bits are written as 0, and ignored when read.
        let used = values.len() % 8;
        if used != 0 {
            prop_assert_eq!(data[data.len() - 1] >> used, 0);
            let last = data.len() - 1;
            data[last] |= garbage << used;
        }
        let mut decoded = vec![false; values.len()];
        prop_assert_eq!(plain::decode_booleans(&data, &mut decoded).unwrap(), data.len());
        prop_assert_eq!(&decoded, &values);
        check_booleans(PlainBooleanDecoder::new(&data, values.len()).unwrap(), &values, &steps);
    }

    #[test]
    fn byte_array_round_trip_and_arrow(
        values in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 0..100),
        steps in steps(),
    ) {
        let mut data = Vec::new();
        plain::encode_byte_arrays(values.iter().map(Vec::as_slice), &mut data).unwrap();
        let arrow_values: Vec<ByteArray> = values.iter().map(|v| ByteArray::from(v.clone())).collect();
        arrow_rs::check_both_ways::<ByteArrayType, _>(Encoding::PLAIN, &arrow_values, &data, -1, Clone::clone);
        let mut out = ByteArrays::new();
        let mut decoder = PlainByteArrayDecoder::new(&data, values.len()).unwrap();
        prop_assert_eq!(decoder.next_batch(&mut out, usize::MAX).unwrap(), values.len());
        prop_assert_eq!(out.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), values.clone());
        steps::check_byte_arrays(&mut PlainByteArrayDecoder::new(&data, values.len()).unwrap(), &values, &steps);
    }

    /// Values around the 32-byte chunks a page decoded whole is copied in (one, two, more
    /// than two), with bytes after them in the data and values already in `out`: the same
    /// values whole or in two batches (the walk that checks before copying).
    #[test]
    fn byte_arrays_of_any_length_decode_whole_and_in_batches_alike(
        values in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..150), 0..60),
        garbage in prop::collection::vec(any::<u8>(), 0..100),
        first in 0usize..60,
    ) {
        let mut data = Vec::new();
        plain::encode_byte_arrays(values.iter().map(Vec::as_slice), &mut data).unwrap();
        data.extend_from_slice(&garbage);
        let mut expected = vec![b"kept".to_vec()];
        expected.extend(values.iter().cloned());
        let mut whole = ByteArrays::new();
        whole.push(b"kept").unwrap();
        let mut decoder = PlainByteArrayDecoder::new(&data, values.len()).unwrap();
        prop_assert_eq!(decoder.next_batch(&mut whole, values.len()).unwrap(), values.len());
        prop_assert_eq!(whole.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), expected.clone());
        let mut batches = ByteArrays::new();
        batches.push(b"kept").unwrap();
        let mut decoder = PlainByteArrayDecoder::new(&data, values.len()).unwrap();
        let first = first.min(values.len());
        prop_assert_eq!(decoder.next_batch(&mut batches, first).unwrap(), first);
        prop_assert_eq!(decoder.next_batch(&mut batches, usize::MAX).unwrap(), values.len() - first);
        prop_assert_eq!(batches.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn fixed_len_round_trip_and_arrow(
        type_length in 1usize..20,
        raw in prop::collection::vec(any::<u8>(), 0..400),
        steps in steps(),
    ) {
        let values: Vec<Vec<u8>> = raw.chunks_exact(type_length).map(<[u8]>::to_vec).collect();
        let mut data = Vec::new();
        plain::encode_fixed_len(values.iter().map(Vec::as_slice), type_length, &mut data).unwrap();
        prop_assert_eq!(data.len(), values.len() * type_length);
        let arrow_values: Vec<FixedLenByteArray> = values.iter().map(|v| FixedLenByteArray::from(v.clone())).collect();
        prop_assert_eq!(&arrow_encode::<FixedLenByteArrayType>(&arrow_values, type_length as i32), &data);
        let back = arrow_decode::<FixedLenByteArrayType>(&data, values.len(), type_length as i32);
        prop_assert_eq!(back.iter().map(|v| v.data().to_vec()).collect::<Vec<_>>(), values.clone());
        steps::check_byte_arrays(&mut PlainFixedLenDecoder::new(&data, type_length, values.len()).unwrap(), &values, &steps);
    }

    /// arrow-rs's bytes decoded by us, for data arrow-rs wrote (the other direction of the
    /// tests above, which compare bytes).
    #[test]
    fn arrow_written_int32_and_byte_arrays_decode(
        ints in prop::collection::vec(any::<i32>(), 0..200),
        arrays in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..10), 0..50),
    ) {
        let data = arrow_encode::<Int32Type>(&ints, -1);
        let mut decoded = vec![0i32; ints.len()];
        prop_assert_eq!(plain::decode(&data, &mut decoded).unwrap(), data.len());
        prop_assert_eq!(&decoded, &ints);
        let arrow_values: Vec<ByteArray> = arrays.iter().map(|v| ByteArray::from(v.clone())).collect();
        let data = arrow_encode::<ByteArrayType>(&arrow_values, -1);
        let mut out = ByteArrays::new();
        PlainByteArrayDecoder::new(&data, arrays.len()).unwrap().next_batch(&mut out, usize::MAX).unwrap();
        prop_assert_eq!(out.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), arrays);
    }
}

/// The spec's layouts, written out: INT32/INT64/DOUBLE little endian, BOOLEAN LSB first,
/// BYTE_ARRAY a 4-byte LE length then the bytes, FIXED_LEN_BYTE_ARRAY just the bytes.
#[test]
fn spec_layouts() {
    let mut out = Vec::new();
    plain::encode(&[1i32, -2], &mut out);
    assert_eq!(out, [0x01, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF]);
    out.clear();
    plain::encode(&[0x0102_0304_0506_0708i64], &mut out);
    assert_eq!(out, [8, 7, 6, 5, 4, 3, 2, 1]);
    out.clear();
    plain::encode(&[1.0f64], &mut out);
    assert_eq!(out, [0, 0, 0, 0, 0, 0, 0xF0, 0x3F]);
    out.clear();
    plain::encode(&[Int96([1, 2, 3])], &mut out);
    assert_eq!(out, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    out.clear();
    plain::encode_booleans(
        &[true, false, true, true, false, false, false, false, true],
        &mut out,
    );
    assert_eq!(out, [0b0000_1101, 0b0000_0001]);
    out.clear();
    plain::encode_byte_arrays([&b"ab"[..], b"", b"c"], &mut out).unwrap();
    assert_eq!(out, [2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0, 1, 0, 0, 0, b'c']);
    out.clear();
    plain::encode_fixed_len([&b"xy"[..], b"zw"], 2, &mut out).unwrap();
    assert_eq!(out, b"xyzw");
}

#[test]
fn fixed_width_truncated_at_every_length() {
    let mut data = Vec::new();
    plain::encode(&[1i64, 2, 3, 4, 5], &mut data);
    for len in 0..data.len() {
        let mut out = [7i64; 5];
        let err = plain::decode(&data[..len], &mut out).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{len}: {err}");
        assert_eq!(out, [7; 5], "out untouched on error");
        assert_eq!(
            PlainDecoder::<i64>::new(&data[..len], 5).unwrap_err().kind,
            ErrorKind::Truncated
        );
    }
    // Trailing bytes past the caller's count are ignored.
    let mut out = [0i64; 2];
    assert_eq!(plain::decode(&data, &mut out).unwrap(), 16);
    assert_eq!(out, [1, 2]);
}

#[test]
fn lying_counts_error_without_allocating() {
    let data = [0u8; 10];
    for count in [
        1usize << 31,
        usize::MAX,
        usize::MAX / 4 + 1,
        usize::MAX / 12 + 1,
    ] {
        assert_eq!(
            PlainDecoder::<i32>::new(&data, count).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            PlainDecoder::<Int96>::new(&data, count).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            PlainBooleanDecoder::new(&data, count).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            PlainByteArrayDecoder::new(&data, count).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            PlainFixedLenDecoder::new(&data, 3, count).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            PlainFixedLenDecoder::new(&data, usize::MAX, count)
                .unwrap_err()
                .kind,
            ErrorKind::Truncated
        );
    }
    // 10 bytes hold 80 booleans and 2 byte-array lengths, not 81 / 3.
    assert!(PlainBooleanDecoder::new(&data, 80).is_ok());
    assert_eq!(
        PlainBooleanDecoder::new(&data, 81).unwrap_err().kind,
        ErrorKind::Truncated
    );
    assert_eq!(
        PlainByteArrayDecoder::new(&data, 3).unwrap_err().kind,
        ErrorKind::Truncated
    );
}

#[test]
fn booleans_truncated() {
    let mut out = [false; 17];
    assert_eq!(
        plain::decode_booleans(&[0xFF, 0xFF], &mut out)
            .unwrap_err()
            .kind,
        ErrorKind::Truncated
    );
    assert_eq!(
        plain::decode_booleans(&[0xFF, 0xFF, 1], &mut out).unwrap(),
        3
    );
    assert_eq!(out.iter().filter(|&&b| b).count(), 17);
}

#[test]
fn byte_array_truncated_at_every_length() {
    let values: [&[u8]; 4] = [b"hello", b"", b"parquet", b"!"];
    let mut data = Vec::new();
    plain::encode_byte_arrays(values, &mut data).unwrap();
    for len in 0..data.len() {
        let mut out = ByteArrays::new();
        out.push(b"kept").unwrap();
        let result =
            PlainByteArrayDecoder::new(&data[..len], 4).and_then(|mut d| d.next_batch(&mut out, 4));
        let err = result.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{len}: {err}");
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            [b"kept"],
            "out untouched on error"
        );
        let skip = PlainByteArrayDecoder::new(&data[..len], 4).and_then(|mut d| d.skip(4));
        assert_eq!(skip.unwrap_err().kind, ErrorKind::Truncated);
    }
}

#[test]
fn byte_array_length_past_the_data_names_index_and_length() {
    let mut data = Vec::new();
    plain::encode_byte_arrays([&b"ok"[..]], &mut data).unwrap();
    data.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    data.extend_from_slice(b"short");
    let mut decoder = PlainByteArrayDecoder::new(&data, 2).unwrap();
    let mut out = ByteArrays::new();
    assert_eq!(decoder.next_batch(&mut out, 1).unwrap(), 1);
    let err = decoder.next_batch(&mut out, 1).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Truncated);
    assert!(err.message.contains("value 1"), "{err}");
    assert!(err.message.contains(&0xFFFF_FFF0u32.to_string()), "{err}");
    assert_eq!(out.len(), 1);
}

#[test]
fn fixed_len_type_length_zero_and_wrong_lengths() {
    assert_eq!(
        PlainFixedLenDecoder::new(&[], 0, 5).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        PlainFixedLenDecoder::new(&[], 0, 0).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    let mut out = Vec::new();
    let err = plain::encode_fixed_len([&b"ab"[..]], 0, &mut out).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    let err = plain::encode_fixed_len([&b"ab"[..], b"abc"], 2, &mut out).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(err.message.contains("value 1"), "{err}");
}

#[test]
fn empty_pages() {
    let mut out: [i32; 0] = [];
    assert_eq!(plain::decode(&[], &mut out).unwrap(), 0);
    let mut decoder = PlainDecoder::<f64>::new(&[], 0).unwrap();
    assert_eq!(decoder.next_batch(&mut [0.0; 4]).unwrap(), 0);
    let mut arrays = ByteArrays::new();
    assert_eq!(
        PlainByteArrayDecoder::new(&[], 0)
            .unwrap()
            .next_batch(&mut arrays, 9)
            .unwrap(),
        0
    );
    assert_eq!(
        PlainFixedLenDecoder::new(&[], 4, 0)
            .unwrap()
            .next_batch(&mut arrays, 9)
            .unwrap(),
        0
    );
    assert!(arrays.is_empty());
}

/// `decode_append` appends what `decode` writes, after what `out` held, for every type
/// (Int96 through the value-by-value path) and every count up to the data's; a section too
/// short for `n` values is Truncated and leaves `out` as it was.
#[test]
fn decode_append_matches_decode_and_keeps_out_on_truncation() {
    fn check<T: FixedWidth>(values: &[T]) {
        let mut data = Vec::new();
        plain::encode(values, &mut data);
        data.push(0xAB); // bytes after the values are ignored
        for n in 0..=values.len() {
            let mut whole = vec![T::default(); n];
            plain::decode(&data, &mut whole).unwrap();
            let mut out = vec![values[0]];
            let used = plain::decode_append(&data, n, &mut out).unwrap();
            assert_eq!(used, n * T::SIZE);
            assert_eq!(bits(&out[1..]), bits(&whole));
            assert_eq!(bits(&out[..1]), bits(&values[..1]));
        }
        for cut in 0..values.len() * T::SIZE {
            let mut out = vec![values[0]];
            let e = plain::decode_append(&data[..cut], values.len(), &mut out).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Truncated);
            assert_eq!(out.len(), 1);
        }
        let mut out: Vec<T> = Vec::new();
        let e = plain::decode_append(&data, usize::MAX, &mut out).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert!(out.is_empty());
    }
    check(&(0..37).map(|i| i * 0x0101_0101 - 7).collect::<Vec<i32>>());
    check(
        &(0..37)
            .map(|i| (i as i64) << 40 | i as i64)
            .collect::<Vec<i64>>(),
    );
    check(&(0..37).map(|i| i as f32 * -1.5).collect::<Vec<f32>>());
    check(
        &(0..37)
            .map(|i| f64::from_bits(0x7FF8_0000_0000_0001 + i))
            .collect::<Vec<f64>>(),
    );
    check(
        &(0..37u32)
            .map(|i| Int96([i, !i, i.wrapping_mul(0x9E37_79B9)]))
            .collect::<Vec<Int96>>(),
    );
}

proptest! {
    /// `decode_booleans_append` and `decode_booleans_to_bits` against `decode_booleans`, for
    /// every length (odd ones included), after what the outputs held, with garbage padding.
    #[test]
    fn boolean_appends_match_decode(
        values in prop::collection::vec(any::<bool>(), 0..300),
        before in prop::collection::vec(any::<bool>(), 0..20),
        garbage in any::<u8>(),
    ) {
        let mut data = Vec::new();
        plain::encode_booleans(&values, &mut data);
        if let Some(last) = data.last_mut() {
            if values.len() % 8 != 0 {
                *last |= garbage << (values.len() % 8);
            }
        }
        data.push(garbage);
        for n in [values.len(), values.len() / 2, values.len().saturating_sub(1)] {
            let mut whole = vec![false; n];
            plain::decode_booleans(&data, &mut whole).unwrap();
            let mut out = before.clone();
            prop_assert_eq!(plain::decode_booleans_append(&data, n, &mut out).unwrap(), n.div_ceil(8));
            prop_assert_eq!(&out[..before.len()], &before[..]);
            prop_assert_eq!(&out[before.len()..], &whole[..]);
            // Bits: the booleans before as a bitmap, then the page's.
            let mut bits = Vec::new();
            plain::encode_booleans(&before, &mut bits);
            let mut bit_len = before.len();
            prop_assert_eq!(plain::decode_booleans_to_bits(&data, n, &mut bits, &mut bit_len).unwrap(), n.div_ceil(8));
            prop_assert_eq!(bit_len, before.len() + n);
            prop_assert_eq!(bits.len(), bit_len.div_ceil(8));
            let mut expected = Vec::new();
            let all: Vec<bool> = before.iter().chain(&whole).copied().collect();
            plain::encode_booleans(&all, &mut expected);
            prop_assert_eq!(bits, expected);
        }
        if !values.is_empty() {
            let short = &data[..values.len().div_ceil(8) - 1];
            let mut out = before.clone();
            prop_assert_eq!(plain::decode_booleans_append(short, values.len(), &mut out).unwrap_err().kind, ErrorKind::Truncated);
            prop_assert_eq!(&out, &before);
            let mut bits = vec![0x5A];
            let mut bit_len = 7;
            prop_assert_eq!(plain::decode_booleans_to_bits(short, values.len(), &mut bits, &mut bit_len).unwrap_err().kind, ErrorKind::Truncated);
            prop_assert_eq!((bits, bit_len), (vec![0x5A], 7));
        }
    }
}
