//! BYTE_STREAM_SPLIT (`qpl_fallback::parquet::byte_stream_split`): the spec's golden vector
//! in both directions, round trips of random values of every type and width (around the
//! kernels' 32-value blocks), incremental decoding from any position against whole-page
//! decoding, arrow-rs in both directions, and bad lengths.

mod common;

use common::{arrow_rs, steps};
use parquet::basic::Encoding;
use parquet::data_type::{
    DataType, DoubleType, FixedLenByteArray, FixedLenByteArrayType, FloatType, Int32Type, Int64Type,
};
use proptest::prelude::*;
use qpl_fallback::parquet::byte_stream_split::{
    self as bss, ByteStreamSplitDecoder, ByteStreamSplitFixedLenDecoder,
};
use qpl_fallback::parquet::{
    ByteArrayDecoder, ByteArrays, ErrorKind, FixedWidth, Int96, ValueDecoder,
};

fn arrow_encode<T: DataType>(values: &[T::T], type_length: i32) -> Vec<u8> {
    arrow_rs::encode::<T>(Encoding::BYTE_STREAM_SPLIT, values, type_length)
}

fn arrow_decode<T: DataType>(data: &[u8], n: usize, type_length: i32) -> Vec<T::T> {
    arrow_rs::decode::<T>(Encoding::BYTE_STREAM_SPLIT, data, n, type_length)
}

fn le_bytes<T: FixedWidth>(values: &[T]) -> Vec<u8> {
    let mut bytes = vec![0u8; values.len() * T::SIZE];
    for (value, chunk) in values.iter().zip(bytes.chunks_exact_mut(T::SIZE)) {
        value.write_le(chunk);
    }
    bytes
}

/// The reference transposition, written from the spec: byte j of value i at `j * n + i`.
fn reference_split(bytes: &[u8], k: usize) -> Vec<u8> {
    let n = bytes.len() / k;
    let mut out = vec![0u8; bytes.len()];
    for i in 0..n {
        for j in 0..k {
            out[j * n + i] = bytes[i * k + j];
        }
    }
    out
}

fn steps() -> impl Strategy<Value = Vec<(bool, usize)>> {
    prop::collection::vec((any::<bool>(), 1usize..70), 1..8)
}

/// Encodes, checks the bytes against the reference, decodes whole and incrementally (as
/// bytes, so NaN payloads count); returns the encoding.
fn round_trip<T: FixedWidth>(values: &[T], steps: &[(bool, usize)]) -> Vec<u8> {
    let mut data = vec![0x5A];
    bss::encode(values, &mut data);
    assert_eq!(data[0], 0x5A, "encode appends");
    let data = data.split_off(1);
    let bytes = le_bytes(values);
    assert_eq!(data, reference_split(&bytes, T::SIZE));

    let mut whole = vec![T::default(); values.len() + 3];
    let sentinel = whole[values.len()..].to_vec();
    assert_eq!(bss::decode(&data, &mut whole).unwrap(), values.len());
    assert_eq!(le_bytes(&whole[..values.len()]), bytes);
    assert_eq!(
        whole[values.len()..],
        sentinel[..],
        "nothing written past N"
    );

    let mut decoder = ByteStreamSplitDecoder::<T>::new(&data, values.len()).unwrap();
    steps::check_values(&mut decoder, values, steps, T::default(), le_bytes);
    data
}

fn sizes() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..70, 90usize..200, Just(1023), Just(1025)]
}

proptest! {
    #[test]
    fn float_round_trip_and_arrow(bits in sizes().prop_flat_map(|n| prop::collection::vec(any::<u32>(), n)), steps in steps()) {
        let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<FloatType, _>(Encoding::BYTE_STREAM_SPLIT, &values, &data, -1, |v| v.to_bits());
    }

    #[test]
    fn double_round_trip_and_arrow(bits in sizes().prop_flat_map(|n| prop::collection::vec(any::<u64>(), n)), steps in steps()) {
        let values: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<DoubleType, _>(Encoding::BYTE_STREAM_SPLIT, &values, &data, -1, |v| v.to_bits());
    }

    #[test]
    fn int32_round_trip_and_arrow(
        values in sizes().prop_flat_map(|n| prop::collection::vec(prop_oneof![any::<i32>(), Just(i32::MIN), Just(i32::MAX)], n)),
        steps in steps(),
    ) {
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<Int32Type, _>(Encoding::BYTE_STREAM_SPLIT, &values, &data, -1, Clone::clone);
    }

    #[test]
    fn int64_round_trip_and_arrow(
        values in sizes().prop_flat_map(|n| prop::collection::vec(prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX)], n)),
        steps in steps(),
    ) {
        let data = round_trip(&values, &steps);
        arrow_rs::check_both_ways::<Int64Type, _>(Encoding::BYTE_STREAM_SPLIT, &values, &data, -1, Clone::clone);
    }

    /// A 12-byte type goes through the generic byte transpose.
    #[test]
    fn int96_round_trip(values in sizes().prop_flat_map(|n| prop::collection::vec(any::<[u32; 3]>().prop_map(Int96), n)), steps in steps()) {
        round_trip(&values, &steps);
    }

    /// FIXED_LEN_BYTE_ARRAY of every width from 1 to 20 (the const-generic kernels up to 16,
    /// the run-time-width one above): whole page, incremental into `ByteArrays`, arrow-rs
    /// both ways.
    #[test]
    fn fixed_len_round_trip_and_arrow(
        k in 1usize..21,
        n in sizes(),
        seed in any::<u64>(),
        steps in steps(),
    ) {
        let values: Vec<u8> = (0..n * k).map(|i| (seed.rotate_left(i as u32 % 64) as u8) ^ (i as u8).wrapping_mul(31)).collect();
        let mut data = vec![9u8];
        bss::encode_fixed_len(&values, k, &mut data).unwrap();
        prop_assert_eq!(data[0], 9);
        let data = data.split_off(1);
        prop_assert_eq!(&data, &reference_split(&values, k));

        let arrow_values: Vec<FixedLenByteArray> = values.chunks_exact(k).map(|v| FixedLenByteArray::from(v.to_vec())).collect();
        prop_assert_eq!(&arrow_encode::<FixedLenByteArrayType>(&arrow_values, k as i32), &data);
        let back = arrow_decode::<FixedLenByteArrayType>(&data, n, k as i32);
        prop_assert_eq!(back.iter().flat_map(|v| v.data().to_vec()).collect::<Vec<_>>(), values.clone());

        let mut whole = vec![0xEEu8; n * k + 5];
        prop_assert_eq!(bss::decode_fixed_len(&data, k, &mut whole).unwrap(), n);
        prop_assert_eq!(&whole[..n * k], &values[..]);
        prop_assert_eq!(&whole[n * k..], &[0xEE; 5][..]);

        let mut decoder = ByteStreamSplitFixedLenDecoder::new(&data, k, n).unwrap();
        let mut out = ByteArrays::new();
        out.push(b"first").unwrap();
        let mut expected: Vec<&[u8]> = vec![b"first"];
        let mut position = 0;
        for &(skip, m) in steps.iter().cycle().take(n + steps.len()) {
            let count = m.min(decoder.remaining());
            if skip {
                prop_assert_eq!(decoder.skip(m).unwrap(), count);
            } else {
                prop_assert_eq!(decoder.next_batch(&mut out, m).unwrap(), count);
                expected.extend(values[position * k..(position + count) * k].chunks_exact(k));
            }
            position += count;
            if decoder.remaining() == 0 {
                break;
            }
        }
        let rest = decoder.remaining();
        prop_assert_eq!(decoder.next_batch(&mut out, usize::MAX).unwrap(), rest);
        expected.extend(values[position * k..].chunks_exact(k));
        prop_assert_eq!(out.iter().collect::<Vec<_>>(), expected);
    }

    /// arrow-rs's bytes decoded by us, for values arrow-rs encoded itself.
    #[test]
    fn arrow_written_pages_decode(ints in prop::collection::vec(any::<i64>(), 0..300), floats in prop::collection::vec(any::<u32>(), 0..300)) {
        let data = arrow_encode::<Int64Type>(&ints, -1);
        let mut out = vec![0i64; ints.len()];
        prop_assert_eq!(bss::decode(&data, &mut out).unwrap(), ints.len());
        prop_assert_eq!(&out, &ints);
        let values: Vec<f32> = floats.iter().map(|&b| f32::from_bits(b)).collect();
        let data = arrow_encode::<FloatType>(&values, -1);
        let mut decoder = ByteStreamSplitDecoder::<f32>::new(&data, values.len()).unwrap();
        let mut out = vec![0f32; values.len()];
        prop_assert_eq!(decoder.next_batch(&mut out).unwrap(), values.len());
        prop_assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), floats);
    }
}

/// The spec's example, byte for byte, both ways: three 32-bit values AA BB CC DD,
/// 00 11 22 33, A3 B4 C5 D6 -> AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
#[test]
fn spec_golden_vector() {
    let raw: [[u8; 4]; 3] = [
        [0xAA, 0xBB, 0xCC, 0xDD],
        [0x00, 0x11, 0x22, 0x33],
        [0xA3, 0xB4, 0xC5, 0xD6],
    ];
    let encoded = [
        0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6,
    ];
    let floats = raw.map(f32::from_le_bytes);
    let mut out = Vec::new();
    bss::encode(&floats, &mut out);
    assert_eq!(out, encoded);
    let mut decoded = [0f32; 3];
    assert_eq!(bss::decode(&encoded, &mut decoded).unwrap(), 3);
    assert_eq!(decoded.map(f32::to_bits), floats.map(f32::to_bits));

    let ints = raw.map(i32::from_le_bytes);
    out.clear();
    bss::encode(&ints, &mut out);
    assert_eq!(out, encoded);
    let mut decoder = ByteStreamSplitDecoder::<i32>::new(&encoded, 3).unwrap();
    let mut one = [0i32; 1];
    assert_eq!(decoder.skip(1).unwrap(), 1);
    assert_eq!(decoder.next_batch(&mut one).unwrap(), 1);
    assert_eq!(one, [ints[1]]);

    out.clear();
    bss::encode_fixed_len(raw.as_flattened(), 4, &mut out).unwrap();
    assert_eq!(out, encoded);
    let mut bytes = [0u8; 12];
    assert_eq!(bss::decode_fixed_len(&encoded, 4, &mut bytes).unwrap(), 3);
    assert_eq!(&bytes, raw.as_flattened());
}

#[test]
fn lengths_not_a_multiple_are_corrupt() {
    for len in [1usize, 2, 3, 5, 7, 13] {
        let data = vec![0u8; len];
        assert_eq!(
            ByteStreamSplitDecoder::<f32>::new(&data, 100)
                .unwrap_err()
                .kind,
            ErrorKind::Corrupt
        );
        assert_eq!(
            bss::decode::<i32>(&data, &mut [0; 100]).unwrap_err().kind,
            ErrorKind::Corrupt
        );
        if len % 8 != 0 {
            assert_eq!(
                ByteStreamSplitDecoder::<f64>::new(&data, 100)
                    .unwrap_err()
                    .kind,
                ErrorKind::Corrupt
            );
        }
        assert_eq!(
            ByteStreamSplitFixedLenDecoder::new(&data, 6, 100)
                .unwrap_err()
                .kind,
            ErrorKind::Corrupt
        );
        let err = bss::decode_fixed_len(&data, 6, &mut [0; 600]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Corrupt);
        assert!(err.message.contains(&len.to_string()), "{err}");
    }
}

#[test]
fn empty_page_holds_no_values() {
    let mut decoder = ByteStreamSplitDecoder::<f64>::new(&[], 0).unwrap();
    assert_eq!(decoder.remaining(), 0);
    assert_eq!(decoder.next_batch(&mut [0.0; 4]).unwrap(), 0);
    assert_eq!(decoder.skip(3).unwrap(), 0);
    assert_eq!(bss::decode::<i32>(&[], &mut []).unwrap(), 0);
    assert_eq!(bss::decode_fixed_len(&[], 7, &mut []).unwrap(), 0);
    let mut arrays = ByteArrays::new();
    let mut decoder = ByteStreamSplitFixedLenDecoder::new(&[], 17, 0).unwrap();
    assert_eq!(decoder.next_batch(&mut arrays, 5).unwrap(), 0);
    assert!(arrays.is_empty());
    let mut out = Vec::new();
    bss::encode::<f32>(&[], &mut out);
    bss::encode_fixed_len(&[], 3, &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn more_values_than_allowed_is_too_many() {
    let data = [0u8; 40];
    let err = ByteStreamSplitDecoder::<i32>::new(&data, 9).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooMany);
    assert!(err.message.contains("10"), "{err}");
    assert!(ByteStreamSplitDecoder::<i32>::new(&data, 10).is_ok());
    let mut out = [7i64; 4];
    assert_eq!(
        bss::decode(&data, &mut out).unwrap_err().kind,
        ErrorKind::TooMany
    );
    assert_eq!(out, [7; 4], "out untouched on error");
    assert_eq!(
        ByteStreamSplitFixedLenDecoder::new(&data, 5, 7)
            .unwrap_err()
            .kind,
        ErrorKind::TooMany
    );
    assert_eq!(
        bss::decode_fixed_len(&data, 5, &mut [0u8; 39])
            .unwrap_err()
            .kind,
        ErrorKind::TooMany
    );
}

#[test]
fn type_length_zero_is_invalid() {
    assert_eq!(
        ByteStreamSplitFixedLenDecoder::new(&[], 0, 0)
            .unwrap_err()
            .kind,
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        bss::decode_fixed_len(&[1, 2], 0, &mut [0; 8])
            .unwrap_err()
            .kind,
        ErrorKind::InvalidArgument
    );
    let mut out = Vec::new();
    assert_eq!(
        bss::encode_fixed_len(&[1, 2], 0, &mut out)
            .unwrap_err()
            .kind,
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        bss::encode_fixed_len(&[1, 2, 3], 2, &mut out)
            .unwrap_err()
            .kind,
        ErrorKind::InvalidArgument
    );
    assert!(out.is_empty());
}

/// Every prefix of a page is either a whole number of values (decoded as that many, each
/// stream `len / K` bytes) or `Corrupt`; never a panic.
#[test]
fn every_prefix_length() {
    let values: Vec<f64> = (0..37).map(|i| f64::from(i) * -1.5).collect();
    let mut data = Vec::new();
    bss::encode(&values, &mut data);
    for len in 0..=data.len() {
        let prefix = &data[..len];
        let mut out = vec![0f64; 40];
        match bss::decode(prefix, &mut out) {
            Ok(n) => {
                assert_eq!(len % 8, 0);
                assert_eq!(n, len / 8);
                assert_eq!(reference_split(&le_bytes(&out[..n]), 8), prefix);
            }
            Err(err) => {
                assert_ne!(len % 8, 0);
                assert_eq!(err.kind, ErrorKind::Corrupt);
            }
        }
        let mut bytes = vec![0u8; 40 * 8];
        match bss::decode_fixed_len(prefix, 8, &mut bytes) {
            Ok(n) => assert_eq!(reference_split(&bytes[..n * 8], 8), prefix),
            Err(err) => assert_eq!(err.kind, ErrorKind::Corrupt),
        }
    }
}
