//! Row masks at every bit offset 0..64, spanning the page boundaries of a chunk (pages of 1 to
//! 64 rows, none starting on a byte boundary of the mask), gathered from a column in every way
//! `gather` reads pages (dictionary indices by a `select` job, PLAIN and BYTE_STREAM_SPLIT
//! values read where selected, PLAIN byte arrays decoded then picked), required and nullable,
//! pages v1 and v2, on every path this build can run; and `filter`'s row bitmaps of the same
//! pages, sliced at every offset, used as masks.

use qpl_rs::parquet::query::{filter, gather, ColumnChunk, Predicate, Scalar};
use qpl_rs::parquet::{Column, Encoding, Page, PhysicalType, Values};
use qpl_rs::{encode_hybrid, encode_parquet_rle, Bitmap, Executor, Path};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

/// Page sizes (rows): 200 rows, the boundaries at 13, 42, 106, 113, 163, 164.
const PAGES: [usize; 7] = [13, 29, 64, 7, 50, 1, 36];
const ROWS: usize = 200;

/// The column's rows: a value (`i * 37 % 23`, so dictionary ids repeat) or a null.
fn rows(nullable: bool) -> Vec<Option<u32>> {
    (0..ROWS as u32)
        .map(|i| (!nullable || i % 6 != 4).then_some(i * 37 % 23))
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Dictionary,
    Plain,
    ByteStreamSplit,
    PlainBytes,
}

impl Kind {
    fn physical_type(self) -> PhysicalType {
        match self {
            Kind::PlainBytes => PhysicalType::ByteArray,
            _ => PhysicalType::Int32,
        }
    }

    fn encoding(self) -> Encoding {
        match self {
            Kind::Dictionary => Encoding::RleDictionary,
            Kind::Plain | Kind::PlainBytes => Encoding::Plain,
            Kind::ByteStreamSplit => Encoding::ByteStreamSplit,
        }
    }

    /// The value of id `v` (the dictionary holds `v * 10` at id `v`).
    fn value(self, v: u32) -> Vec<u8> {
        match self {
            Kind::PlainBytes => format!("s{v}").into_bytes(),
            _ => (v as i32 * 10).to_le_bytes().to_vec(),
        }
    }

    /// A page's values section.
    fn values(self, ids: &[u32]) -> Vec<u8> {
        match self {
            Kind::Dictionary => encode_parquet_rle(ids, 5).unwrap(),
            Kind::Plain => ids.iter().flat_map(|&v| self.value(v)).collect(),
            Kind::ByteStreamSplit => (0..4)
                .flat_map(|k| ids.iter().map(move |&v| self.value(v)[k]))
                .collect(),
            Kind::PlainBytes => ids
                .iter()
                .flat_map(|&v| {
                    let s = self.value(v);
                    let mut out = (s.len() as u32).to_le_bytes().to_vec();
                    out.extend(s);
                    out
                })
                .collect(),
        }
    }
}

/// Page bodies of a chunk of `rows`.
struct Bodies {
    kind: Kind,
    nullable: bool,
    v1: bool,
    dictionary: Vec<u8>,
    pages: Vec<(Vec<u8>, u32, u32, u32)>,
}

impl Bodies {
    fn new(kind: Kind, rows: &[Option<u32>], nullable: bool, v1: bool) -> Bodies {
        let mut start = 0;
        let pages = PAGES
            .iter()
            .map(|&len| {
                let page = &rows[start..start + len];
                start += len;
                let ids: Vec<u32> = page.iter().flatten().copied().collect();
                let mut buf = Vec::new();
                let mut def_len = 0;
                if nullable {
                    let levels: Vec<u32> = page.iter().map(|r| u32::from(r.is_some())).collect();
                    let levels = encode_hybrid(&levels, 1).unwrap();
                    def_len = levels.len() as u32;
                    if v1 {
                        buf.extend(def_len.to_le_bytes());
                    }
                    buf.extend(levels);
                }
                buf.extend(kind.values(&ids));
                let nulls = (len - ids.len()) as u32;
                (buf, len as u32, nulls, def_len)
            })
            .collect();
        Bodies {
            kind,
            nullable,
            v1,
            dictionary: (0..23).flat_map(|v| Kind::Plain.value(v)).collect(),
            pages,
        }
    }

    fn chunk(&self) -> ColumnChunk<'_> {
        let mut pages = Vec::new();
        if self.kind == Kind::Dictionary {
            pages.push(Page::Dictionary {
                buf: &self.dictionary,
                num_values: 23,
                encoding: Encoding::Plain,
            });
        }
        let encoding = self.kind.encoding();
        for (buf, num_values, num_nulls, def_len) in &self.pages {
            pages.push(if self.v1 {
                Page::V1 {
                    buf,
                    num_values: *num_values,
                    encoding,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                }
            } else {
                Page::V2 {
                    buf,
                    num_values: *num_values,
                    num_nulls: *num_nulls,
                    encoding,
                    def_levels_byte_len: *def_len,
                    rep_levels_byte_len: 0,
                }
            });
        }
        let column = Column {
            physical_type: self.kind.physical_type(),
            max_def_level: i16::from(self.nullable),
            max_rep_level: 0,
        };
        ColumnChunk::new("b", column, pages)
    }
}

/// The values `gather` gives for the selected rows, as bytes per value.
fn gathered(values: &Values) -> Vec<Vec<u8>> {
    match values {
        Values::Int32(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        Values::Bytes(v) => (0..v.len()).map(|i| v.get(i).to_vec()).collect(),
        other => panic!("unexpected values {other:?}"),
    }
}

/// A long pseudo-random bitmap to slice masks from (about half the bits set).
fn source_bits() -> Bitmap {
    (0..ROWS as u64 + 64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) & 1 == 1 || i % 9 == 0)
        .collect()
}

#[test]
fn gathers_take_masks_at_every_bit_offset_across_page_boundaries() {
    let source = source_bits();
    for kind in [
        Kind::Dictionary,
        Kind::Plain,
        Kind::ByteStreamSplit,
        Kind::PlainBytes,
    ] {
        for nullable in [false, true] {
            let rows = rows(nullable);
            for v1 in [false, true] {
                let bodies = Bodies::new(kind, &rows, nullable, v1);
                let chunk = bodies.chunk();
                for path in paths() {
                    let executor = Executor::new(path);
                    for offset in 0..64 {
                        let what = format!("{kind:?} nullable {nullable} v1 {v1} {path} @{offset}");
                        let mask = source.slice(offset, ROWS);
                        let got = gather(&chunk, mask, &executor)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        let selected: Vec<Option<u32>> =
                            mask.iter_ones().map(|r| rows[r]).collect();
                        let values: Vec<Vec<u8>> =
                            selected.iter().flatten().map(|&v| kind.value(v)).collect();
                        assert_eq!(gathered(&got.values), values, "{what}");
                        let levels: Vec<i16> = if nullable {
                            selected.iter().map(|r| i16::from(r.is_some())).collect()
                        } else {
                            Vec::new()
                        };
                        assert_eq!(got.def_levels, levels, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn filtered_rows_sliced_at_every_offset_are_masks() {
    // Filter the dictionary column (ids 3..=9, values 30..=90) into rows, put them at every
    // offset behind junk bits, and gather the PLAIN column through the slice.
    let rows = rows(true);
    let a = Bodies::new(Kind::Dictionary, &rows, true, false);
    let b = Bodies::new(Kind::Plain, &rows, true, true);
    let predicate = Predicate::Range(Scalar::Int32(30), Scalar::Int32(90));
    let expected: Vec<bool> = rows
        .iter()
        .map(|r| r.is_some_and(|v| (3..=9).contains(&v)))
        .collect();
    for path in paths() {
        let executor = Executor::new(path);
        let filtered = filter(&a.chunk(), &predicate, &executor).unwrap();
        assert_eq!(filtered.rows.iter().collect::<Vec<_>>(), expected, "{path}");
        assert_eq!(filtered.decoded_pages, 0, "{path}");
        for offset in 0..64 {
            let mut shifted = Bitmap::repeat(true, offset);
            shifted.extend_from_bitmap(filtered.rows.view());
            let mask = shifted.slice(offset, ROWS);
            let got = gather(&b.chunk(), mask, &executor).unwrap();
            let values: Vec<Vec<u8>> = (0..ROWS)
                .filter(|&r| expected[r])
                .map(|r| Kind::Plain.value(rows[r].unwrap()))
                .collect();
            assert_eq!(gathered(&got.values), values, "{path} @{offset}");
        }
    }
}
