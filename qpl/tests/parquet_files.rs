//! Real files: Parquet files written by another implementation (the arrow-rs `parquet` crate,
//! in memory), whose dictionary-encoded data pages are taken apart by hand — the values section
//! of such a page is exactly QPL's `parquet_rle` stream (a bit-width byte, then the
//! RLE/bit-packed hybrid runs) — decoded and scanned by this crate on every path available here,
//! and compared with what the parquet crate itself reads from the same file.

use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::Page;
use parquet::column::reader::get_typed_column_reader;
use parquet::data_type::Int32Type;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use qpl_rs::{
    decode, scan, scan_indices, Comparison, Executor, Flags, Job, Operation, OutBitWidth, Parser,
    Path, Stream,
};

/// Every path that can run here (QPL's software path where QPL is linked).
fn paths() -> Vec<Path> {
    let paths = Path::available();
    assert_eq!(paths.contains(&Path::Software), qpl_rs::QPL_LINKED);
    paths
}

/// Deterministic xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The `id`th distinct column value: far from `id` itself, so that a page decoded to raw
/// dictionary indices (or mapped through the wrong dictionary) cannot pass by accident.
fn distinct_value(id: u64) -> i32 {
    (id as i32).wrapping_mul(-7919).wrapping_add(123_456)
}

/// `n` values from `distinct` distinct ones, skewed (low ids far more frequent, as a
/// Zipf-like column) and in runs (1..=40 long, sometimes 200..=700), so that the writer
/// produces both RLE runs and bit-packed groups. Every distinct value occurs at least once.
fn skewed_values(n: usize, distinct: u64, seed: u64) -> Vec<i32> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(n);
    // Every value once, in a shuffled-ish order, so the dictionary reaches full size.
    let mut ids: Vec<u64> = (0..distinct).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.below(i as u64 + 1) as usize);
    }
    out.extend(ids.iter().map(|&id| distinct_value(id)));
    while out.len() < n {
        // The minimum of two draws skews towards 0; then sometimes narrow further.
        let mut id = rng.below(distinct).min(rng.below(distinct));
        if rng.below(3) == 0 {
            id = rng.below(id + 1);
        }
        let run = if rng.below(16) == 0 {
            200 + rng.below(501)
        } else {
            1 + rng.below(40)
        } as usize;
        let run = run.min(n - out.len());
        out.extend(std::iter::repeat_n(distinct_value(id), run));
    }
    out
}

/// One-column file (`required int32 v` or `optional int32 v`), dictionary encoding on, small
/// data pages, written in memory by the parquet crate.
fn write_file(
    values: &[i32],
    def_levels: Option<&[i16]>,
    version: WriterVersion,
    rows_per_page: usize,
) -> Bytes {
    let repetition = if def_levels.is_some() {
        "optional"
    } else {
        "required"
    };
    let schema =
        parse_message_type(&format!("message schema {{ {repetition} int32 v; }}")).expect("schema");
    let props = WriterProperties::builder()
        .set_writer_version(version)
        .set_dictionary_enabled(true)
        .set_data_page_size_limit(4096)
        .set_data_page_row_count_limit(rows_per_page)
        .set_write_batch_size(512)
        .build();
    let mut file = Vec::new();
    let mut writer =
        SerializedFileWriter::new(&mut file, Arc::new(schema), Arc::new(props)).expect("writer");
    let mut row_group = writer.next_row_group().expect("row group");
    let mut column = row_group
        .next_column()
        .expect("column")
        .expect("one column");
    column
        .typed::<Int32Type>()
        .write_batch(values, def_levels, None)
        .expect("write_batch");
    column.close().expect("close column");
    row_group.close().expect("close row group");
    writer.close().expect("close file");
    Bytes::from(file)
}

/// The column as the parquet crate reads it (all row groups): `Some(v)` per row, `None` for
/// nulls.
fn parquet_read(file: &Bytes) -> Vec<Option<i32>> {
    let reader = SerializedFileReader::new(file.clone()).expect("reader");
    let max_def = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .column(0)
        .max_def_level();
    let mut out = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let row_group = reader.get_row_group(rg).expect("row group");
        let mut column =
            get_typed_column_reader::<Int32Type>(row_group.get_column_reader(0).expect("column"));
        let (mut defs, mut values) = (Vec::new(), Vec::new());
        loop {
            let (records, _, _) = column
                .read_records(4096, Some(&mut defs), None, &mut values)
                .expect("read_records");
            if records == 0 {
                break;
            }
        }
        if max_def == 0 {
            out.extend(values.into_iter().map(Some));
        } else {
            assert_eq!(defs.len(), row_group.metadata().num_rows() as usize);
            let mut values = values.into_iter();
            out.extend(defs.iter().map(|&d| {
                (d == max_def).then(|| values.next().expect("a value per non-null level"))
            }));
            assert!(values.next().is_none(), "more values than non-null levels");
        }
    }
    out
}

/// What a data page holds, as far as these tests are concerned.
struct DataPage {
    /// `DataPage` (v1) or `DataPageV2`.
    v2: bool,
    /// Levels (nulls included) in the page.
    num_values: u32,
    /// v2 only: the header's null count.
    num_nulls: Option<u32>,
    /// The value encoding from the page header.
    encoding: Encoding,
    /// The definition levels, as raw bytes: v1 with its 4-byte length, v2 without.
    def_levels: Bytes,
    /// The values section: the bit-width byte, then the hybrid runs.
    values: Bytes,
}

/// A column chunk's pages, as the parquet crate's page reader yields them.
struct Chunk {
    /// The dictionary page's PLAIN values.
    dictionary: Vec<i32>,
    dictionary_encoding: Encoding,
    pages: Vec<DataPage>,
}

/// Reads every column chunk's raw pages and splits each data page into levels and values.
/// `nullable` says whether a v1 page starts with definition levels (the file has no
/// repetition levels).
fn raw_pages(file: &Bytes, nullable: bool) -> Vec<Chunk> {
    let reader = SerializedFileReader::new(file.clone()).expect("reader");
    let mut chunks = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let row_group = reader.get_row_group(rg).expect("row group");
        let mut page_reader = row_group.get_column_page_reader(0).expect("page reader");
        let mut dictionary = None;
        let mut pages = Vec::new();
        while let Some(page) = page_reader.get_next_page().expect("page") {
            match page {
                Page::DictionaryPage {
                    buf,
                    num_values,
                    encoding,
                    ..
                } => {
                    assert!(dictionary.is_none(), "one dictionary page per chunk");
                    assert!(pages.is_empty(), "the dictionary page comes first");
                    assert_eq!(buf.len(), num_values as usize * 4, "PLAIN int32 dictionary");
                    let values: Vec<i32> = buf
                        .chunks_exact(4)
                        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                        .collect();
                    dictionary = Some((values, encoding));
                }
                Page::DataPage {
                    buf,
                    num_values,
                    encoding,
                    def_level_encoding,
                    ..
                } => {
                    let (def_levels, values) = if nullable {
                        assert_eq!(def_level_encoding, Encoding::RLE);
                        let len = u32::from_le_bytes(buf[..4].try_into().unwrap()) as usize;
                        (buf.slice(..4 + len), buf.slice(4 + len..))
                    } else {
                        (Bytes::new(), buf)
                    };
                    pages.push(DataPage {
                        v2: false,
                        num_values,
                        num_nulls: None,
                        encoding,
                        def_levels,
                        values,
                    });
                }
                Page::DataPageV2 {
                    buf,
                    num_values,
                    encoding,
                    num_nulls,
                    def_levels_byte_len,
                    rep_levels_byte_len,
                    is_compressed,
                    ..
                } => {
                    assert!(!is_compressed, "written uncompressed");
                    assert_eq!(rep_levels_byte_len, 0, "flat column: no repetition levels");
                    let rep = rep_levels_byte_len as usize;
                    let def = def_levels_byte_len as usize;
                    assert_eq!(nullable, def > 0);
                    pages.push(DataPage {
                        v2: true,
                        num_values,
                        num_nulls: Some(num_nulls),
                        encoding,
                        def_levels: buf.slice(rep..rep + def),
                        values: buf.slice(rep + def..),
                    });
                }
            }
        }
        let (dictionary, dictionary_encoding) = dictionary.expect("a dictionary page");
        chunks.push(Chunk {
            dictionary,
            dictionary_encoding,
            pages,
        });
    }
    chunks
}

/// The first bytes of a page, in hex, for failure messages.
fn hex(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(48).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 48 {
        format!("{shown}… ({} bytes)", bytes.len())
    } else {
        shown
    }
}

/// Decodes `n` dictionary indices from a values section on every path; they must agree and
/// fit the dictionary. Returns them.
///
/// The indices come from an extract job with `FORCE_ARRAY_OUTPUT` (one 32-bit element per
/// value, whatever the width). [`qpl_rs::decode`] must give the same values at every width,
/// width 1 included (where a widened 1-bit output would otherwise be an index list).
fn decode_indices(section: &[u8], n: u32, dictionary_len: usize, what: &str) -> Vec<u32> {
    let stream = Stream::parquet_rle(section);
    let forced = Job {
        parser: Parser::PARQUET_RLE,
        num_input_elements: n,
        param_low: 0,
        param_high: n - 1,
        out_bit_width: OutBitWidth::W32,
        flags: Flags(Flags::OMIT_CHECKSUMS.0 | Flags::FORCE_ARRAY_OUTPUT.0),
        ..Job::new(Operation::Extract)
    };
    let mut first: Option<Vec<u32>> = None;
    for path in paths() {
        let mut dst = vec![0u8; n as usize * 4];
        let output = Executor::new(path)
            .run(&forced, section, None, &mut dst)
            .unwrap_or_else(|e| {
                panic!(
                    "{what}: forced-array extract on {path}: {e}; page {}",
                    hex(section)
                )
            });
        assert_ne!(output.path, Path::Auto);
        if path != Path::Auto {
            assert_eq!(output.path, path, "{what}");
        }
        assert_eq!(output.completion.total_out, n * 4, "{what} on {path}");
        let ids: Vec<u32> = dst
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();

        let (decoded, _) = decode::<u32>(path, &stream, n).unwrap_or_else(|e| {
            panic!(
                "{what}: decode on {path} failed: {e}; page {}",
                hex(section)
            )
        });
        assert!(
            decoded == ids,
            "{what}: decode::<u32> on {path} differs from the forced-array extract; page {}",
            hex(section)
        );

        match &first {
            None => first = Some(ids),
            Some(f) => assert!(
                *f == ids,
                "{what}: {path} disagrees with {}; page {}",
                paths()[0],
                hex(section)
            ),
        }
    }
    let ids = first.expect("at least one path");
    if let Some(&bad) = ids.iter().find(|&&id| id as usize >= dictionary_len) {
        panic!(
            "{what}: index {bad} outside the {dictionary_len}-entry dictionary; page {}",
            hex(section)
        );
    }
    ids
}

/// Positions of the set bits of an LSB-first bit vector of `n` bits.
fn set_bits(bits: &[u8], n: usize) -> Vec<u32> {
    assert_eq!(bits.len(), n.div_ceil(8));
    (0..n)
        .filter(|&i| bits[i / 8] >> (i % 8) & 1 == 1)
        .map(|i| i as u32)
        .collect()
}

/// Scans a values section for `x == id` on every path (bit vector, `sum_value` and index
/// list) and compares with the rows where the parquet crate read dictionary entry `id`.
/// Returns that number of rows.
///
/// The parquet crate sizes each page's width by the dictionary *as it was when the page was
/// flushed*: on an early page, an id added to the dictionary later may not fit. Such a page
/// cannot hold the id, and `scan` must match nothing there (QPL's own rule would mask the id to
/// the width, §5.1, and match another entry).
fn check_scan_eq(
    section: &[u8],
    id: u32,
    dictionary: &[i32],
    expected: &[Option<i32>],
    what: &str,
) -> u64 {
    let rows_holding = |entry: i32| -> Vec<u32> {
        (0..expected.len())
            .filter(|&i| expected[i] == Some(entry))
            .map(|i| i as u32)
            .collect()
    };
    let n = expected.len();
    let width = u32::from(section[0]);
    let want = rows_holding(dictionary[id as usize]);
    let stream = Stream::parquet_rle(section);
    for path in paths() {
        let (bits, output) = scan(path, &stream, n as u32, Comparison::Eq(id))
            .unwrap_or_else(|e| panic!("{what}: scan on {path}: {e}; page {}", hex(section)));
        let got = set_bits(&bits, n);
        assert!(
            got == want,
            "{what}: scan_eq({id}) on {path} ({width}-bit page) matched {} positions, \
             expected {}; page {}",
            got.len(),
            want.len(),
            hex(section)
        );
        assert_eq!(
            output.completion.sum_value,
            want.len() as u32,
            "{what} on {path}"
        );
        let (indices, _) = scan_indices(path, &stream, n as u32, Comparison::Eq(id))
            .unwrap_or_else(|e| panic!("{what}: scan_indices on {path}: {e}"));
        assert_eq!(indices, want, "{what}: scan_indices on {path}");
    }
    want.len() as u64
}

/// Width byte a dictionary of `len` entries needs at most (the writer uses the dictionary's
/// size when the page is flushed, which may be smaller than the final size).
fn max_width(len: usize) -> u8 {
    (usize::BITS - len.saturating_sub(1).leading_zeros()) as u8
}

/// 1. A required INT32 column from small dictionaries, several pages, pages v1 and v2: every
///    page's values section decodes (on every path) to indices that, through the dictionary
///    page, give exactly what the parquet crate reads; `scan(Eq(id))` finds exactly the rows
///    holding dictionary entry `id`.
///
///    Widths 1 (2 entries), 5 (17), 9 (300), and 12 then 13 (5000 entries: the parquet crate
///    gives each page the width of the dictionary as it was when the page was flushed, so the
///    first page, written before entry 4096 existed, is 12 bits wide). See [`decode_indices`]
///    for `decode` on width-1 pages and [`check_scan_eq`] for ids wider than their page.
#[test]
fn required_dictionary_pages_match_parquet() {
    const N: usize = 100_000;
    for (i, distinct) in [2u64, 17, 300, 5000].into_iter().enumerate() {
        let values = skewed_values(N, distinct, 0x9E37_79B9 + i as u64);
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            let what = format!("{distinct} distinct, {version:?}");
            let file = write_file(&values, None, version, 8192);
            let expected = parquet_read(&file);
            assert_eq!(expected.len(), N, "{what}");
            assert!(
                expected.iter().zip(&values).all(|(e, v)| *e == Some(*v)),
                "{what}: the parquet crate reads back what it wrote"
            );

            let chunks = raw_pages(&file, false);
            let mut row = 0usize;
            let mut widths = Vec::new();
            let mut scanned = 0u64;
            let mut masked_ids = 0;
            for chunk in &chunks {
                assert_eq!(chunk.dictionary.len() as u64, distinct, "{what}");
                assert!(
                    matches!(
                        chunk.dictionary_encoding,
                        Encoding::PLAIN | Encoding::PLAIN_DICTIONARY
                    ),
                    "{what}: dictionary page encoding {:?}",
                    chunk.dictionary_encoding
                );
                assert!(chunk.pages.len() >= 4, "{what}: several data pages");
                for (p, page) in chunk.pages.iter().enumerate() {
                    let what = format!("{what}, page {p}");
                    assert_eq!(page.v2, version == WriterVersion::PARQUET_2_0, "{what}");
                    assert!(
                        matches!(
                            page.encoding,
                            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                        ),
                        "{what}: encoding {:?}",
                        page.encoding
                    );
                    assert!(page.def_levels.is_empty(), "{what}");
                    assert_eq!(page.num_nulls.unwrap_or(0), 0, "{what}");
                    let width = page.values[0];
                    assert!(
                        width <= max_width(chunk.dictionary.len()),
                        "{what}: width {width}"
                    );
                    widths.push(width);

                    let n = page.num_values as usize;
                    let want = &expected[row..row + n];
                    let ids = decode_indices(&page.values, n as u32, chunk.dictionary.len(), &what);
                    let got: Vec<Option<i32>> = ids
                        .iter()
                        .map(|&id| Some(chunk.dictionary[id as usize]))
                        .collect();
                    assert!(got == want, "{what}: page {}", hex(&page.values));

                    // The first, a middle and the last dictionary entry.
                    let last = chunk.dictionary.len() as u32 - 1;
                    for id in [0, last / 2, last] {
                        if u32::from(width) < 32 && id >> width != 0 {
                            masked_ids += 1;
                        }
                        scanned += check_scan_eq(&page.values, id, &chunk.dictionary, want, &what);
                    }
                    row += n;
                }
            }
            assert_eq!(row, N, "{what}: the pages cover the column");
            assert!(scanned > 0, "{what}: some scan matched");
            widths.dedup();
            println!(
                "{what}: {} data pages ({:?}, dictionary {:?}), widths {widths:?}, \
                 {masked_ids} scans of an id wider than its page",
                chunks.iter().map(|c| c.pages.len()).sum::<usize>(),
                chunks[0].pages[0].encoding,
                chunks[0].dictionary_encoding,
            );
        }
    }
}

/// Nulls in runs (about a third of the rows) over skewed values from 40 distinct ones.
fn nullable_column(n: usize, seed: u64) -> (Vec<Option<i32>>, Vec<i16>, Vec<i32>) {
    let pool = skewed_values(n, 40, seed);
    let mut rng = Rng(seed.wrapping_mul(31) | 1);
    let mut rows = Vec::with_capacity(n);
    while rows.len() < n {
        let run = (1 + rng.below(30) as usize).min(n - rows.len());
        let null = rng.below(3) == 0;
        for _ in 0..run {
            let i = rows.len();
            rows.push((!null).then_some(pool[i]));
        }
    }
    let defs = rows.iter().map(|r| i16::from(r.is_some())).collect();
    let values = rows.iter().flatten().copied().collect();
    (rows, defs, values)
}

/// 2. An OPTIONAL INT32 column with nulls: each page split into definition levels (v1: 4-byte
///    length, then the hybrid; v2: the header's byte length) and values section; the levels
///    decoded with `qpl_fallback::decode_hybrid` (width 1), as many indices as non-null levels
///    decoded from the values section, and the rebuilt `Option<i32>` rows equal the parquet
///    crate's read.
#[test]
fn optional_column_with_nulls_matches_parquet() {
    const N: usize = 60_000;
    let (rows, defs, values) = nullable_column(N, 0xC0FF_EE11);
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let what = format!("optional, {version:?}");
        let file = write_file(&values, Some(&defs), version, 8192);
        let expected = parquet_read(&file);
        assert!(
            expected == rows,
            "{what}: the parquet crate reads back what it wrote"
        );

        let mut rebuilt: Vec<Option<i32>> = Vec::with_capacity(N);
        let mut pages = 0;
        for chunk in raw_pages(&file, true) {
            for (p, page) in chunk.pages.iter().enumerate() {
                let what = format!("{what}, page {p}");
                let hybrid = if page.v2 {
                    &page.def_levels[..]
                } else {
                    let len = u32::from_le_bytes(page.def_levels[..4].try_into().unwrap());
                    assert_eq!(len as usize, page.def_levels.len() - 4, "{what}");
                    &page.def_levels[4..]
                };
                let mut levels = vec![0u32; page.num_values as usize];
                qpl_fallback::decode_hybrid(hybrid, 1, &mut levels).unwrap_or_else(|e| {
                    panic!("{what}: def levels: {e:?}; levels {}", hex(hybrid))
                });
                assert!(levels.iter().all(|&l| l <= 1), "{what}");
                let non_null = levels.iter().filter(|&&l| l == 1).count();
                if let Some(nulls) = page.num_nulls {
                    assert_eq!(nulls as usize, levels.len() - non_null, "{what}: num_nulls");
                }
                let ids = if non_null == 0 {
                    Vec::new()
                } else {
                    decode_indices(&page.values, non_null as u32, chunk.dictionary.len(), &what)
                };
                let mut ids = ids.into_iter();
                rebuilt.extend(
                    levels
                        .iter()
                        .map(|&l| (l == 1).then(|| chunk.dictionary[ids.next().unwrap() as usize])),
                );
                pages += 1;
            }
        }
        assert!(pages >= 4, "{what}: several pages");
        assert_eq!(rebuilt.len(), N, "{what}");
        if let Some(i) = (0..N).find(|&i| rebuilt[i] != expected[i]) {
            panic!(
                "{what}: row {i}: rebuilt {:?}, parquet read {:?}",
                rebuilt[i], expected[i]
            );
        }
        println!("{what}: {pages} data pages");
    }
}

/// 3. A column with a single distinct value (a 1-entry dictionary): whatever bit width the
///    writer puts in the values section (0 here: the parquet crate writes
///    `num_required_bits(entries - 1)`), every path decodes all zeros and `scan(Eq(0))`
///    matches every row.
#[test]
fn single_value_dictionary_decodes_to_zeros() {
    const N: usize = 20_000;
    let values = vec![-42i32; N];
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let what = format!("single value, {version:?}");
        let file = write_file(&values, None, version, 8192);
        let expected = parquet_read(&file);
        assert!(expected.iter().all(|v| *v == Some(-42)) && expected.len() == N);
        let mut row = 0;
        let mut widths = Vec::new();
        for chunk in raw_pages(&file, false) {
            assert_eq!(chunk.dictionary, [-42]);
            for (p, page) in chunk.pages.iter().enumerate() {
                let what = format!("{what}, page {p}");
                let width = page.values[0];
                assert!(
                    width <= 1,
                    "{what}: width {width}; page {}",
                    hex(&page.values)
                );
                widths.push((width, hex(&page.values)));
                let n = page.num_values as usize;
                let ids = decode_indices(&page.values, n as u32, 1, &what);
                assert!(ids.iter().all(|&id| id == 0), "{what}");
                let scanned =
                    check_scan_eq(&page.values, 0, &[-42], &expected[row..row + n], &what);
                assert_eq!(scanned, n as u64, "{what}");
                row += n;
            }
        }
        assert_eq!(row, N, "{what}");
        widths.dedup();
        println!("{what}: (width, values section) per page: {widths:?}");
    }
}
