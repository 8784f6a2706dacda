//! Hand-built pages: v1 and v2, levels in both encodings, the value encodings, and pages that
//! lie. Each valid page is decoded twice — with the codecs directly and with the level,
//! index and boolean parts forced through the executor's jobs — and both must agree.

use super::*;
use qpl_fallback::parquet::{bit_packed, delta_binary_packed, dictionary, hybrid, plain};

fn column(physical_type: PhysicalType, max_def_level: i16, max_rep_level: i16) -> Column {
    Column {
        physical_type,
        max_def_level,
        max_rep_level,
    }
}

/// The decoders a test runs: the codecs directly, the job parts forced through the executor's
/// pure-Rust model of QPL, and QPL's software path when it is linked here.
fn decoders(column: Column) -> Vec<(&'static str, ChunkDecoder)> {
    let mut decoders = vec![
        ("codecs", ChunkDecoder::new(column, Path::Fallback)),
        (
            "jobs",
            ChunkDecoder::new(column, Path::Fallback).force_jobs(),
        ),
    ];
    if Path::Software.availability().is_ok() {
        decoders.push(("software", ChunkDecoder::new(column, Path::Software)));
    }
    decoders
}

/// Decodes `pages` in order with each of [`decoders`]; all must give the same data and the
/// same counts, and only the software run may report a path other than the fallback. Returns
/// the data and the codec run's reports.
fn decode_both(column: Column, pages: &[Page<'_>]) -> (ColumnData, Vec<PageReport>) {
    let mut results = Vec::new();
    for (name, mut decoder) in decoders(column) {
        let mut data = ColumnData::new(&column);
        let reports: Vec<PageReport> = pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                decoder
                    .decode_page(page, &mut data)
                    .unwrap_or_else(|e| panic!("page {i} ({name}): {e}"))
            })
            .collect();
        for report in &reports {
            if name != "software" {
                assert_eq!(report.path(), Path::Fallback, "{name}");
            }
            assert_ne!(report.path(), Path::Auto);
        }
        results.push((name, data, reports));
    }
    let (_, data, reports) = &results[0];
    for (name, other, other_reports) in &results[1..] {
        assert_eq!(data, other, "codecs and {name} disagree");
        for (c, o) in reports.iter().zip(other_reports) {
            assert_eq!((c.levels, c.values), (o.levels, o.values), "{name}");
        }
    }
    let (_, data, reports) = results.swap_remove(0);
    (data, reports)
}

/// The errors of decoding `page` (after `before`) with each of [`decoders`].
fn errors(column: Column, before: &[Page<'_>], page: Page<'_>) -> Vec<PageError> {
    decoders(column)
        .into_iter()
        .map(|(name, mut decoder)| {
            let mut data = ColumnData::new(&column);
            for p in before {
                decoder.decode_page(p, &mut data).expect("earlier page");
            }
            let kept = data.clone();
            let error = decoder
                .decode_page(&page, &mut data)
                .expect_err(&format!("{name} must refuse the page"));
            assert_eq!(data, kept, "nothing of a failed page kept ({name})");
            error
        })
        .collect()
}

/// A xorshift generator for the tests' random data: the same numbers for the same seed.
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

fn hybrid_levels(levels: &[u32], width: u32, prefix: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if prefix {
        hybrid::encode_with_length_prefix(levels, width, &mut out).unwrap();
    } else {
        hybrid::encode(levels, width, &mut out).unwrap();
    }
    out
}

fn plain_i32(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    plain::encode(values, &mut out);
    out
}

#[test]
fn encodings_by_number_and_name() {
    for e in Encoding::ALL {
        assert_eq!(Encoding::from_i32(e.number()), Some(e));
        assert_eq!(Encoding::from_name(e.name()), Some(e));
        assert_eq!(e.to_string(), e.name());
    }
    assert_eq!(Encoding::from_i32(1), None);
    assert_eq!(Encoding::from_i32(10), None);
    assert_eq!(Encoding::RleDictionary.number(), 8);
    assert_eq!(Encoding::from_name("rle"), None);
    assert_eq!(level_width(0), 0);
    assert_eq!(level_width(1), 1);
    assert_eq!(level_width(3), 2);
    assert_eq!(level_width(4), 3);
    assert_eq!(level_width(i16::MAX), 15);
}

#[test]
fn v1_and_v2_pages_of_an_optional_int32_column_append() {
    let col = column(PhysicalType::Int32, 1, 0);
    let defs = [1u32, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0];
    let values: Vec<i32> = (0..9).map(|i| i * 1000 - 3).collect();
    // v1: the levels with their 4-byte length, then PLAIN values.
    let mut v1 = hybrid_levels(&defs, 1, true);
    v1.extend(plain_i32(&values));
    // v2: the levels without a length (the header has it), then the same values.
    let levels = hybrid_levels(&defs, 1, false);
    let mut v2 = levels.clone();
    v2.extend(plain_i32(&values));
    let pages = [
        Page::V1 {
            buf: &v1,
            num_values: defs.len() as u32,
            encoding: Encoding::Plain,
            def_level_encoding: Encoding::Rle,
            rep_level_encoding: Encoding::Rle,
        },
        Page::V2 {
            buf: &v2,
            num_values: defs.len() as u32,
            num_nulls: 4,
            encoding: Encoding::Plain,
            def_levels_byte_len: levels.len() as u32,
            rep_levels_byte_len: 0,
        },
    ];
    let (data, reports) = decode_both(col, &pages);
    let expected_defs: Vec<i16> = defs.iter().chain(&defs).map(|&d| d as i16).collect();
    assert_eq!(data.def_levels, expected_defs);
    assert!(data.rep_levels.is_empty());
    let expected: Vec<i32> = values.iter().chain(&values).copied().collect();
    assert_eq!(data.values, Values::Int32(expected));
    for r in &reports {
        assert_eq!((r.levels, r.values), (13, 9));
        assert_eq!(r.def_levels_path, Some(Path::Fallback));
        assert_eq!(r.rep_levels_path, None);
        assert_eq!(r.values_path, None, "PLAIN needs no path");
    }
}

/// The one-pass paths (issue 30): nullable INT64, DOUBLE and BOOLEAN PLAIN pages of odd
/// lengths, whose definition levels mix RLE and bit-packed runs entered mid-byte, appended
/// page after page (the level count per page from the width-1 path, the values one copy);
/// a values section one byte short is refused and nothing of the page kept.
#[test]
fn nullable_plain_pages_of_odd_lengths() {
    for len in [1usize, 7, 8, 9, 63, 64, 65, 1001, 5000] {
        let defs: Vec<u32> = (0..len)
            .map(|i| u32::from(!(i % 7 == 3 || (i / 100) % 3 == 1)))
            .collect();
        let present = defs.iter().filter(|&&d| d == 1).count();
        let levels = hybrid_levels(&defs, 1, true);
        let ints: Vec<i64> = (0..present as i64).map(|i| i * 0x1_0000_0001 - 5).collect();
        let doubles: Vec<f64> = ints.iter().map(|&i| i as f64 / 3.0).collect();
        let bools: Vec<bool> = (0..present).map(|i| i % 3 == 0).collect();
        let expected_defs: Vec<i16> = defs.iter().chain(&defs).map(|&d| d as i16).collect();
        let check = |physical_type, values: Vec<u8>, expected: Values| {
            let mut buf = levels.clone();
            buf.extend(&values);
            let page = Page::V1 {
                buf: &buf,
                num_values: len as u32,
                encoding: Encoding::Plain,
                def_level_encoding: Encoding::Rle,
                rep_level_encoding: Encoding::Rle,
            };
            let col = column(physical_type, 1, 0);
            let (data, reports) = decode_both(col, &[page, page]);
            assert_eq!(data.def_levels, expected_defs, "{len}");
            assert_eq!(data.values, expected, "{len}");
            for r in &reports {
                assert_eq!((r.levels, r.values), (len, present));
            }
            if !values.is_empty() {
                let short = &buf[..buf.len() - 1];
                let page = Page::V1 {
                    buf: short,
                    num_values: len as u32,
                    encoding: Encoding::Plain,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                };
                errors(col, &[], page);
            }
        };
        let mut bytes = Vec::new();
        plain::encode(&ints, &mut bytes);
        let twice = |v: &[i64]| v.iter().chain(v).copied().collect::<Vec<_>>();
        check(PhysicalType::Int64, bytes, Values::Int64(twice(&ints)));
        let mut bytes = Vec::new();
        plain::encode(&doubles, &mut bytes);
        let both: Vec<f64> = doubles.iter().chain(&doubles).copied().collect();
        check(PhysicalType::Double, bytes, Values::Double(both));
        let mut bytes = Vec::new();
        plain::encode_booleans(&bools, &mut bytes);
        let both: Vec<bool> = bools.iter().chain(&bools).copied().collect();
        check(PhysicalType::Boolean, bytes, Values::Boolean(both));
    }
}

/// A list column (max rep 1, max def 3) of strings, dictionary-encoded, over two v2 pages and
/// a v1 page; the dictionary persists across pages.
#[test]
fn repeated_dictionary_strings_over_pages() {
    let col = column(PhysicalType::ByteArray, 3, 1);
    let words: [&[u8]; 4] = [b"", b"alpha", b"beta", b"\xff\x00binary"];
    let dict: ByteArrays = words.iter().copied().collect();
    let mut dict_page = Vec::new();
    plain::encode_byte_arrays(words.iter().copied(), &mut dict_page).unwrap();
    let reps = [0u32, 1, 1, 0, 0, 1, 0, 1, 1, 1];
    let defs = [3u32, 3, 2, 0, 3, 3, 1, 3, 3, 3];
    let ids = [1u32, 2, 0, 3, 3, 1, 2];
    let mut values = Vec::new();
    dictionary::encode_indices(&ids, dict.len(), &mut values).unwrap();
    let rep_bytes = hybrid_levels(&reps, 1, false);
    let def_bytes = hybrid_levels(&defs, 2, false);
    let mut v2 = rep_bytes.clone();
    v2.extend(&def_bytes);
    v2.extend(&values);
    let mut v1 = hybrid_levels(&reps, 1, true);
    v1.extend(hybrid_levels(&defs, 2, true));
    v1.extend(&values);
    let v2_page = Page::V2 {
        buf: &v2,
        num_values: 10,
        num_nulls: 3,
        encoding: Encoding::RleDictionary,
        def_levels_byte_len: def_bytes.len() as u32,
        rep_levels_byte_len: rep_bytes.len() as u32,
    };
    let pages = [
        Page::Dictionary {
            buf: &dict_page,
            num_values: 4,
            encoding: Encoding::PlainDictionary,
        },
        v2_page,
        v2_page,
        Page::V1 {
            buf: &v1,
            num_values: 10,
            encoding: Encoding::PlainDictionary,
            def_level_encoding: Encoding::Rle,
            rep_level_encoding: Encoding::Rle,
        },
    ];
    let (data, reports) = decode_both(col, &pages);
    assert_eq!((reports[0].levels, reports[0].values), (4, 4));
    assert_eq!(data.rep_levels.len(), 30);
    assert_eq!(data.def_levels.len(), 30);
    assert!(data
        .rep_levels
        .chunks(10)
        .all(|c| c.iter().zip(&reps).all(|(&a, &b)| a as u32 == b)));
    let Values::Bytes(got) = &data.values else {
        panic!("bytes")
    };
    let expected: Vec<&[u8]> = ids
        .iter()
        .cycle()
        .take(21)
        .map(|&i| words[i as usize])
        .collect();
    assert_eq!(got.iter().collect::<Vec<_>>(), expected);
}

/// Deprecated BIT_PACKED levels (MSB first) in a v1 page: the job (`be_packed`) and the codec
/// agree with a bitwise model.
#[test]
fn bit_packed_levels() {
    let col = column(PhysicalType::Double, 5, 2);
    let reps: Vec<u32> = (0..37).map(|i| (i * 7 % 3) as u32).collect();
    let defs: Vec<u32> = (0..37).map(|i| (i * 5 % 6) as u32).collect();
    let present = defs.iter().filter(|&&d| d == 5).count();
    let mut buf = Vec::new();
    bit_packed::encode(&reps, 2, &mut buf).unwrap();
    bit_packed::encode(&defs, 3, &mut buf).unwrap();
    let values: Vec<f64> = (0..present).map(|i| i as f64 * -0.5).collect();
    plain::encode(&values, &mut buf);
    // The model: MSB-first bits.
    let bit = |bytes: &[u8], i: usize| (bytes[i / 8] >> (7 - i % 8)) & 1;
    assert_eq!(bit(&buf, 0) << 1 | bit(&buf, 1), reps[0] as u8);
    let page = Page::V1 {
        buf: &buf,
        num_values: 37,
        encoding: Encoding::Plain,
        def_level_encoding: Encoding::BitPacked,
        rep_level_encoding: Encoding::BitPacked,
    };
    let (data, reports) = decode_both(col, &[page]);
    assert_eq!(
        data.rep_levels,
        reps.iter().map(|&r| r as i16).collect::<Vec<_>>()
    );
    assert_eq!(
        data.def_levels,
        defs.iter().map(|&d| d as i16).collect::<Vec<_>>()
    );
    assert_eq!(data.values, Values::Double(values));
    assert_eq!(reports[0].values, present);
}

/// RLE booleans carry a 4-byte length in v1 and in v2 pages.
#[test]
fn rle_booleans_in_v1_and_v2() {
    let col = column(PhysicalType::Boolean, 0, 0);
    let bools: Vec<bool> = (0..300)
        .map(|i| i % 7 < 3 || (100..200).contains(&i))
        .collect();
    let mut buf = Vec::new();
    hybrid::encode_booleans(&bools, &mut buf);
    let pages = [
        Page::V1 {
            buf: &buf,
            num_values: 300,
            encoding: Encoding::Rle,
            def_level_encoding: Encoding::Rle,
            rep_level_encoding: Encoding::Rle,
        },
        Page::V2 {
            buf: &buf,
            num_values: 300,
            num_nulls: 0,
            encoding: Encoding::Rle,
            def_levels_byte_len: 0,
            rep_levels_byte_len: 0,
        },
    ];
    let (data, _) = decode_both(col, &pages);
    let expected: Vec<bool> = bools.iter().chain(&bools).copied().collect();
    assert_eq!(data.values, Values::Boolean(expected));
    assert!(
        data.def_levels.is_empty(),
        "a required column stores no levels"
    );
}

/// A v2 page's level sections are placed by the header's byte lengths whatever the column;
/// the bytes of a kind of level the column does not have are skipped unread, as arrow-rs and
/// parquet-mr do. The page of `rle_boolean_encoding.parquet` (parquet-testing): an optional,
/// non-repeated BOOLEAN column whose v2 page holds 2 bytes of repetition levels (`88 01`: an
/// RLE run of 68 zeros at width 0), then the definition levels, then RLE booleans.
#[test]
fn v2_level_bytes_of_levels_the_column_lacks_are_skipped() {
    let col = column(PhysicalType::Boolean, 1, 0);
    let defs: Vec<u32> = (0..68).map(|i| u32::from(i % 13 != 2)).collect();
    let present: Vec<bool> = (0..68)
        .filter(|i| i % 13 != 2)
        .map(|i| i % 3 != 1)
        .collect();
    let nulls = defs.iter().filter(|&&d| d == 0).count() as u32;
    let rep_bytes = [0x88u8, 0x01];
    let def_bytes = hybrid_levels(&defs, 1, false);
    let mut values = Vec::new();
    hybrid::encode_booleans(&present, &mut values);
    let mut buf = rep_bytes.to_vec();
    buf.extend(&def_bytes);
    buf.extend(&values);
    let page = Page::V2 {
        buf: &buf,
        num_values: 68,
        num_nulls: nulls,
        encoding: Encoding::Rle,
        def_levels_byte_len: def_bytes.len() as u32,
        rep_levels_byte_len: rep_bytes.len() as u32,
    };
    let (data, _) = decode_both(col, &[page]);
    assert!(data.rep_levels.is_empty(), "a flat column stores none");
    let expected_defs: Vec<i16> = defs.iter().map(|&d| d as i16).collect();
    assert_eq!(data.def_levels, expected_defs);
    assert_eq!(data.values, Values::Boolean(present.clone()));

    // Skipped unread: bytes that are no valid levels at all are skipped just the same, and so
    // are definition level bytes of a required column.
    let mut junk = vec![0xff, 0xff, 0xff];
    junk.extend(&def_bytes);
    junk.extend(&values);
    let page = Page::V2 {
        buf: &junk,
        num_values: 68,
        num_nulls: nulls,
        encoding: Encoding::Rle,
        def_levels_byte_len: def_bytes.len() as u32,
        rep_levels_byte_len: 3,
    };
    assert_eq!(decode_both(col, &[page]).0, data);
    let required = column(PhysicalType::Boolean, 0, 0);
    let mut buf = vec![0x88, 0x01, 0x07];
    hybrid::encode_booleans(&present, &mut buf);
    let page = Page::V2 {
        buf: &buf,
        num_values: present.len() as u32,
        num_nulls: 0,
        encoding: Encoding::Rle,
        def_levels_byte_len: 1,
        rep_levels_byte_len: 2,
    };
    let (data, _) = decode_both(required, &[page]);
    assert!(data.def_levels.is_empty() && data.rep_levels.is_empty());
    assert_eq!(data.values, Values::Boolean(present.clone()));

    // The lengths must still fit the page.
    let page = Page::V2 {
        buf: &buf,
        num_values: present.len() as u32,
        num_nulls: 0,
        encoding: Encoding::Rle,
        def_levels_byte_len: 1,
        rep_levels_byte_len: buf.len() as u32,
    };
    let e = errors(required, &[], page);
    assert!(e.iter().all(|e| e.part == PagePart::Page), "{e:?}");
}

/// Run headers of 5 bytes are legal Parquet but past QPL's parser: the job path hands them to
/// the codec and still decodes.
#[test]
fn five_byte_run_headers_decode_on_every_route() {
    let col = column(PhysicalType::Int64, 1, 0);
    // An RLE run of 2^30 ones (header 2^31: 5 bytes), of which the page uses 6.
    let mut levels = Vec::new();
    codecs::write_uleb128(&mut levels, 1u64 << 31);
    assert_eq!(levels.len(), 5);
    levels.push(1);
    // Dictionary indices likewise: width byte 1, an RLE run of 2^30 ones.
    let mut dict = Vec::new();
    plain::encode(&[7i64, -9], &mut dict);
    let mut buf = levels.clone();
    buf.push(1);
    buf.extend(&levels);
    let pages = [
        Page::Dictionary {
            buf: &dict,
            num_values: 2,
            encoding: Encoding::Plain,
        },
        Page::V2 {
            buf: &buf,
            num_values: 6,
            num_nulls: 0,
            encoding: Encoding::RleDictionary,
            def_levels_byte_len: levels.len() as u32,
            rep_levels_byte_len: 0,
        },
    ];
    let (data, _) = decode_both(col, &pages);
    assert_eq!(data.def_levels, [1; 6]);
    assert_eq!(data.values, Values::Int64(vec![-9; 6]));
}

#[test]
fn delta_and_byte_stream_split_values() {
    let ints: Vec<i64> = (0..500)
        .map(|i: i64| (i * i - 40_000).wrapping_add((i % 3) * (i64::MAX / 2)))
        .collect();
    let mut buf = Vec::new();
    delta_binary_packed::encode(&ints, &mut buf);
    let page = Page::V1 {
        buf: &buf,
        num_values: 500,
        encoding: Encoding::DeltaBinaryPacked,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let (data, _) = decode_both(column(PhysicalType::Int64, 0, 0), &[page]);
    assert_eq!(data.values, Values::Int64(ints));

    let floats: Vec<f32> = (0..77).map(|i| (i as f32).sqrt() - 3.0).collect();
    let mut buf = Vec::new();
    codecs::byte_stream_split::encode(&floats, &mut buf);
    let page = Page::V1 {
        buf: &buf,
        num_values: 77,
        encoding: Encoding::ByteStreamSplit,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let (data, _) = decode_both(column(PhysicalType::Float, 0, 0), &[page]);
    assert_eq!(data.values, Values::Float(floats));
}

/// A page whose header claims more values than its sections hold, a level above the column's
/// maximum, and disagreeing counts: errors naming the part, on both routes.
#[test]
fn lying_pages_are_refused() {
    let col = column(PhysicalType::Int32, 1, 0);
    let defs = [1u32; 10];
    let mut buf = hybrid_levels(&defs, 1, true);
    buf.extend(plain_i32(&[5; 10]));
    let v1 = |buf, num_values| Page::V1 {
        buf,
        num_values,
        encoding: Encoding::Plain,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    // num_values 1000: the levels run out.
    for e in errors(col, &[], v1(&buf, 1000)) {
        assert_eq!(e.part, PagePart::DefLevels, "{e}");
        assert!(
            e.to_string().starts_with("definition levels (RLE): "),
            "{e}"
        );
    }
    // A required column whose page claims 11 values but holds 10.
    let values = plain_i32(&[5; 10]);
    for e in errors(column(PhysicalType::Int32, 0, 0), &[], v1(&values, 11)) {
        assert_eq!(e.part, PagePart::Values, "{e}");
        assert!(matches!(&e.kind, PageErrorKind::Codec(c) if c.kind == ErrorKind::Truncated));
    }
    // The length prefix says more bytes than the page has.
    let mut short = buf.clone();
    short[0] = 200;
    for e in errors(col, &[], v1(&short, 10)) {
        assert_eq!(e.part, PagePart::DefLevels);
        assert!(e.to_string().contains("200 bytes"), "{e}");
    }
    // A level 3 in a column whose maximum is 2 (width 2 holds up to 3).
    let col2 = column(PhysicalType::Int32, 2, 0);
    let mut bad = hybrid_levels(&[2, 3, 2], 2, true);
    bad.extend(plain_i32(&[1, 2]));
    for e in errors(col2, &[], v1(&bad, 3)) {
        assert_eq!(e.part, PagePart::DefLevels);
        assert!(
            e.to_string()
                .contains("level 1 of the page is 3, above the column's maximum 2"),
            "{e}"
        );
    }
    // v2: num_nulls disagreeing with the levels.
    let levels = hybrid_levels(&defs, 1, false);
    let mut v2 = levels.clone();
    v2.extend(plain_i32(&[5; 10]));
    let page = |num_nulls, def_len| Page::V2 {
        buf: &v2,
        num_values: 10,
        num_nulls,
        encoding: Encoding::Plain,
        def_levels_byte_len: def_len,
        rep_levels_byte_len: 0,
    };
    for e in errors(col, &[], page(1, levels.len() as u32)) {
        assert!(e.to_string().contains("num_nulls 1"), "{e}");
    }
    for e in errors(col, &[], page(11, levels.len() as u32)) {
        assert!(e.to_string().contains("above num_values"), "{e}");
    }
    for e in errors(col, &[], page(0, 1 << 20)) {
        assert_eq!(e.part, PagePart::Page);
        assert!(e.to_string().contains("def_levels_byte_len"), "{e}");
    }
}

#[test]
fn dictionary_misuse_is_refused() {
    let col = column(PhysicalType::Int32, 0, 0);
    let mut indices = Vec::new();
    dictionary::encode_indices(&[0, 1, 2], 3, &mut indices).unwrap();
    let data = Page::V1 {
        buf: &indices,
        num_values: 3,
        encoding: Encoding::RleDictionary,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    for e in errors(col, &[], data) {
        assert!(e.to_string().contains("no dictionary page"), "{e}");
    }
    // A two-entry dictionary: index 2 is out of range.
    let dict = plain_i32(&[10, 20]);
    let dict_page = Page::Dictionary {
        buf: &dict,
        num_values: 2,
        encoding: Encoding::Plain,
    };
    for e in errors(col, &[dict_page], data) {
        assert_eq!(e.part, PagePart::Values);
        assert!(
            matches!(&e.kind, PageErrorKind::Codec(c) if c.kind == ErrorKind::IndexOutOfRange),
            "{e:?}"
        );
    }
    for e in errors(col, &[dict_page], dict_page) {
        assert!(e.to_string().contains("second dictionary page"), "{e}");
    }
    // A dictionary page claiming more entries than it holds.
    let lying = Page::Dictionary {
        buf: &dict,
        num_values: 1 << 30,
        encoding: Encoding::Plain,
    };
    for e in errors(col, &[], lying) {
        assert_eq!(e.part, PagePart::Dictionary, "{e}");
    }
    let booleans = Page::Dictionary {
        buf: &[1],
        num_values: 1,
        encoding: Encoding::Plain,
    };
    for e in errors(column(PhysicalType::Boolean, 0, 0), &[], booleans) {
        assert!(matches!(e.kind, PageErrorKind::Unsupported(_)), "{e}");
    }
}

/// An RLE index wider than the page's bit width (width 1, value 3) that lands inside a
/// four-entry dictionary: QPL's parser keeps the value as it is, the codec refuses it; every
/// route must refuse it, never read entry 3 silently.
#[test]
fn over_wide_dictionary_indices_are_refused_on_every_route() {
    let col = column(PhysicalType::Int32, 0, 0);
    let dict = plain_i32(&[10, 20, 30, 40]);
    let dict_page = Page::Dictionary {
        buf: &dict,
        num_values: 4,
        encoding: Encoding::Plain,
    };
    // Width byte 1; an RLE run of 8 zeros; an RLE run of 8 values 3 (one value byte).
    let indices = [0x01, 0x10, 0x00, 0x10, 0x03];
    let data = Page::V1 {
        buf: &indices,
        num_values: 16,
        encoding: Encoding::RleDictionary,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let errors = errors(col, &[dict_page], data);
    assert!(errors.len() >= 2, "codecs and forced jobs at least");
    for e in errors {
        assert_eq!(e.part, PagePart::Values, "{e}");
        assert!(
            matches!(&e.kind, PageErrorKind::Codec(c) if c.kind == ErrorKind::Corrupt),
            "{e:?}"
        );
    }
    // The same page with the value in range decodes alike everywhere.
    let fine = [0x01, 0x10, 0x00, 0x10, 0x01];
    let page = Page::V1 {
        buf: &fine,
        num_values: 16,
        encoding: Encoding::RleDictionary,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let (decoded, _) = decode_both(col, &[dict_page, page]);
    assert_eq!(decoded.values, Values::Int32([[10; 8], [20; 8]].concat()));
}

#[test]
fn unsupported_combinations_and_wrong_output() {
    let buf = plain_i32(&[1, 2]);
    let page = |encoding| Page::V1 {
        buf: &buf,
        num_values: 2,
        encoding,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    for (t, e) in [
        (PhysicalType::Float, Encoding::DeltaBinaryPacked),
        (PhysicalType::Int32, Encoding::DeltaLengthByteArray),
        (PhysicalType::Int96, Encoding::ByteStreamSplit),
        (PhysicalType::Int32, Encoding::Rle),
        (PhysicalType::Int32, Encoding::BitPacked),
    ] {
        for err in errors(column(t, 0, 0), &[], page(e)) {
            assert!(matches!(err.kind, PageErrorKind::Unsupported(_)), "{err}");
            assert_eq!(err.encoding, Some(e));
        }
    }
    let col = column(PhysicalType::Int32, 0, 0);
    let mut decoder = ChunkDecoder::new(col, Path::Fallback);
    let mut wrong = ColumnData::new(&column(PhysicalType::Int64, 0, 0));
    let e = decoder
        .decode_page(&page(Encoding::Plain), &mut wrong)
        .unwrap_err();
    assert!(e.to_string().contains("ColumnData::new"), "{e}");
}

/// A header count far above what the executor allows is refused before anything of that size
/// is allocated, on both routes.
#[test]
fn huge_counts_are_refused_before_allocating() {
    let col = column(PhysicalType::Int32, 1, 0);
    // An RLE run of 2^31 - 1 ones in 6 bytes: a page may claim u32::MAX levels.
    let mut levels = vec![0u8; 4];
    codecs::write_uleb128(&mut levels, u64::from(i32::MAX as u32) << 1);
    levels.push(1);
    let len = (levels.len() - 4) as u32;
    levels[..4].copy_from_slice(&len.to_le_bytes());
    let page = Page::V1 {
        buf: &levels,
        num_values: u32::MAX,
        encoding: Encoding::Plain,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    for e in errors(col, &[], page) {
        assert!(e.to_string().contains("max_output_bytes"), "{e}");
    }
    // Levels within the limit, but their values are not: refused before the values grow.
    let executor = Executor::with_config(crate::Config {
        path: Path::Fallback,
        max_output_bytes: 1 << 20,
        ..crate::Config::default()
    });
    let mut decoder = ChunkDecoder::with_executor(col, executor);
    let page = Page::V1 {
        buf: &levels,
        num_values: 400_000,
        encoding: Encoding::Plain,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let mut data = ColumnData::new(&col);
    let e = decoder.decode_page(&page, &mut data).unwrap_err();
    assert_eq!(e.part, PagePart::Values, "{e}");
    assert!(e.to_string().contains("max_output_bytes"), "{e}");
}

/// Random bytes as any page kind never panic (debug builds check overflow), and every route
/// accepts what the codecs accept.
#[test]
fn random_pages_never_panic() {
    let mut next = xorshift(0x1234_5678_9abc_def1);
    let types = [
        PhysicalType::Boolean,
        PhysicalType::Int32,
        PhysicalType::Int64,
        PhysicalType::Int96,
        PhysicalType::Float,
        PhysicalType::Double,
        PhysicalType::ByteArray,
        PhysicalType::FixedLenByteArray(3),
    ];
    for round in 0..3000 {
        let len = (next() % 64) as usize;
        let buf: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let col = column(
            types[round % types.len()],
            (next() % 4) as i16,
            (next() % 3) as i16,
        );
        let encoding = Encoding::ALL[(next() % 9) as usize];
        let level_encoding = if next().is_multiple_of(4) {
            Encoding::BitPacked
        } else {
            Encoding::Rle
        };
        let num_values = (next() % 100) as u32;
        let mut dict = Vec::new();
        plain::encode(&[1i64, 2, 3], &mut dict);
        let pages = [
            Page::Dictionary {
                buf: &buf,
                num_values: (next() % 8) as u32,
                encoding: Encoding::Plain,
            },
            Page::V1 {
                buf: &buf,
                num_values,
                encoding,
                def_level_encoding: level_encoding,
                rep_level_encoding: level_encoding,
            },
            Page::V2 {
                buf: &buf,
                num_values,
                num_nulls: (next() % 100) as u32,
                encoding,
                def_levels_byte_len: (next() % 16) as u32,
                rep_levels_byte_len: (next() % 16) as u32,
            },
        ];
        let mut outcomes = Vec::new();
        for (name, mut decoder) in decoders(col) {
            let mut data = ColumnData::new(&col);
            let results: Vec<Result<(usize, usize), PagePart>> = pages
                .iter()
                .map(|page| {
                    decoder
                        .decode_page(page, &mut data)
                        .map(|r| (r.levels, r.values))
                        .map_err(|e| e.part)
                })
                .collect();
            outcomes.push((name, results, data));
        }
        // A page the codecs accept, every route accepts, with the same counts; up to the
        // first page the codecs refuse, the data agree. (A job may accept what the codecs
        // refuse: QPL masks an RLE value wider than the bit width, the codec calls it Corrupt.)
        let (_, results, data) = &outcomes[0];
        let accepted = results.iter().take_while(|r| r.is_ok()).count();
        for (name, other_results, other_data) in &outcomes[1..] {
            assert_eq!(
                results[..accepted],
                other_results[..accepted],
                "round {round}: codecs vs {name}"
            );
            if accepted == pages.len() {
                assert_eq!(data, other_data, "round {round}: codecs vs {name}");
            }
        }
    }
}

/// FIXED_LEN_BYTE_ARRAY from DELTA_BYTE_ARRAY (which stores every length): values of the
/// type's length decode, another length is an error of the values part.
#[test]
fn fixed_len_delta_byte_array_checks_lengths() {
    let col = column(PhysicalType::FixedLenByteArray(3), 0, 0);
    let page = |buf| Page::V1 {
        buf,
        num_values: 3,
        encoding: Encoding::DeltaByteArray,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    let good: [&[u8]; 3] = [b"abc", b"abd", b"xyz"];
    let mut buf = Vec::new();
    codecs::delta_byte_array::encode(good.iter().copied(), &mut buf).unwrap();
    let (data, _) = decode_both(col, &[page(&buf)]);
    assert_eq!(data.values, Values::Bytes(good.iter().copied().collect()));
    let bad: [&[u8]; 3] = [b"abc", b"abcd", b"xyz"];
    let mut buf = Vec::new();
    codecs::delta_byte_array::encode(bad.iter().copied(), &mut buf).unwrap();
    for e in errors(col, &[], page(&buf)) {
        assert_eq!(
            (e.part, e.encoding),
            (PagePart::Values, Some(Encoding::DeltaByteArray))
        );
    }
}

/// Pages of fewer than 8 values whose levels and indices are one bit-packed group: QPL answers
/// 225 for them as asked (D8 of `docs/semantics.md`); asked for 8 they decode, so they stay on
/// the job's path. Where QPL's software path is linked, the report says it ran there.
#[test]
fn short_bit_packed_pages_stay_on_the_job_path() {
    let col = column(PhysicalType::Int32, 1, 0);
    let defs = [1u32, 0, 1, 1, 1];
    let levels = hybrid_levels(&defs, 1, false);
    assert_eq!(levels[0], 0x03, "one bit-packed group");
    let dict = plain_i32(&[-1, 5, 9]);
    let mut buf = levels.clone();
    dictionary::encode_indices(&[2, 0, 1, 1], 3, &mut buf).unwrap();
    let pages = [
        Page::Dictionary {
            buf: &dict,
            num_values: 3,
            encoding: Encoding::Plain,
        },
        Page::V2 {
            buf: &buf,
            num_values: 5,
            num_nulls: 1,
            encoding: Encoding::RleDictionary,
            def_levels_byte_len: levels.len() as u32,
            rep_levels_byte_len: 0,
        },
    ];
    let (data, _) = decode_both(col, &pages);
    assert_eq!(data.def_levels, [1, 0, 1, 1, 1]);
    assert_eq!(data.values, Values::Int32(vec![9, -1, 5, 5]));
    if Path::Software.availability().is_ok() {
        let mut decoder = ChunkDecoder::new(col, Path::Software);
        let mut out = ColumnData::new(&col);
        decoder.decode_page(&pages[0], &mut out).unwrap();
        let report = decoder.decode_page(&pages[1], &mut out).unwrap();
        assert_eq!(report.def_levels_path, Some(Path::Software));
        assert_eq!(report.values_path, Some(Path::Software));
        assert_eq!(out, data);
    }
}

/// Byte arrays that outgrow their page (a long dictionary entry repeated by an RLE run, a long
/// DELTA_BYTE_ARRAY prefix repeated) are refused at the executor's `max_output_bytes`, before
/// that memory is taken, on every route.
#[test]
fn byte_arrays_that_outgrow_their_page_are_refused() {
    let col = column(PhysicalType::ByteArray, 0, 0);
    let limited = |path, jobs: bool| {
        let executor = Executor::with_config(crate::Config {
            path,
            max_output_bytes: 1 << 20,
            ..crate::Config::default()
        });
        let decoder = ChunkDecoder::with_executor(col, executor);
        if jobs {
            decoder.force_jobs()
        } else {
            decoder
        }
    };
    let mut routes = vec![
        limited(Path::Fallback, false),
        limited(Path::Fallback, true),
    ];
    if Path::Software.availability().is_ok() {
        routes.push(limited(Path::Software, false));
    }
    let long = vec![b'x'; 1000];
    let mut dict = Vec::new();
    plain::encode_byte_arrays([&long[..]], &mut dict).unwrap();
    let mut indices = Vec::new();
    dictionary::encode_indices(&[0; 100_000], 1, &mut indices).unwrap();
    assert!(indices.len() < 16, "an RLE run: {} bytes", indices.len());
    let values: Vec<&[u8]> = vec![&long[..]; 10_000];
    let mut delta = Vec::new();
    codecs::delta_byte_array::encode(values.iter().copied(), &mut delta).unwrap();
    for mut decoder in routes {
        let mut data = ColumnData::new(&col);
        let dictionary_page = Page::Dictionary {
            buf: &dict,
            num_values: 1,
            encoding: Encoding::Plain,
        };
        decoder.decode_page(&dictionary_page, &mut data).unwrap();
        let page = |buf, num_values, encoding| Page::V1 {
            buf,
            num_values,
            encoding,
            def_level_encoding: Encoding::Rle,
            rep_level_encoding: Encoding::Rle,
        };
        let e = decoder
            .decode_page(&page(&indices, 100_000, Encoding::RleDictionary), &mut data)
            .unwrap_err();
        assert!(e.to_string().contains("max_output_bytes"), "{e}");
        let e = decoder
            .decode_page(&page(&delta, 10_000, Encoding::DeltaByteArray), &mut data)
            .unwrap_err();
        assert!(e.to_string().contains("max_output_bytes"), "{e}");
        assert!(data.values.is_empty());
        // Within the limit, the same pages decode.
        decoder
            .decode_page(&page(&delta, 1_000, Encoding::DeltaByteArray), &mut data)
            .expect_err("the page holds 10,000 values, not 1,000");
        let mut few = Vec::new();
        dictionary::encode_indices(&[0; 1000], 1, &mut few).unwrap();
        decoder
            .decode_page(&page(&few, 1000, Encoding::RleDictionary), &mut data)
            .unwrap();
        assert_eq!(data.values.len(), 1000);
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A page's content: levels (each at most its maximum) and one INT32 value per definition
    /// level at the maximum.
    fn page_content() -> impl Strategy<Value = (i16, i16, Vec<(u32, u32)>, Vec<i32>)> {
        (0i16..4, 0i16..3).prop_flat_map(|(max_def, max_rep)| {
            let levels = prop::collection::vec((0..=max_def as u32, 0..=max_rep as u32), 0..300);
            (Just(max_def), Just(max_rep), levels).prop_flat_map(|(d, r, levels)| {
                let present = levels.iter().filter(|l| l.0 == d as u32).count();
                let values =
                    prop::collection::vec(prop_oneof![-3i32..3, any::<i32>()], present..=present);
                (Just(d), Just(r), Just(levels), values)
            })
        })
    }

    proptest! {
        /// Any levels and values, written as a v1 page (levels RLE or BIT_PACKED) or a v2
        /// page, in any INT32 value encoding, decode to what was written on every route.
        #[test]
        fn written_pages_decode_to_their_content(
            (max_def, max_rep, levels, values) in page_content(),
            value_encoding in 0usize..4,
            v2 in any::<bool>(),
            bit_packed_levels in any::<bool>(),
        ) {
            let col = column(PhysicalType::Int32, max_def, max_rep);
            let defs: Vec<u32> = levels.iter().map(|l| l.0).collect();
            let reps: Vec<u32> = levels.iter().map(|l| l.1).collect();
            let (encoding, value_bytes, dictionary) = match value_encoding {
                0 => (Encoding::Plain, plain_i32(&values), None),
                1 => {
                    let mut out = Vec::new();
                    delta_binary_packed::encode(&values, &mut out);
                    (Encoding::DeltaBinaryPacked, out, None)
                }
                2 => {
                    let mut out = Vec::new();
                    codecs::byte_stream_split::encode(&values, &mut out);
                    (Encoding::ByteStreamSplit, out, None)
                }
                _ => {
                    let (dict, ids) = dictionary::build_dictionary(&values);
                    let mut out = Vec::new();
                    dictionary::encode_indices(&ids, dict.len(), &mut out).unwrap();
                    (Encoding::RleDictionary, out, Some(plain_i32(&dict)))
                }
            };
            let n = levels.len() as u32;
            let mut buf = Vec::new();
            let page = if v2 {
                let rep = if max_rep > 0 { hybrid_levels(&reps, level_width(max_rep), false) } else { Vec::new() };
                let def = if max_def > 0 { hybrid_levels(&defs, level_width(max_def), false) } else { Vec::new() };
                buf.extend(&rep);
                buf.extend(&def);
                buf.extend(&value_bytes);
                Page::V2 {
                    buf: &buf,
                    num_values: n,
                    num_nulls: n - values.len() as u32,
                    encoding,
                    def_levels_byte_len: def.len() as u32,
                    rep_levels_byte_len: rep.len() as u32,
                }
            } else {
                let level_encoding = if bit_packed_levels { Encoding::BitPacked } else { Encoding::Rle };
                for (max, levels) in [(max_rep, &reps), (max_def, &defs)] {
                    if max > 0 {
                        if bit_packed_levels {
                            bit_packed::encode(levels, level_width(max), &mut buf).unwrap();
                        } else {
                            buf.extend(hybrid_levels(levels, level_width(max), true));
                        }
                    }
                }
                buf.extend(&value_bytes);
                Page::V1 {
                    buf: &buf,
                    num_values: n,
                    encoding,
                    def_level_encoding: level_encoding,
                    rep_level_encoding: level_encoding,
                }
            };
            let mut pages = Vec::new();
            if let Some(dict) = &dictionary {
                pages.push(Page::Dictionary {
                    buf: dict,
                    num_values: (dict.len() / 4) as u32,
                    encoding: Encoding::Plain,
                });
            }
            pages.push(page);
            let (data, _) = decode_both(col, &pages);
            let as_i16 = |v: &[u32]| v.iter().map(|&l| l as i16).collect::<Vec<_>>();
            prop_assert_eq!(&data.def_levels, &if max_def > 0 { as_i16(&defs) } else { Vec::new() });
            prop_assert_eq!(&data.rep_levels, &if max_rep > 0 { as_i16(&reps) } else { Vec::new() });
            prop_assert_eq!(&data.values, &Values::Int32(values));
        }
    }
}

/// A list page's levels and indices decoded a piece at a time (`list_page_streams`) equal the
/// page decoded whole, v1 and v2, in steps of any size; the pages it does not take are
/// `None`, and lying sections are errors.
#[test]
fn list_page_streams_decode_what_decode_page_decodes() {
    let col = column(PhysicalType::ByteArray, 3, 1);
    let words: [&[u8]; 5] = [b"", b"alpha", b"beta", b"gamma", b"delta"];
    let mut dict_page = Vec::new();
    plain::encode_byte_arrays(words.iter().copied(), &mut dict_page).unwrap();
    let dictionary_page = Page::Dictionary {
        buf: &dict_page,
        num_values: 5,
        encoding: Encoding::PlainDictionary,
    };
    // 3000 levels: rows of 0 to 9 levels, runs and noise, so both run kinds occur.
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let (mut reps, mut defs, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    while reps.len() < 3000 {
        let n = 1 + next() % 9;
        for i in 0..n {
            reps.push(u32::from(i > 0));
            let def = if n == 1 {
                (next() % 4) as u32
            } else {
                2 + !next().is_multiple_of(5) as u32
            };
            defs.push(def);
            if def == 3 {
                ids.push((next() % 5) as u32);
            }
        }
    }
    let mut values = Vec::new();
    dictionary::encode_indices(&ids, words.len(), &mut values).unwrap();
    let rep_bytes = hybrid_levels(&reps, 1, false);
    let def_bytes = hybrid_levels(&defs, 2, false);
    let mut v2 = rep_bytes.clone();
    v2.extend(&def_bytes);
    v2.extend(&values);
    let mut v1 = hybrid_levels(&reps, 1, true);
    v1.extend(hybrid_levels(&defs, 2, true));
    v1.extend(&values);
    let n = reps.len() as u32;
    let nulls = n - ids.len() as u32;
    let v2_page = |buf, rep_len: usize, num_nulls| Page::V2 {
        buf,
        num_values: n,
        num_nulls,
        encoding: Encoding::RleDictionary,
        def_levels_byte_len: def_bytes.len() as u32,
        rep_levels_byte_len: rep_len as u32,
    };
    let v1_page = |buf, rep_level_encoding| Page::V1 {
        buf,
        num_values: n,
        encoding: Encoding::RleDictionary,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding,
    };
    let expect_rep: Vec<i16> = reps.iter().map(|&l| l as i16).collect();
    let expect_def: Vec<i16> = defs.iter().map(|&l| l as i16).collect();
    for page in [
        v1_page(&v1[..], Encoding::Rle),
        v2_page(&v2[..], rep_bytes.len(), nulls),
    ] {
        let buf = match page {
            Page::V1 { buf, .. } | Page::V2 { buf, .. } => buf,
            Page::Dictionary { .. } => unreachable!(),
        };
        for step in [1, 7, 64, 2048, 5000] {
            let mut decoder = ChunkDecoder::new(col, Path::Fallback);
            let mut data = ColumnData::new(&col);
            decoder.decode_page(&dictionary_page, &mut data).unwrap();
            let mut streams = decoder.list_page_streams(&page).unwrap().expect("streams");
            assert_eq!(streams.levels, reps.len());
            let (mut rep, mut def, mut scratch) = (vec![], vec![], vec![]);
            let mut got_ids: Vec<u32> = Vec::new();
            while streams.rep.0.remaining() > 0 {
                let (stream, range) = &mut streams.rep;
                let a = stream.next(&buf[range.clone()], step, &mut scratch, &mut rep);
                let (stream, range) = &mut streams.def;
                let b = stream.next(&buf[range.clone()], step, &mut scratch, &mut def);
                assert_eq!(a.unwrap(), b.unwrap());
            }
            assert_eq!((&rep, &def), (&expect_rep, &expect_def), "step {step}");
            let (stream, range) = streams.indices.as_mut().expect("a values section");
            let mut piece = Vec::new();
            while got_ids.len() < ids.len() {
                let count = step.min(ids.len() - got_ids.len());
                stream.next(&buf[range.clone()], count, &mut piece).unwrap();
                got_ids.extend(&piece);
            }
            assert_eq!(got_ids, ids, "step {step}");
            streams.check_end(ids.len()).unwrap();
        }
    }
    // Pages left to decode_page: a dictionary page, BIT_PACKED levels, PLAIN values, and
    // every page where QPL jobs decode.
    let decoder = ChunkDecoder::new(col, Path::Fallback);
    assert!(decoder
        .list_page_streams(&dictionary_page)
        .unwrap()
        .is_none());
    let bit_packed = v1_page(&v1[..], Encoding::BitPacked);
    assert!(decoder.list_page_streams(&bit_packed).unwrap().is_none());
    let plain = Page::V1 {
        buf: &v1,
        num_values: n,
        encoding: Encoding::Plain,
        def_level_encoding: Encoding::Rle,
        rep_level_encoding: Encoding::Rle,
    };
    assert!(decoder.list_page_streams(&plain).unwrap().is_none());
    let jobs = ChunkDecoder::new(col, Path::Fallback).force_jobs();
    assert!(jobs
        .list_page_streams(&v1_page(&v1[..], Encoding::Rle))
        .unwrap()
        .is_none());
    // Lying pages: level sections past the page, a v2 null count the levels deny, a level
    // above the column's maximum, levels cut short.
    let e = decoder
        .list_page_streams(&v2_page(&v2[..], v2.len(), nulls))
        .unwrap_err();
    assert!(e.to_string().contains("pass the page's"), "{e}");
    let streams = decoder.list_page_streams(&v2_page(&v2[..], rep_bytes.len(), nulls + 1));
    let e = streams.unwrap().unwrap().check_end(ids.len()).unwrap_err();
    assert!(e.to_string().contains("num_nulls"), "{e}");
    let shallow = column(PhysicalType::ByteArray, 2, 1);
    let mut decoder = ChunkDecoder::new(shallow, Path::Fallback);
    decoder
        .decode_page(&dictionary_page, &mut ColumnData::new(&shallow))
        .unwrap();
    let mut streams = decoder
        .list_page_streams(&v2_page(&v2[..], rep_bytes.len(), nulls))
        .unwrap()
        .unwrap();
    let (stream, range) = &mut streams.def;
    let (mut out, mut scratch) = (vec![], vec![]);
    let e = stream
        .next(&v2[range.clone()], 5000, &mut scratch, &mut out)
        .unwrap_err();
    assert!(e.to_string().contains("above the column's maximum"), "{e}");
    let mut cut = LevelStream::new(PagePart::DefLevels, &def_bytes[..1], 3, n as usize).unwrap();
    let mut out = vec![];
    let e = cut.next(&def_bytes[..1], 5000, &mut scratch, &mut out);
    assert!(e.is_err(), "{out:?}");
}
