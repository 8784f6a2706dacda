//! `parquet::query`: `filter` and `gather` on hand-built column chunks (a nullable dictionary
//! column, nullable PLAIN and BYTE_STREAM_SPLIT columns, pages v1 and v2 of random sizes)
//! against a plain evaluation over the rows, for every predicate kind, with row masks at any
//! bit offset, on every path this build can run; the scan plans of the module docs' worked
//! examples; and the errors.

use proptest::prelude::*;
use qpl_rs::parquet::query::{
    filter, gather, ColumnChunk, Filtered, Predicate, QueryErrorKind, Scalar,
};
use qpl_rs::parquet::{Column, ColumnData, Encoding, Page, PhysicalType, Values};
use qpl_rs::{encode_hybrid, encode_parquet_rle, Bitmap, Executor, Path};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

const OPTIONAL_INT32: Column = Column {
    physical_type: PhysicalType::Int32,
    max_def_level: 1,
    max_rep_level: 0,
};

/// Page bodies: the levels section, then `values`, as a v1 or v2 page would hold them.
fn body(rows: &[bool], values: &[u8], v1: bool) -> (Vec<u8>, u32) {
    let levels: Vec<u32> = rows.iter().map(|&p| u32::from(p)).collect();
    let levels = encode_hybrid(&levels, 1).unwrap();
    let mut buf = Vec::new();
    if v1 {
        buf.extend((levels.len() as u32).to_le_bytes());
    }
    buf.extend(&levels);
    buf.extend(values);
    (buf, levels.len() as u32)
}

fn page<'a>(buf: &'a [u8], def_len: u32, rows: &[bool], encoding: Encoding, v1: bool) -> Page<'a> {
    let num_values = rows.len() as u32;
    if v1 {
        Page::V1 {
            buf,
            num_values,
            encoding,
            def_level_encoding: Encoding::Rle,
            rep_level_encoding: Encoding::Rle,
        }
    } else {
        Page::V2 {
            buf,
            num_values,
            num_nulls: rows.iter().filter(|&&p| !p).count() as u32,
            encoding,
            def_levels_byte_len: def_len,
            rep_levels_byte_len: 0,
        }
    }
}

/// Bodies of a chunk split at `splits`: the dictionary (if any) first.
struct Bodies {
    dictionary: Option<(Vec<u8>, u32)>,
    pages: Vec<(Vec<u8>, u32, Vec<bool>)>,
    encoding: Encoding,
    v1: bool,
}

impl Bodies {
    fn chunk(&self, name: &str) -> ColumnChunk<'_> {
        let mut pages = Vec::new();
        if let Some((buf, n)) = &self.dictionary {
            pages.push(Page::Dictionary {
                buf,
                num_values: *n,
                encoding: Encoding::Plain,
            });
        }
        for (buf, def_len, rows) in &self.pages {
            pages.push(page(buf, *def_len, rows, self.encoding, self.v1));
        }
        ColumnChunk::new(name, OPTIONAL_INT32, pages)
    }
}

fn pieces<T>(rows: &[T], splits: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut cuts: Vec<usize> = splits.iter().map(|&s| s % (rows.len() + 1)).collect();
    cuts.extend([0, rows.len()]);
    cuts.sort_unstable();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

fn dictionary_chunk(dict: &[i32], rows: &[Option<u32>], splits: &[usize], v1: bool) -> Bodies {
    let width = (32 - (dict.len() as u32 - 1).leading_zeros()).max(1);
    let pages = pieces(rows, splits)
        .into_iter()
        .map(|r| {
            let rows = &rows[r];
            let ids: Vec<u32> = rows.iter().flatten().copied().collect();
            let present: Vec<bool> = rows.iter().map(Option::is_some).collect();
            let (buf, def_len) = body(&present, &encode_parquet_rle(&ids, width).unwrap(), v1);
            (buf, def_len, present)
        })
        .collect();
    Bodies {
        dictionary: Some((
            dict.iter().flat_map(|v| v.to_le_bytes()).collect(),
            dict.len() as u32,
        )),
        pages,
        encoding: Encoding::RleDictionary,
        v1,
    }
}

fn fixed_chunk(rows: &[Option<i32>], splits: &[usize], v1: bool, split_streams: bool) -> Bodies {
    let pages = pieces(rows, splits)
        .into_iter()
        .map(|r| {
            let rows = &rows[r];
            let values: Vec<i32> = rows.iter().flatten().copied().collect();
            let bytes: Vec<u8> = if split_streams {
                (0..4)
                    .flat_map(|k| values.iter().map(move |v| v.to_le_bytes()[k]))
                    .collect()
            } else {
                values.iter().flat_map(|v| v.to_le_bytes()).collect()
            };
            let present: Vec<bool> = rows.iter().map(Option::is_some).collect();
            let (buf, def_len) = body(&present, &bytes, v1);
            (buf, def_len, present)
        })
        .collect();
    let encoding = if split_streams {
        Encoding::ByteStreamSplit
    } else {
        Encoding::Plain
    };
    Bodies {
        dictionary: None,
        pages,
        encoding,
        v1,
    }
}

fn eval(predicate: &Predicate, x: i32) -> bool {
    let v = |s: &Scalar| match s {
        Scalar::Int32(v) => *v,
        _ => unreachable!(),
    };
    match predicate {
        Predicate::Eq(s) => x == v(s),
        Predicate::Ne(s) => x != v(s),
        Predicate::In(ss) => ss.iter().any(|s| x == v(s)),
        Predicate::Range(l, h) => v(l) <= x && x <= v(h),
    }
}

fn predicate() -> impl Strategy<Value = Predicate> {
    let scalar = || (-3i32..12).prop_map(Scalar::Int32);
    prop_oneof![
        scalar().prop_map(Predicate::Eq),
        scalar().prop_map(Predicate::Ne),
        proptest::collection::vec(scalar(), 0..5).prop_map(Predicate::In),
        (scalar(), scalar()).prop_map(|(l, h)| Predicate::Range(l, h)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn filter_then_gather_agrees_with_the_rows(
        dict in proptest::collection::vec(0i32..10, 1..12),
        ids in proptest::collection::vec(proptest::option::weighted(0.8, 0u32..1000), 0..400),
        b_rows in proptest::collection::vec(proptest::option::weighted(0.85, any::<i32>()), 400),
        splits in proptest::collection::vec(0usize..1000, 0..5),
        predicate in predicate(),
        v1: bool,
        offset in 0usize..64,
    ) {
        let rows: Vec<Option<u32>> = ids.iter().map(|id| id.map(|i| i % dict.len() as u32)).collect();
        let n = rows.len();
        let b_rows = &b_rows[..n];
        let a = dictionary_chunk(&dict, &rows, &splits, v1);
        let expected: Vec<bool> = rows.iter().map(|r| r.is_some_and(|id| eval(&predicate, dict[id as usize]))).collect();
        let other_splits: Vec<usize> = splits.iter().map(|s| s * 7 + 3).collect();
        for path in paths() {
            let executor = Executor::new(path);
            let filtered = filter(&a.chunk("a"), &predicate, &executor).unwrap();
            prop_assert_eq!(filtered.rows.iter().collect::<Vec<_>>(), expected.clone(), "{}", path);
            // The same rows at a bit offset: junk bits before them.
            let mut shifted = Bitmap::from_bools((0..offset).map(|i| i % 3 == 0));
            shifted.extend_from_bitmap(filtered.rows.view());
            let mask = shifted.slice(offset, n);
            for split_streams in [false, true] {
                let b = fixed_chunk(b_rows, &other_splits, v1, split_streams);
                let got = gather(&b.chunk("b"), mask, &executor).unwrap();
                let selected: Vec<Option<i32>> = (0..n).filter(|&i| expected[i]).map(|i| b_rows[i]).collect();
                prop_assert_eq!(got.def_levels, selected.iter().map(|v| i16::from(v.is_some())).collect::<Vec<_>>());
                prop_assert_eq!(got.values, Values::Int32(selected.iter().flatten().copied().collect()));
            }
            // Gathering the filtered column itself gives its matching values.
            let got = gather(&a.chunk("a"), mask, &executor).unwrap();
            let values: Vec<i32> = (0..n).filter(|&i| expected[i]).map(|i| dict[rows[i].unwrap() as usize]).collect();
            prop_assert_eq!(got.values, Values::Int32(values));
        }
    }
}

fn plan(predicate: Predicate) -> Filtered {
    let dict = [10, 42, 7, 42, 99];
    let rows: Vec<Option<u32>> = (0..50).map(|i| (i % 7 != 0).then_some(i % 5)).collect();
    let a = dictionary_chunk(&dict, &rows, &[17], false);
    let filtered = filter(&a.chunk("a"), &predicate, &Executor::new(Path::Fallback)).unwrap();
    let expected: Vec<bool> = rows
        .iter()
        .map(|r| r.is_some_and(|id| eval(&predicate, dict[id as usize])))
        .collect();
    assert_eq!(
        filtered.rows.iter().collect::<Vec<_>>(),
        expected,
        "{predicate:?}"
    );
    filtered
}

#[test]
fn dictionary_predicates_scan_runs_of_ids_as_documented() {
    let i = Scalar::Int32;
    // (predicate, scans per page): two pages.
    for (predicate, scans) in [
        (Predicate::Eq(i(42)), 2),
        (Predicate::Ne(i(42)), 3),
        (Predicate::Range(i(7), i(42)), 1),
        (Predicate::Ne(i(99)), 1),
        (Predicate::Ne(i(10)), 1),
        (Predicate::Ne(i(7)), 1),
        // ids {0, 4}: the complement {1, 2, 3} is one run, `NotRange(1, 3)`.
        (Predicate::In(vec![i(10), i(99)]), 1),
        (Predicate::In(vec![i(10), i(7)]), 2),
    ] {
        let filtered = plan(predicate.clone());
        assert_eq!(
            (filtered.index_pages, filtered.decoded_pages),
            (2, 0),
            "{predicate:?}"
        );
        assert_eq!(filtered.scans, 2 * scans, "{predicate:?}");
    }
    // No id, or every id: the pages are answered without a scan.
    for predicate in [Predicate::Eq(i(5)), Predicate::Range(i(0), i(100))] {
        let filtered = plan(predicate.clone());
        assert_eq!(
            (filtered.index_pages, filtered.scans),
            (2, 0),
            "{predicate:?}"
        );
    }
}

#[test]
fn scattered_ids_are_decoded_and_compared() {
    // 20 entries alternating 0/1: Eq(1) matches 10 single ids, more than MAX_SCANS.
    let dict: Vec<i32> = (0..20).map(|i| i % 2).collect();
    let rows: Vec<Option<u32>> = (0..100).map(|i| Some(i % 20)).collect();
    let a = dictionary_chunk(&dict, &rows, &[], true);
    let filtered = filter(
        &a.chunk("a"),
        &Predicate::Eq(Scalar::Int32(1)),
        &Executor::new(Path::Fallback),
    )
    .unwrap();
    assert_eq!((filtered.decoded_pages, filtered.scans), (1, 0));
    assert_eq!(
        filtered.rows.iter_ones().collect::<Vec<_>>(),
        (0..100).filter(|i| i % 2 == 1).collect::<Vec<_>>()
    );
}

#[test]
fn errors_name_the_column_and_the_page() {
    let executor = Executor::new(Path::Fallback);
    let rows: Vec<Option<i32>> = (0..20).map(Some).collect();
    let b = fixed_chunk(&rows, &[9], false, false);
    // A selection shorter than the chunk: the page that passes it is named.
    let e = gather(&b.chunk("b"), Bitmap::repeat(true, 12).view(), &executor).unwrap_err();
    assert_eq!((e.column.as_str(), e.page), ("b", Some(1)));
    assert!(e.to_string().starts_with("column b, page 1: "), "{e}");
    // Longer: the chunk.
    let e = gather(&b.chunk("b"), Bitmap::repeat(true, 21).view(), &executor).unwrap_err();
    assert!(
        e.to_string().contains("hold 20 rows, the selection 21"),
        "{e}"
    );
    // A scalar of another type.
    let e = filter(&b.chunk("b"), &Predicate::Eq(Scalar::Int64(1)), &executor).unwrap_err();
    assert!(matches!(e.kind, QueryErrorKind::Unsupported(_)), "{e}");
    assert!(
        e.to_string()
            .contains("INT64 value compared with a INT32 column"),
        "{e}"
    );
    // A damaged page: truncated PLAIN values.
    let mut damaged = fixed_chunk(&rows, &[9], false, false);
    let short = damaged.pages[1].0.len() - 2;
    damaged.pages[1].0.truncate(short);
    let e = gather(
        &damaged.chunk("b"),
        Bitmap::repeat(true, 20).view(),
        &executor,
    )
    .unwrap_err();
    assert_eq!(e.page, Some(1), "{e}");
    // Repeated columns are refused, by name.
    let list = Column {
        max_rep_level: 1,
        max_def_level: 3,
        ..OPTIONAL_INT32
    };
    let chunk = ColumnChunk::new("l.list.element", list, Vec::new());
    let e = filter(&chunk, &Predicate::Eq(Scalar::Int32(1)), &executor).unwrap_err();
    assert!(
        e.to_string().contains("column l.list.element") && e.to_string().contains("repeated"),
        "{e}"
    );
    let e = gather(&chunk, Bitmap::new().view(), &executor).unwrap_err();
    assert!(e.to_string().contains("repeated"), "{e}");
    // A dictionary-encoded page without its dictionary page.
    let a = dictionary_chunk(&[1, 2], &[Some(0), Some(1)], &[], false);
    let mut chunk = a.chunk("a");
    chunk.pages.remove(0);
    let e = filter(&chunk, &Predicate::Eq(Scalar::Int32(1)), &executor).unwrap_err();
    assert_eq!(e.page, Some(0), "{e}");
    assert!(e.to_string().contains("no dictionary page"), "{e}");
}

#[test]
fn pages_without_selected_rows_are_not_decoded() {
    // The second page is garbage, but no row of it is selected: the gather never reads it.
    let rows: Vec<Option<i32>> = (0..30).map(Some).collect();
    let mut b = fixed_chunk(&rows, &[10, 20], true, false);
    b.pages[1].0 = vec![0xff; 3];
    let mask: Bitmap = (0..30)
        .map(|i| !(10..20).contains(&i) && i % 2 == 0)
        .collect();
    let got: ColumnData =
        gather(&b.chunk("b"), mask.view(), &Executor::new(Path::Fallback)).unwrap();
    assert_eq!(
        got.values,
        Values::Int32(vec![0, 2, 4, 6, 8, 20, 22, 24, 26, 28])
    );
}

fn in_list(values: &[i64]) -> Predicate {
    Predicate::In(values.iter().map(|&v| Scalar::Int64(v)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// `In` lists long enough to be sorted and searched (a join's keys pushed into a scan)
    /// match what a scan of the list gives, duplicates and unsorted lists included.
    #[test]
    fn long_in_lists_match_as_a_scan_of_the_list(
        values in proptest::collection::vec(-40i64..40, 0..300),
        list in proptest::collection::vec(-50i64..50, 0..40),
    ) {
        let got = in_list(&list).matches(&Values::Int64(values.clone())).unwrap();
        let expected: Vec<bool> = values.iter().map(|v| list.contains(v)).collect();
        prop_assert_eq!(got.iter().collect::<Vec<_>>(), expected.clone());
        let as_i32 = Predicate::In(list.iter().map(|&v| Scalar::Int32(v as i32)).collect());
        let got = as_i32.matches(&Values::Int32(values.iter().map(|&v| v as i32).collect())).unwrap();
        prop_assert_eq!(got.iter().collect::<Vec<_>>(), expected.clone());
        // Byte arrays: each value as its decimal text ("-3" sorts before "-30" and "10").
        let text = |v: &i64| v.to_string().into_bytes();
        let mut bytes = qpl_rs::parquet::ByteArrays::new();
        for v in &values {
            bytes.values.extend_from_slice(&text(v));
            bytes.offsets.push(bytes.values.len() as i32);
        }
        let as_bytes = Predicate::In(list.iter().map(|v| Scalar::Bytes(text(v))).collect());
        let got = as_bytes.matches(&Values::Bytes(bytes)).unwrap();
        prop_assert_eq!(got.iter().collect::<Vec<_>>(), expected);
    }
}
