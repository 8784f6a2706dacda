//! GroupVarInt (`qpl_fallback::parquet::group_varint`): in no released Parquet and no other
//! library, so golden vectors (the seed's control byte and padding examples, the project's
//! INT64 layout) and round trips; incremental decoding against whole-page decoding; hostile
//! input (truncation at every length, lying counts, INT64 control bit 15, random bytes).

mod common;

use common::steps;
use proptest::prelude::*;
use qpl_fallback::parquet::group_varint::{self as gvi, GroupVarIntDecoder, GroupVarIntType};
use qpl_fallback::parquet::{ErrorKind, ValueDecoder};

/// The seed's control byte 0b00101101: lengths 1, 3, 4, 2, 11 bytes in all; ints at offsets
/// 1, 2, 5 and 9, little endian.
#[test]
fn seed_int32_control_byte_example() {
    let values = [0xAB, 0x12_3456, 0x89AB_CDEFu32 as i32, 0x1234];
    let encoded = [
        0b0010_1101,
        0xAB,
        0x56,
        0x34,
        0x12,
        0xEF,
        0xCD,
        0xAB,
        0x89,
        0x34,
        0x12,
    ];
    let mut out = Vec::new();
    gvi::encode(&values, &mut out);
    assert_eq!(out, encoded);
    let mut decoded = [0i32; 4];
    assert_eq!(gvi::decode(&encoded, &mut decoded).unwrap(), 11);
    assert_eq!(decoded, values);
}

/// The seed's padding example: (1, 2, 3, 4, 5) is encoded as (1, 2, 3, 4, 5, 0, 0, 0).
#[test]
fn seed_padding_example() {
    let encoded = [0x00, 1, 2, 3, 4, 0x00, 5, 0, 0, 0];
    let mut out = Vec::new();
    gvi::encode(&[1i32, 2, 3, 4, 5], &mut out);
    assert_eq!(out, encoded);
    let mut padded = Vec::new();
    gvi::encode(&[1i32, 2, 3, 4, 5, 0, 0, 0], &mut padded);
    assert_eq!(padded, encoded);
    let mut decoded = [0i32; 5];
    assert_eq!(gvi::decode(&encoded, &mut decoded).unwrap(), 10);
    assert_eq!(decoded, [1, 2, 3, 4, 5]);
}

/// The project's INT64 layout (NOTES-h1.md): lengths 1, 2, 5, 1, 8 are the fields 0, 1, 4,
/// 0, 7 in bits 14..12, 11..9, 8..6, 5..3, 2..0 of the control word 0x0307, stored little
/// endian as 07 03.
#[test]
fn int64_worked_example() {
    let values = [1i64, 0x1234, 0x12_3456_789A, 0, i64::MIN];
    let encoded = [
        0x07, 0x03, // control word 0x0307
        0x01, // 1
        0x34, 0x12, // 0x1234
        0x9A, 0x78, 0x56, 0x34, 0x12, // 0x123456789A
        0x00, // 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, // 2^63
    ];
    let mut out = Vec::new();
    gvi::encode(&values, &mut out);
    assert_eq!(out, encoded);
    let mut decoded = [0i64; 5];
    assert_eq!(gvi::decode(&encoded, &mut decoded).unwrap(), encoded.len());
    assert_eq!(decoded, values);
}

#[test]
fn int64_control_bit_15_is_corrupt() {
    let mut data = Vec::new();
    gvi::encode(&[1i64, 2, 3, 4, 5], &mut data);
    data[1] |= 0x80;
    let err = gvi::decode(&data, &mut [0i64; 5]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Corrupt);
    assert!(err.message.contains("bit 15"), "{err}");
    let mut decoder = GroupVarIntDecoder::<i64>::new(&data, 5).unwrap();
    assert_eq!(decoder.skip(5).unwrap_err().kind, ErrorKind::Corrupt);
}

/// Padding values need not be 0: the decoder ignores them (a group of 8 values read as 5).
#[test]
fn nonzero_padding_is_accepted() {
    let mut data = Vec::new();
    gvi::encode(&[1i32, 2, 3, 4, 5, -6, 7, 0x7FFF_FFFF], &mut data);
    let mut decoded = [0i32; 5];
    assert_eq!(gvi::decode(&data, &mut decoded).unwrap(), data.len());
    assert_eq!(decoded, [1, 2, 3, 4, 5]);
    let mut data = Vec::new();
    gvi::encode(&[9i64, 8, 7, 6, 5, 4, 3, 2, 1, -1], &mut data);
    let mut decoded = [0i64; 7];
    assert_eq!(gvi::decode(&data, &mut decoded).unwrap(), data.len());
    assert_eq!(decoded, [9, 8, 7, 6, 5, 4, 3]);
}

#[test]
fn lying_counts_error_without_allocating() {
    let data = [0u8; 10];
    for count in [1usize << 31, usize::MAX, usize::MAX - 3] {
        let err = GroupVarIntDecoder::<i32>::new(&data, count).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{err}");
        let err = GroupVarIntDecoder::<i64>::new(&data, count).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{err}");
    }
    // 10 bytes could hold two minimal INT32 groups (8 values), one INT64 group (5 values).
    assert!(GroupVarIntDecoder::<i32>::new(&data, 8).is_ok());
    assert_eq!(
        GroupVarIntDecoder::<i32>::new(&data, 9).unwrap_err().kind,
        ErrorKind::Truncated
    );
    assert!(GroupVarIntDecoder::<i64>::new(&data, 5).is_ok());
    assert_eq!(
        GroupVarIntDecoder::<i64>::new(&data, 6).unwrap_err().kind,
        ErrorKind::Truncated
    );
}

#[test]
fn empty_page() {
    let mut out = Vec::new();
    gvi::encode::<i32>(&[], &mut out);
    assert!(out.is_empty());
    assert_eq!(gvi::decode::<i64>(&[], &mut []).unwrap(), 0);
    let mut decoder = GroupVarIntDecoder::<i32>::new(&[], 0).unwrap();
    assert_eq!(decoder.next_batch(&mut [0; 3]).unwrap(), 0);
    assert_eq!(decoder.skip(3).unwrap(), 0);
}

/// The minimal byte length of each int (0 in 1 byte), computed independently of the
/// encoder: the number of bytes up to the highest nonzero one.
fn minimal_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b != 0).map_or(1, |i| i + 1)
}

/// Encodes, checks the size against the minimal lengths, decodes whole (with and without
/// trailing bytes, so both the fast and the checked paths reach the last group) and
/// incrementally.
fn round_trip<T>(values: &[T], steps: &[(bool, usize)], to_le: impl Fn(T) -> Vec<u8>)
where
    T: GroupVarIntType,
{
    let mut data = vec![0xC3];
    gvi::encode(values, &mut data);
    assert_eq!(data[0], 0xC3, "encode appends");
    let data = data.split_off(1);
    let groups = values.len().div_ceil(T::GROUP_LEN);
    let padding = groups * T::GROUP_LEN - values.len();
    let expected_len: usize = groups * T::CONTROL_BYTES
        + values
            .iter()
            .map(|&v| minimal_len(&to_le(v)))
            .sum::<usize>()
        + padding;
    assert_eq!(data.len(), expected_len, "minimal lengths");

    let mut whole = vec![T::default(); values.len()];
    assert_eq!(gvi::decode(&data, &mut whole).unwrap(), data.len());
    assert_eq!(whole, values);
    let mut longer = data.clone();
    longer.extend_from_slice(&[0xFF; 40]);
    let mut again = vec![T::default(); values.len()];
    assert_eq!(gvi::decode(&longer, &mut again).unwrap(), data.len());
    assert_eq!(again, values);

    let mut decoder = GroupVarIntDecoder::<T>::new(&data, values.len()).unwrap();
    steps::check_values(&mut decoder, values, steps, T::default(), <[T]>::to_vec);
    if !values.is_empty() {
        assert_eq!(decoder.bytes_consumed(), data.len());
    }

    // Cut short anywhere: an error (never a panic), Truncated, from `new` or the decode.
    for len in 0..data.len() {
        let err = gvi::decode(&data[..len], &mut vec![T::default(); values.len()]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{len}: {err}");
        let skipped = GroupVarIntDecoder::<T>::new(&data[..len], values.len())
            .and_then(|mut d| d.skip(values.len()));
        assert_eq!(skipped.unwrap_err().kind, ErrorKind::Truncated);
    }
}

fn steps() -> impl Strategy<Value = Vec<(bool, usize)>> {
    prop::collection::vec((any::<bool>(), 1usize..23), 1..8)
}

/// Ints of every byte length: a random value shifted right by a random amount.
fn int32() -> impl Strategy<Value = i32> {
    prop_oneof![
        (any::<i32>(), 0u32..32).prop_map(|(v, s)| ((v as u32) >> s) as i32),
        Just(0),
        Just(i32::MIN),
        Just(i32::MAX),
        Just(-1),
    ]
}

fn int64() -> impl Strategy<Value = i64> {
    prop_oneof![
        (any::<i64>(), 0u32..64).prop_map(|(v, s)| ((v as u64) >> s) as i64),
        Just(0),
        Just(i64::MIN),
        Just(i64::MAX),
        Just(-1),
    ]
}

fn sizes() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..45, 95usize..106, 195usize..206]
}

proptest! {
    #[test]
    fn int32_round_trip(values in sizes().prop_flat_map(|n| prop::collection::vec(int32(), n)), steps in steps()) {
        round_trip(&values, &steps, |v| v.to_le_bytes().to_vec());
    }

    #[test]
    fn int64_round_trip(values in sizes().prop_flat_map(|n| prop::collection::vec(int64(), n)), steps in steps()) {
        round_trip(&values, &steps, |v| v.to_le_bytes().to_vec());
    }

    /// Random bytes and counts: an answer or an error, never a panic; an answer is the
    /// bytes consumed within the data, and whatever was read re-encodes within that many bytes.
    #[test]
    fn random_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..120), count in 0usize..40) {
        let mut out32 = vec![0i32; count];
        match gvi::decode(&data, &mut out32) {
            Ok(used) => {
                prop_assert!(used <= data.len());
                let mut again = Vec::new();
                gvi::encode(&out32, &mut again);
                prop_assert!(again.len() <= used);
            }
            Err(err) => prop_assert_eq!(err.kind, ErrorKind::Truncated),
        }
        let mut out64 = vec![0i64; count];
        match gvi::decode(&data, &mut out64) {
            Ok(used) => prop_assert!(used <= data.len()),
            Err(err) => prop_assert!(matches!(err.kind, ErrorKind::Truncated | ErrorKind::Corrupt)),
        }
    }
}
