//! `query::filter` checks dictionary indices against the dictionary's length: on hand-built
//! pages whose indices pass the dictionary, every kind of scan plan (no id, every id, runs of
//! ids, an inverted run, scattered ids looked up) is an error naming the column and the page,
//! never a silent match or no-match, on every path this build can run; valid pages are
//! checked with one scan only when their bit width can hold an index past the dictionary.

use qpl_rs::parquet::query::{filter, gather, ColumnChunk, Predicate, QueryErrorKind, Scalar};
use qpl_rs::parquet::{Column, Encoding, Page, PhysicalType};
use qpl_rs::{encode_hybrid, encode_parquet_rle, Bitmap, Executor, Path};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

fn column(max_def_level: i16) -> Column {
    Column {
        physical_type: PhysicalType::Int32,
        max_def_level,
        max_rep_level: 0,
    }
}

fn plain(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A chunk's page bodies: a dictionary of `dictionary`, then one data page per entry of
/// `pages`, each holding the indices given (`None`: a null row) at bit width `width`, as v2
/// pages (`v1`: v1 pages, levels with their length prefix).
struct Chunk {
    dictionary: Vec<u8>,
    entries: u32,
    pages: Vec<(Vec<u8>, u32, u32, u32)>,
    nullable: bool,
    v1: bool,
}

impl Chunk {
    fn new(dictionary: &[i32], pages: &[Vec<Option<u32>>], width: u32, v1: bool) -> Chunk {
        let nullable = pages.iter().flatten().any(Option::is_none);
        let pages = pages
            .iter()
            .map(|rows| {
                let ids: Vec<u32> = rows.iter().flatten().copied().collect();
                let values = encode_parquet_rle(&ids, width).unwrap();
                let mut buf = Vec::new();
                let mut def_len = 0;
                if nullable {
                    let levels: Vec<u32> = rows.iter().map(|r| u32::from(r.is_some())).collect();
                    let levels = encode_hybrid(&levels, 1).unwrap();
                    def_len = levels.len() as u32;
                    if v1 {
                        buf.extend(def_len.to_le_bytes());
                    }
                    buf.extend(levels);
                }
                buf.extend(values);
                let nulls = rows.iter().filter(|r| r.is_none()).count() as u32;
                (buf, rows.len() as u32, nulls, def_len)
            })
            .collect();
        Chunk {
            dictionary: plain(dictionary),
            entries: dictionary.len() as u32,
            pages,
            nullable,
            v1,
        }
    }

    fn chunk(&self) -> ColumnChunk<'_> {
        let mut pages = vec![Page::Dictionary {
            buf: &self.dictionary,
            num_values: self.entries,
            encoding: Encoding::Plain,
        }];
        for (buf, num_values, num_nulls, def_len) in &self.pages {
            pages.push(if self.v1 {
                Page::V1 {
                    buf,
                    num_values: *num_values,
                    encoding: Encoding::RleDictionary,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                }
            } else {
                Page::V2 {
                    buf,
                    num_values: *num_values,
                    num_nulls: *num_nulls,
                    encoding: Encoding::RleDictionary,
                    def_levels_byte_len: *def_len,
                    rep_levels_byte_len: 0,
                }
            });
        }
        ColumnChunk::new("a", column(i16::from(self.nullable)), pages)
    }
}

/// Rows of a page: ids cycling below `entries`, some nulls when `nulls`.
fn rows(n: u32, entries: u32, nulls: bool) -> Vec<Option<u32>> {
    (0..n)
        .map(|i| (!nulls || i % 5 != 3).then_some(i * 7 % entries))
        .collect()
}

const DICTIONARY: [i32; 5] = [10, 42, 7, 42, 99];

/// Predicates of each plan kind on `DICTIONARY`.
fn predicates() -> Vec<Predicate> {
    let i = Scalar::Int32;
    vec![
        // No id: no predicate scan.
        Predicate::Eq(i(5)),
        // Every id.
        Predicate::Range(i(0), i(100)),
        // Runs of ids: `Eq(1)`, `Eq(3)`.
        Predicate::Eq(i(42)),
        // One inverted scan `Ne(2)`: an index past the dictionary would match it.
        Predicate::Ne(i(7)),
        Predicate::In(vec![i(10), i(99)]),
    ]
}

#[test]
fn an_index_past_the_dictionary_is_an_error_for_every_plan_and_path() {
    for v1 in [false, true] {
        for nulls in [false, true] {
            // Page 2 (the second data page) holds index 6 (3-bit indices, 5 entries) once, at
            // value 17 of the page.
            let good = rows(40, 5, nulls);
            let mut bad = rows(30, 5, nulls);
            let at = bad
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_some())
                .nth(17)
                .unwrap()
                .0;
            bad[at] = Some(6);
            let chunk = Chunk::new(&DICTIONARY, &[good, bad, rows(9, 5, nulls)], 3, v1);
            for path in paths() {
                let executor = Executor::new(path);
                for predicate in predicates() {
                    let what = format!("v1 {v1} nulls {nulls} {path} {predicate:?}");
                    let e = filter(&chunk.chunk(), &predicate, &executor).expect_err(&what);
                    assert_eq!((e.column.as_str(), e.page), ("a", Some(2)), "{what}: {e}");
                    let text = e.to_string();
                    assert!(text.starts_with("column a, page 2: "), "{what}: {text}");
                    assert!(text.contains("past the dictionary"), "{what}: {text}");
                    assert!(text.contains("index 6"), "{what}: {text}");
                    assert!(matches!(e.kind, QueryErrorKind::Page(_)), "{what}: {e:?}");
                }
                // The gather of the same rows says so too.
                let all = Bitmap::repeat(true, 79);
                let e = gather(&chunk.chunk(), all.view(), &executor).unwrap_err();
                assert_eq!(e.page, Some(2), "{path}: {e}");
                assert!(e.to_string().contains("past the dictionary"), "{path}: {e}");
            }
        }
    }
}

#[test]
fn scattered_ids_are_looked_up_and_an_index_past_the_dictionary_is_reported() {
    // 20 entries alternating 0/1: `Eq(1)` matches 10 single ids, more than MAX_SCANS: the
    // page's ids are decoded and each looked up in the dictionary's answers. Index 31 fits the
    // 5-bit width.
    let dictionary: Vec<i32> = (0..20).map(|i| i % 2).collect();
    let mut ids: Vec<Option<u32>> = (0..100).map(|i| Some(i % 20)).collect();
    ids[64] = Some(31);
    let chunk = Chunk::new(&dictionary, &[ids], 5, false);
    for path in paths() {
        let e = filter(
            &chunk.chunk(),
            &Predicate::Eq(Scalar::Int32(1)),
            &Executor::new(path),
        )
        .unwrap_err();
        assert_eq!(e.page, Some(1), "{path}: {e}");
        assert!(
            e.to_string().contains("index 31 at position 64"),
            "{path}: {e}"
        );
    }
    // Valid ids, some rows null, over two pages (v1 and v2): the rows whose entry is 1.
    for v1 in [true, false] {
        let rows = |start: u32| -> Vec<Option<u32>> {
            (start..start + 100)
                .map(|i| (i % 7 != 3).then_some(i * 7 % 20))
                .collect()
        };
        let pages = [rows(0), rows(100)];
        let chunk = Chunk::new(&dictionary, &pages, 5, v1);
        let want: Vec<usize> = pages
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, id)| id.is_some_and(|id| dictionary[id as usize] == 1))
            .map(|(row, _)| row)
            .collect();
        for path in paths() {
            let filtered = filter(
                &chunk.chunk(),
                &Predicate::Eq(Scalar::Int32(1)),
                &Executor::new(path),
            )
            .unwrap();
            assert_eq!(filtered.rows.len(), 200, "{path}");
            assert_eq!(
                filtered.rows.iter_ones().collect::<Vec<_>>(),
                want,
                "{path}, v1 {v1}"
            );
        }
    }
}

#[test]
fn an_over_wide_bit_width_is_checked_even_for_a_power_of_two_dictionary() {
    // 4 entries, but the writer used 3-bit indices: 4..=7 pass the dictionary.
    let dictionary = [1, 2, 3, 4];
    let mut ids: Vec<Option<u32>> = (0..50).map(|i| Some(i % 4)).collect();
    ids[49] = Some(7);
    let chunk = Chunk::new(&dictionary, &[ids.clone()], 3, false);
    for path in paths() {
        let e = filter(
            &chunk.chunk(),
            &Predicate::Eq(Scalar::Int32(2)),
            &Executor::new(path),
        )
        .unwrap_err();
        assert_eq!(e.page, Some(1), "{path}: {e}");
        assert!(
            e.to_string().contains("index 7 at position 49"),
            "{path}: {e}"
        );
    }
    // With index 3 in its place the same chunk is fine, after one check per page.
    ids[49] = Some(3);
    let chunk = Chunk::new(&dictionary, &[ids.clone()], 3, false);
    let filtered = filter(
        &chunk.chunk(),
        &Predicate::Eq(Scalar::Int32(4)),
        &Executor::new(Path::Fallback),
    )
    .unwrap();
    assert_eq!(filtered.checks, 1);
    assert_eq!(
        filtered.rows.iter_ones().collect::<Vec<_>>(),
        (0..50).filter(|&i| ids[i] == Some(3)).collect::<Vec<_>>()
    );
}

#[test]
fn valid_pages_are_checked_only_when_their_width_can_pass_the_dictionary() {
    let i = Scalar::Int32;
    // 5 entries in 3 bits: one check per data page; 4 entries in 2 bits and 8 in 3: none.
    for (dictionary, width, checks) in [
        (&DICTIONARY[..], 3, 3),
        (&[10, 42, 7, 99][..], 2, 0),
        (&[10, 42, 7, 99, 1, 2, 3, 4][..], 3, 0),
    ] {
        let entries = dictionary.len() as u32;
        let pages = [
            rows(40, entries, true),
            rows(33, entries, true),
            rows(8, entries, true),
        ];
        let chunk = Chunk::new(dictionary, &pages, width, false);
        let all: Vec<Option<u32>> = pages.concat();
        for path in paths() {
            for predicate in [
                Predicate::Eq(i(42)),
                Predicate::Eq(i(5)),
                Predicate::Ne(i(7)),
            ] {
                let what = format!("{entries} entries {path} {predicate:?}");
                let filtered = filter(&chunk.chunk(), &predicate, &Executor::new(path))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(filtered.checks, checks, "{what}");
                assert_eq!(filtered.index_pages, 3, "{what}");
                assert_eq!(filtered.decoded_pages, 0, "{what}");
                let expected: Vec<bool> = all
                    .iter()
                    .map(|r| {
                        r.is_some_and(|id| match &predicate {
                            Predicate::Eq(Scalar::Int32(v)) => dictionary[id as usize] == *v,
                            Predicate::Ne(Scalar::Int32(v)) => dictionary[id as usize] != *v,
                            _ => unreachable!(),
                        })
                    })
                    .collect();
                assert_eq!(filtered.rows.iter().collect::<Vec<_>>(), expected, "{what}");
                // Pages scanned for the predicate: none when no entry matches.
                let scanned = if predicate == Predicate::Eq(i(5)) {
                    0
                } else {
                    3
                };
                assert_eq!(filtered.scanned_pages, scanned, "{what}");
            }
        }
    }
}

#[test]
fn a_page_claiming_more_values_than_its_indices_hold_is_an_error() {
    // A required column: the page's count is its number of values. 4 billion values claimed,
    // 3 held: nothing of the claimed size is allocated, the page is an error.
    let dictionary = plain(&[1, 2, 3]);
    let values = encode_parquet_rle(&[0, 1, 2], 2).unwrap();
    let chunk = ColumnChunk::new(
        "r",
        column(0),
        vec![
            Page::Dictionary {
                buf: &dictionary,
                num_values: 3,
                encoding: Encoding::Plain,
            },
            Page::V2 {
                buf: &values,
                num_values: u32::MAX,
                num_nulls: 0,
                encoding: Encoding::RleDictionary,
                def_levels_byte_len: 0,
                rep_levels_byte_len: 0,
            },
        ],
    );
    for path in paths() {
        for predicate in [
            Predicate::Eq(Scalar::Int32(9)),
            Predicate::Ne(Scalar::Int32(9)),
            Predicate::Eq(Scalar::Int32(2)),
        ] {
            let e = filter(&chunk, &predicate, &Executor::new(path)).unwrap_err();
            assert_eq!((e.column.as_str(), e.page), ("r", Some(1)), "{path}: {e}");
        }
    }
}

/// A v2 page of a required column whose indices stream is `values`, after a dictionary of
/// `dictionary`.
fn raw_chunk<'a>(dictionary: &'a [u8], entries: u32, values: &'a [u8], n: u32) -> ColumnChunk<'a> {
    ColumnChunk::new(
        "w",
        column(0),
        vec![
            Page::Dictionary {
                buf: dictionary,
                num_values: entries,
                encoding: Encoding::Plain,
            },
            Page::V2 {
                buf: values,
                num_values: n,
                num_nulls: 0,
                encoding: Encoding::RleDictionary,
                def_levels_byte_len: 0,
                rep_levels_byte_len: 0,
            },
        ],
    )
}

#[test]
fn an_over_wide_rle_value_past_the_dictionary_is_an_error() {
    // 4 entries, 2-bit indices (no bit-packed value can pass the dictionary: no check scan),
    // but an RLE run of 10 × 7 (one value byte, bits above the width: D5), then a bit-packed
    // group of 8 valid indices.
    let dictionary = plain(&[10, 20, 30, 40]);
    let values = [2, 0x14, 0x07, 0x03, 0b1110_0100, 0b0001_1011];
    let chunk = raw_chunk(&dictionary, 4, &values, 18);
    for path in paths() {
        for predicate in [
            Predicate::Eq(Scalar::Int32(10)),
            Predicate::Ne(Scalar::Int32(10)),
            Predicate::Eq(Scalar::Int32(5)),
            Predicate::Range(Scalar::Int32(0), Scalar::Int32(100)),
        ] {
            let e = filter(&chunk, &predicate, &Executor::new(path)).unwrap_err();
            assert_eq!((e.column.as_str(), e.page), ("w", Some(1)), "{path}: {e}");
            assert!(
                e.to_string()
                    .contains("repeats 7, which does not fit 2 bits"),
                "{path}: {e}"
            );
        }
    }
}

#[test]
fn an_over_wide_rle_value_inside_the_dictionary_is_an_error_in_filter_and_gather() {
    // 6 entries, 2-bit indices: an RLE run of 3 × 5 (over-wide for 2 bits, inside the
    // dictionary; a job reads it as 5, D5, while a scan for id 5 is masked to the width), then
    // 8 bit-packed indices 0..=3 twice. The page layer's codec refuses the run: so do filter
    // and gather, on every path, instead of reading 5 (or not) silently.
    let dictionary = plain(&[10, 20, 30, 40, 50, 60]);
    let values = [2, 0x06, 0x05, 0x03, 0b1110_0100, 0b1110_0100];
    let chunk = raw_chunk(&dictionary, 6, &values, 11);
    for path in paths() {
        let executor = Executor::new(path);
        for predicate in [
            Predicate::Eq(Scalar::Int32(60)),
            Predicate::Ne(Scalar::Int32(60)),
            Predicate::Eq(Scalar::Int32(20)),
        ] {
            let e = filter(&chunk, &predicate, &executor).unwrap_err();
            assert_eq!(e.page, Some(1), "{path}: {e}");
            assert!(
                e.to_string()
                    .contains("repeats 5, which does not fit 2 bits"),
                "{path}: {e}"
            );
        }
        // Row 0 (the run) selected, or only bit-packed rows: the page is refused either way.
        for selected in [vec![0], vec![4, 8]] {
            let mask: Bitmap = (0..11).map(|r| selected.contains(&r)).collect();
            let e = gather(&chunk, mask.view(), &executor).unwrap_err();
            assert_eq!(e.page, Some(1), "{path}: {e}");
            assert!(e.to_string().contains("does not fit 2 bits"), "{path}: {e}");
        }
    }
}
