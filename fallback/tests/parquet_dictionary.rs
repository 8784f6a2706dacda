//! PLAIN_DICTIONARY / RLE_DICTIONARY: round trips of random values with random run structure
//! (fixed-size types and byte arrays), batches and skips, arrow-rs's DictEncoder/DictDecoder in
//! both directions, indices past the dictionary at every position of RLE and bit-packed runs,
//! bad width bytes, and the builders.

mod common;

use bytes::Bytes;
use common::{arrow_rs, steps};
use parquet::basic::{Encoding, Type as ParquetType};
use parquet::data_type::{ByteArray, ByteArrayType, DataType, DoubleType, Int32Type, Int64Type};
use parquet::encodings::decoding::{get_decoder, Decoder, DictDecoder};
use parquet::encodings::encoding::{DictEncoder, Encoder};
use proptest::prelude::*;
use qpl_fallback::parquet::dictionary::{
    self, build_byte_array_dictionary, build_dictionary, encode_indices, gather,
    gather_byte_arrays, gather_clamped, gather_clamped_append, index_bit_width, largest_index,
    DictionaryByteArrayDecoder, DictionaryDecoder,
};
use qpl_fallback::parquet::{
    hybrid, ByteArrayDecoder, ByteArrays, ErrorKind, FixedWidth, ParquetError, ValueDecoder,
};

/// `count` values drawn from `distinct` choices, in runs of 1..=700 or scattered.
fn values_strategy(distinct: u32) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(
        prop_oneof![
            (0..distinct, 1usize..=700).prop_map(|(v, n)| vec![v; n]),
            prop::collection::vec(0..distinct, 1..40),
        ],
        0..8,
    )
    .prop_map(|chunks| chunks.concat())
}

fn page<T: FixedWidth>(values: &[T]) -> (Vec<T>, Vec<u8>) {
    let (dict, indices) = build_dictionary(values);
    let mut page = Vec::new();
    encode_indices(&indices, dict.len(), &mut page).unwrap();
    (dict, page)
}

/// Decodes `page` in batches and skips of sizes from `sizes`; checks each decoded value.
fn check_incremental<T: FixedWidth>(
    page: &[u8],
    dict: &[T],
    values: &[T],
    sizes: &[(bool, usize)],
) {
    let mut d = DictionaryDecoder::new(page, dict, values.len()).unwrap();
    steps::check_values(&mut d, values, sizes, T::default(), <[T]>::to_vec);
}

/// arrow-rs's dictionary page and data page for `values`.
fn arrow_encode<D: DataType>(values: &[D::T], t: ParquetType) -> (Bytes, Bytes) {
    let mut enc = DictEncoder::<D>::new(arrow_rs::column(t, -1));
    enc.put(values).unwrap();
    (enc.write_dict().unwrap(), enc.write_indices().unwrap())
}

/// arrow-rs decoding our data page over the PLAIN dictionary page `dict_page`.
fn arrow_decode<D: DataType>(
    dict_page: Bytes,
    dict_len: usize,
    data: Vec<u8>,
    count: usize,
    t: ParquetType,
) -> Vec<D::T> {
    let mut plain = get_decoder::<D>(arrow_rs::column(t, -1), Encoding::PLAIN).unwrap();
    plain.set_data(dict_page, dict_len).unwrap();
    let mut dec = DictDecoder::<D>::new();
    dec.set_dict(plain).unwrap();
    dec.set_data(Bytes::from(data), count).unwrap();
    let mut out = vec![D::T::default(); count];
    assert_eq!(dec.get(&mut out).unwrap(), count);
    out
}

fn plain_i32(dict: &[i32]) -> Bytes {
    dict.iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<_>>()
        .into()
}

#[test]
fn gather_clamped_append_appends_what_gather_writes_after_the_values_held() {
    // Every tail of the kernels' steps (4 and 8 values), dictionaries from registers and from
    // gathers, 4- and 8-byte entries and one of another size (the portable loop).
    for len in [1usize, 3, 8, 16, 17, 300] {
        let d64: Vec<i64> = (0..len as i64).map(|e| e * -1_000_003 + 7).collect();
        let d32: Vec<i32> = (0..len as i32).map(|e| e * 31 - 9).collect();
        let d16: Vec<[u8; 16]> = (0..len).map(|e| [e as u8; 16]).collect();
        for n in [0usize, 1, 3, 4, 7, 8, 9, 1000] {
            let indices: Vec<u32> = (0..n as u32)
                .map(|k| (k * 7919 + k / 3) % len as u32)
                .collect();
            let mut want = vec![0i64; n];
            gather(&indices, &d64, &mut want).unwrap();
            let mut got = vec![-1i64, -2];
            gather_clamped_append(&indices, &d64, &mut got);
            assert_eq!(got[..2], [-1, -2], "{len} entries, {n} indices");
            assert_eq!(got[2..], want[..], "{len} entries, {n} indices");
            let mut want = vec![0i32; n];
            gather(&indices, &d32, &mut want).unwrap();
            let mut got = vec![4i32];
            gather_clamped_append(&indices, &d32, &mut got);
            assert_eq!(
                got,
                [&[4][..], &want].concat(),
                "{len} entries, {n} indices"
            );
            let mut want = vec![[0u8; 16]; n];
            gather(&indices, &d16, &mut want).unwrap();
            let mut got = Vec::new();
            gather_clamped_append(&indices, &d16, &mut got);
            assert_eq!(got, want, "{len} entries, {n} indices");
        }
    }
    // An empty dictionary appends defaults: the batch keeps one value per index.
    let mut got = vec![5i64];
    gather_clamped_append(&[0, 1, 2], &[], &mut got);
    assert_eq!(got, [5, 0, 0, 0]);
}

#[test]
fn gather_clamped_equals_gather_on_checked_indices_and_clamps_the_rest() {
    // Dictionaries the register lookups take (up to 8 and 16 entries) and larger ones.
    for len in [1usize, 5, 8, 11, 16, 300] {
        let d64: Vec<i64> = (0..len as i64).map(|e| e * -1_000_003 + 7).collect();
        let d32: Vec<f32> = (0..len).map(|e| e as f32 * 0.5 - 3.0).collect();
        let indices: Vec<u32> = (0..1000u32)
            .map(|k| (k * 7919 + k / 3) % len as u32)
            .collect();
        assert!(largest_index(&indices) < len as u32);
        assert_eq!(largest_index(&indices), *indices.iter().max().unwrap());
        let (mut want, mut got) = (vec![0i64; 1000], vec![0i64; 1000]);
        gather(&indices, &d64, &mut want).unwrap();
        gather_clamped(&indices, &d64, &mut got);
        assert_eq!(got, want, "{len} entries");
        let (mut want, mut got) = (vec![0f32; 1000], vec![0f32; 1000]);
        gather(&indices, &d32, &mut want).unwrap();
        gather_clamped(&indices, &d32, &mut got);
        assert_eq!(got, want, "{len} entries");
        // Unchecked indices past the end: the last entry, never a read outside it; `gather`
        // refuses them.
        let past = vec![len as u32, u32::MAX, 0, len as u32 + 1];
        assert_eq!(largest_index(&past), u32::MAX);
        let mut got = vec![0i64; 4];
        gather_clamped(&past, &d64, &mut got);
        assert_eq!(got, [d64[len - 1], d64[len - 1], d64[0], d64[len - 1]]);
        assert!(gather(&past, &d64, &mut [0i64; 4]).is_err());
    }
    // An empty dictionary writes nothing; no indices, no maximum.
    let mut untouched = [5i64; 3];
    gather_clamped(&[0, 1, 2], &[], &mut untouched);
    assert_eq!(untouched, [5; 3]);
    assert_eq!(largest_index(&[]), 0);
}

#[test]
fn width_byte_follows_the_dictionary_size() {
    for (len, width) in [
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (256, 8),
        (257, 9),
    ] {
        assert_eq!(index_bit_width(len), width, "{len}");
    }
    let mut out = Vec::new();
    encode_indices(&[0, 0, 0], 1, &mut out).unwrap();
    assert_eq!(out[0], 0);
    let mut out = Vec::new();
    encode_indices(&[0, 1, 2], 3, &mut out).unwrap();
    assert_eq!(out[0], 2);
    let e = encode_indices(&[0, 3], 3, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("index 3 at position 1"), "{e}");
    assert!(encode_indices(&[0], 0, &mut Vec::new()).is_err());
}

#[test]
fn one_entry_dictionary_is_width_zero_and_arrow_rs_agrees() {
    let values = vec![42i32; 1000];
    let (dict, data) = arrow_encode::<Int32Type>(&values, ParquetType::INT32);
    assert_eq!(data[0], 0);
    let mut out = vec![0i32; 1000];
    dictionary::decode(&data, &[42], &mut out).unwrap();
    assert_eq!(out, values);
    let (ours_dict, ours) = page(&values);
    assert_eq!(ours_dict, [42]);
    assert_eq!(
        arrow_decode::<Int32Type>(dict, 1, ours, 1000, ParquetType::INT32),
        values
    );
}

#[test]
fn bad_width_bytes_and_empty_pages() {
    let dict = [1i32, 2];
    for width in [33u8, 255] {
        let e = DictionaryDecoder::new(&[width, 0x02, 0x00], &dict, 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Corrupt, "{width}");
        assert_eq!(e.encoding, "RLE_DICTIONARY");
        assert!(e.message.contains(&width.to_string()), "{e}");
        let e = DictionaryByteArrayDecoder::new(&[width], &ByteArrays::new(), 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Corrupt, "{width}");
    }
    assert_eq!(
        DictionaryDecoder::new(&[], &dict, 1).unwrap_err().kind,
        ErrorKind::Truncated
    );
    assert_eq!(dictionary::decode::<i32>(&[], &dict, &mut []), Ok(0));
    // A lying count: the stream runs out, nothing allocated.
    let mut d = DictionaryDecoder::new(&[1, 0x06, 0x01], &dict, 1 << 31).unwrap();
    let mut out = [0i32; 8];
    assert_eq!(
        d.next_batch(&mut out).unwrap_err().kind,
        ErrorKind::Truncated
    );
    assert_eq!(out[..3], [2, 2, 2]);
}

/// The error for an index past the dictionary: its kind and the words naming it.
fn assert_out_of_range(e: &ParquetError, index: u32, position: usize, len: usize) {
    assert_eq!(e.kind, ErrorKind::IndexOutOfRange, "{e}");
    let expected = format!("index {index} at position {position}");
    assert!(e.message.contains(&expected), "{e} (wanted {expected})");
    assert!(e.message.contains(&format!("{len} entries")), "{e}");
}

#[test]
fn indices_past_the_dictionary_at_every_position() {
    let dict: Vec<i64> = (0..5).map(|i| i * 100).collect();
    let dict_bytes: ByteArrays = ["a", "bb", "", "dddd", "e"]
        .iter()
        .map(|s| s.as_bytes())
        .collect();
    // 40 indices in bit-packed runs at width 3 (room for 5..=7), one bad at each position;
    // then a good RLE run, then the bad index in an RLE run of its own.
    for bad_at in 0..40 {
        for bad in [5u32, 7] {
            let mut indices: Vec<u32> = (0..40).map(|i| (i * 3 % 5) as u32).collect();
            indices[bad_at] = bad;
            let mut data = vec![3];
            // A hand-made bit-packed run: encode_indices refuses bad indices.
            let mut runs = Vec::new();
            hybrid::encode(&indices, 3, &mut runs).unwrap();
            data.extend_from_slice(&runs);

            let mut out = vec![-1i64; 40];
            let e = dictionary::decode(&data, &dict, &mut out).unwrap_err();
            assert_out_of_range(&e, bad, bad_at, 5);
            // Nothing past the output region, and whole chunks before the bad one written.
            for (i, &v) in out.iter().enumerate().take(bad_at / 256 * 256) {
                assert_eq!(v, dict[indices[i] as usize]);
            }

            // In batches of 7: the error names the page position, not the batch's.
            let mut d = DictionaryDecoder::new(&data, &dict, 40).unwrap();
            let mut buf = [0i64; 7];
            let e = loop {
                match d.next_batch(&mut buf) {
                    Ok(n) => assert!(n > 0),
                    Err(e) => break e,
                }
            };
            assert_out_of_range(&e, bad, bad_at, 5);
            // Skipping over it is fine: nothing is read through it.
            let mut d = DictionaryDecoder::new(&data, &dict, 40).unwrap();
            assert_eq!(d.skip(40), Ok(40));

            let mut arrays = ByteArrays::new();
            let mut d = DictionaryByteArrayDecoder::new(&data, &dict_bytes, 40).unwrap();
            let e = d.next_batch(&mut arrays, 40).unwrap_err();
            assert_out_of_range(&e, bad, bad_at, 5);
            assert!(arrays.len() <= bad_at);

            let e = gather(&indices, &dict, &mut out).unwrap_err();
            assert_out_of_range(&e, bad, bad_at, 5);
            let e = gather_byte_arrays(&indices, &dict_bytes, &mut ByteArrays::new()).unwrap_err();
            assert_out_of_range(&e, bad, bad_at, 5);
        }
    }
    // RLE runs: 10 x index 1, then 20 x index 6 (past), at width 3.
    let mut data = vec![3, 20, 1, 40, 6];
    let mut out = vec![0i64; 30];
    let e = dictionary::decode(&data, &dict, &mut out).unwrap_err();
    assert_out_of_range(&e, 6, 10, 5);
    assert_eq!(out[..10], [100; 10]);
    // Width byte 32 and an index of u32::MAX.
    data = vec![32, 2, 0xFF, 0xFF, 0xFF, 0xFF];
    let e = dictionary::decode(&data, &dict, &mut [0; 1]).unwrap_err();
    assert_out_of_range(&e, u32::MAX, 0, 5);
    // An empty dictionary: every index is past it.
    let e = dictionary::decode::<i64>(&[1, 2, 0], &[], &mut [0; 1]).unwrap_err();
    assert_out_of_range(&e, 0, 0, 0);
}

#[test]
fn every_truncation_of_a_page_errors_or_still_holds_the_values() {
    let values: Vec<i32> = (0..300)
        .map(|i| if i < 100 { i % 7 } else { (i / 50) * 3 })
        .collect();
    let (dict, data) = page(&values);
    for cut in 0..data.len() {
        let mut out = vec![0i32; values.len()];
        match dictionary::decode(&data[..cut], &dict, &mut out) {
            Err(e) => assert_eq!(e.kind, ErrorKind::Truncated, "cut {cut}: {e}"),
            Ok(_) => {
                // Only a last bit-packed group's pad can go.
                assert_eq!(out, values, "cut {cut}");
                assert!(data.len() - cut < index_bit_width(dict.len()) as usize);
            }
        }
    }
}

#[test]
fn builders_work_by_bit_pattern_in_first_occurrence_order() {
    let values = [1.0f64, -0.0, 0.0, 1.0, f64::NAN, -0.0, f64::NAN];
    let (dict, indices) = build_dictionary(&values);
    assert_eq!(indices, [0, 1, 2, 0, 3, 1, 3]);
    assert_eq!(dict.len(), 4);
    assert_eq!(dict[1].to_bits(), (-0.0f64).to_bits());
    let strings = ["x", "", "yy", "x", ""];
    let (dict, indices) = build_byte_array_dictionary(strings.iter().map(|s| s.as_bytes()));
    assert_eq!(indices, [0, 1, 2, 0, 1]);
    assert_eq!(dict.iter().collect::<Vec<_>>(), [&b"x"[..], b"", b"yy"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// i32 pages: our round trip, in batches and skips, and arrow-rs in both directions.
    #[test]
    fn int32_round_trips_and_matches_arrow_rs(
        distinct in 1u32..3000,
        picks in values_strategy(3000),
        sizes in prop::collection::vec((any::<bool>(), 1usize..500), 1..8),
    ) {
        let values: Vec<i32> = picks.iter().map(|&p| ((p % distinct) as i32).wrapping_mul(-7919)).collect();
        let (dict, data) = page(&values);
        let mut out = vec![0i32; values.len()];
        prop_assert_eq!(dictionary::decode(&data, &dict, &mut out), Ok(data.len()));
        prop_assert_eq!(&out, &values);
        check_incremental(&data, &dict, &values, &sizes);

        // Ours -> arrow-rs (our dictionary page written PLAIN here).
        let back = arrow_decode::<Int32Type>(plain_i32(&dict), dict.len(), data, values.len(), ParquetType::INT32);
        prop_assert_eq!(&back, &values);

        // arrow-rs -> ours.
        let (dict_page, theirs) = arrow_encode::<Int32Type>(&values, ParquetType::INT32);
        let their_dict: Vec<i32> = dict_page.chunks_exact(4).map(i32::from_le_slice).collect();
        let mut out = vec![0i32; values.len()];
        prop_assert!(dictionary::decode(&theirs, &their_dict, &mut out).is_ok());
        prop_assert_eq!(&out, &values);
        check_incremental(&theirs, &their_dict, &values, &sizes);

        // The indices gathered by `gather` (as if decoded by the accelerator).
        let (dict, indices) = build_dictionary(&values);
        let mut out = vec![0i32; values.len()];
        gather(&indices, &dict, &mut out).unwrap();
        prop_assert_eq!(&out, &values);
    }

    /// i64 and f64 pages from arrow-rs decode to the same values.
    #[test]
    fn int64_and_double_from_arrow_rs(picks in values_strategy(200)) {
        let ints: Vec<i64> = picks.iter().map(|&p| i64::from(p) << 33).collect();
        let (dict_page, theirs) = arrow_encode::<Int64Type>(&ints, ParquetType::INT64);
        let dict: Vec<i64> = dict_page.chunks_exact(8).map(i64::from_le_slice).collect();
        let mut out = vec![0i64; ints.len()];
        prop_assert!(dictionary::decode(&theirs, &dict, &mut out).is_ok());
        prop_assert_eq!(&out, &ints);

        let doubles: Vec<f64> = picks.iter().map(|&p| f64::from(p) / 3.0).collect();
        let (dict_page, theirs) = arrow_encode::<DoubleType>(&doubles, ParquetType::DOUBLE);
        let dict: Vec<f64> = dict_page.chunks_exact(8).map(f64::from_le_slice).collect();
        let mut out = vec![0f64; doubles.len()];
        prop_assert!(dictionary::decode(&theirs, &dict, &mut out).is_ok());
        prop_assert_eq!(&out, &doubles);
        let (ours_dict, ours) = page(&doubles);
        prop_assert_eq!(&ours_dict, &dict);
        let back = arrow_decode::<DoubleType>(dict_page, dict.len(), ours, doubles.len(), ParquetType::DOUBLE);
        prop_assert_eq!(&back, &doubles);
    }

    /// Byte arrays: our round trip in batches and skips, and arrow-rs both ways.
    #[test]
    fn byte_arrays_round_trip_and_match_arrow_rs(
        picks in values_strategy(50),
        sizes in prop::collection::vec((any::<bool>(), 1usize..300), 1..8),
    ) {
        let strings: Vec<Vec<u8>> = picks.iter().map(|&p| vec![b'a' + (p % 26) as u8; (p / 3) as usize]).collect();
        let (dict, indices) = build_byte_array_dictionary(strings.iter().map(|s| &s[..]));
        let mut data = Vec::new();
        encode_indices(&indices, dict.len(), &mut data).unwrap();

        let mut out = ByteArrays::new();
        out.push(b"before").unwrap();
        let mut d = DictionaryByteArrayDecoder::new(&data, &dict, strings.len()).unwrap();
        let mut expected: Vec<&[u8]> = vec![b"before"];
        let mut at = 0;
        let mut i = 0;
        while d.remaining() > 0 {
            let (skip, size) = sizes[i % sizes.len()];
            i += 1;
            if skip {
                at += d.skip(size).unwrap();
            } else {
                let n = d.next_batch(&mut out, size).unwrap();
                prop_assert_eq!(n, size.min(strings.len() - at));
                expected.extend(strings[at..at + n].iter().map(|s| &s[..]));
                at += n;
            }
        }
        prop_assert_eq!(out.iter().collect::<Vec<_>>(), expected);

        let mut gathered = ByteArrays::new();
        gather_byte_arrays(&indices, &dict, &mut gathered).unwrap();
        prop_assert!(gathered.iter().eq(strings.iter().map(|s| &s[..])));

        // arrow-rs -> ours.
        let arrays: Vec<ByteArray> = strings.iter().map(|s| ByteArray::from(s.clone())).collect();
        let (dict_page, theirs) = arrow_encode::<ByteArrayType>(&arrays, ParquetType::BYTE_ARRAY);
        let mut their_dict = ByteArrays::new();
        let mut p = 0;
        while p < dict_page.len() {
            let len = u32::from_le_bytes(dict_page[p..p + 4].try_into().unwrap()) as usize;
            their_dict.push(&dict_page[p + 4..p + 4 + len]).unwrap();
            p += 4 + len;
        }
        let mut out = ByteArrays::new();
        let mut d = DictionaryByteArrayDecoder::new(&theirs, &their_dict, strings.len()).unwrap();
        prop_assert_eq!(d.next_batch(&mut out, usize::MAX).unwrap(), strings.len());
        prop_assert!(out.iter().eq(strings.iter().map(|s| &s[..])));

        // Ours -> arrow-rs, over arrow-rs's own dictionary page (same first-occurrence order).
        prop_assert!(their_dict == dict);
        let back = arrow_decode::<ByteArrayType>(dict_page, dict.len(), data, strings.len(), ParquetType::BYTE_ARRAY);
        prop_assert!(back.iter().map(|b| b.data()).eq(strings.iter().map(|s| &s[..])));
    }
}

/// Fuzz finding (`parquet_encodings`): the byte-array decoder decoded a whole chunk of indices
/// before gathering, so an index past the dictionary followed by a cut-short run gave
/// `Truncated` to a large batch and `IndexOutOfRange` to a small one. Both decoders now report
/// what comes first in the stream, whatever the batch size.
#[test]
fn the_first_error_in_the_stream_wins_whatever_the_batch_size() {
    use qpl_fallback::parquet::dictionary::{DictionaryByteArrayDecoder, DictionaryDecoder};
    use qpl_fallback::parquet::{ByteArrayDecoder, ByteArrays, ErrorKind, ValueDecoder};

    let empty = ByteArrays::new();
    let one: ByteArrays = [&b"x"[..]].into_iter().collect();
    // (page, dictionary): width 0, RLE 49 × 0 into an empty dictionary, then a cut-short
    // header; width 1, RLE 3 × 1 into a one-entry dictionary, then a cut-short header.
    for (page, dictionary) in [
        (&[0x00, 0x62, 0xa1][..], &empty),
        (&[0x01, 0x06, 0x01, 0xa1][..], &one),
    ] {
        for batch in [1, 2, 13, 176] {
            let mut decoder = DictionaryByteArrayDecoder::new(page, dictionary, 176).unwrap();
            let mut out = ByteArrays::new();
            let kind = decoder.next_batch(&mut out, batch).unwrap_err().kind;
            assert_eq!(
                kind,
                ErrorKind::IndexOutOfRange,
                "page {page:02x?}, batch {batch}"
            );
            let fixed = vec![7i32; dictionary.len()];
            let mut decoder = DictionaryDecoder::new(page, &fixed, 176).unwrap();
            let mut values = vec![0i32; batch];
            let kind = decoder.next_batch(&mut values).unwrap_err().kind;
            assert_eq!(
                kind,
                ErrorKind::IndexOutOfRange,
                "page {page:02x?}, batch {batch}"
            );
        }
    }
}

/// Byte-array gathers copy short entries with a fixed-size over-copy: entries of every length
/// around that size (0..=80 bytes), the last entries of the dictionary (whose over-copy would
/// pass its end: a dictionary of over 4 KB, which is not copied with padding first) and long
/// ones, appended after existing values, match a plain copy.
#[test]
fn byte_array_gathers_of_every_entry_length() {
    let entries: Vec<Vec<u8>> = (0..40)
        .map(|i| vec![i as u8; 100])
        .chain((0..=80u8).map(|n| (0..n).map(|b| b.wrapping_mul(31) ^ n).collect()))
        .collect();
    let last = entries.len() as u32 - 1;
    let dict: ByteArrays = entries.iter().map(|e| &e[..]).collect();
    let mut x = 0x2545_F491u32;
    let indices: Vec<u32> = (0..3000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Every entry in order first, then random ones, the last entries often.
            if i < entries.len() {
                i as u32
            } else if i % 5 == 0 {
                last - x % 3
            } else {
                x % (last + 1)
            }
        })
        .collect();
    let mut out = ByteArrays::new();
    out.push(b"kept").unwrap();
    gather_byte_arrays(&indices, &dict, &mut out).unwrap();
    let expected: Vec<&[u8]> = std::iter::once(&b"kept"[..])
        .chain(indices.iter().map(|&i| &entries[i as usize][..]))
        .collect();
    assert!(out.iter().eq(expected.iter().copied()));
    assert_eq!(
        out.values.len(),
        expected.iter().map(|e| e.len()).sum::<usize>()
    );

    // The same through the page decoder, in batches.
    let mut data = Vec::new();
    encode_indices(&indices, dict.len(), &mut data).unwrap();
    let mut decoded = ByteArrays::new();
    let mut d = DictionaryByteArrayDecoder::new(&data, &dict, indices.len()).unwrap();
    while d.remaining() > 0 {
        d.next_batch(&mut decoded, 777).unwrap();
    }
    assert!(decoded.iter().eq(expected[1..].iter().copied()));
}

/// Gathers `picks` of a dictionary whose entry `i` has `lengths[i]` bytes (byte `b` of it
/// `byte(i, b)`) after `before`: `out` holds `before`, then exactly the picked entries.
fn gathers_exactly(
    lengths: &[usize],
    picks: &[prop::sample::Index],
    before: &[u8],
    byte: impl Fn(usize, usize) -> u8,
) -> Result<(), TestCaseError> {
    let entries: Vec<Vec<u8>> = lengths
        .iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|b| byte(i, b)).collect())
        .collect();
    let dict: ByteArrays = entries.iter().map(|e| &e[..]).collect();
    let indices: Vec<u32> = picks
        .iter()
        .map(|p| p.index(entries.len()) as u32)
        .collect();
    let mut out = ByteArrays::new();
    out.push(before).unwrap();
    gather_byte_arrays(&indices, &dict, &mut out).unwrap();
    let expected: Vec<&[u8]> = std::iter::once(before)
        .chain(indices.iter().map(|&i| &entries[i as usize][..]))
        .collect();
    prop_assert!(out.iter().eq(expected.iter().copied()));
    prop_assert_eq!(
        out.values.len(),
        expected.iter().map(|e| e.len()).sum::<usize>()
    );
    Ok(())
}

proptest! {
    /// Gathers of a batch's values (256 or more) from dictionaries of up to 256 entries of up
    /// to 16 bytes (the table of padded entries), and of 257 (the copy from the dictionary's
    /// bytes), empty entries among them, append exactly the entries after what `out` held.
    #[test]
    fn byte_array_gathers_of_short_entries(
        lengths in prop::collection::vec(0usize..=16, 1..=257),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 256..1200),
        before in prop::collection::vec(any::<u8>(), 0..20),
    ) {
        gathers_exactly(&lengths, &picks, &before, |i, b| (b * 13 + i) as u8 | 1)?;
    }

    /// Gathers from small dictionaries (fewer bytes than the fixed-size over-copy, entries
    /// around 16 and 32 bytes, so both copy widths and the exact copy near the end are used)
    /// append exactly the entries, after whatever `out` held.
    #[test]
    fn byte_array_gathers_from_small_dictionaries(
        lengths in prop::collection::vec(0usize..40, 1..6),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..200),
        before in prop::collection::vec(any::<u8>(), 0..20),
    ) {
        gathers_exactly(&lengths, &picks, &before, |i, b| (b * 7 + i) as u8)?;
    }
}
