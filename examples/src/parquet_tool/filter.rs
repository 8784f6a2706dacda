//! `qpl-parquet filter FILE --column NAME --eq VALUE [--select COLUMN]`: counts the rows whose
//! column equals VALUE.
//!
//! On a dictionary-encoded data page it never decodes a value: it finds the dictionary ids
//! whose entry equals VALUE (once per chunk, from the dictionary page), then scans the page's
//! indices stream (the bit-width byte and the RLE/bit-packed hybrid runs: exactly QPL's
//! `parquet_rle` stream) with [`qpl_rs::scan`] and `Comparison::Eq(id)` on the chosen [`Path`]
//! (the accelerator when there is one). A page whose dictionary holds no such entry is not
//! even scanned. Other pages (PLAIN, DELTA_*, BYTE_STREAM_SPLIT, a writer's fallback after its
//! dictionary grew too big) are decoded by the page layer and compared.
//!
//! Equality is the type's: integers and byte strings compare exactly, floats as IEEE numbers
//! (`0` matches `-0.0`, `NaN` matches nothing), FIXED_LEN_BYTE_ARRAY values with VALUE's UTF-8
//! bytes (a VALUE of another length matches nothing). Nulls never match. Repeated (list)
//! columns are refused: a row has several values there, and "equals" would need a rule.
//!
//! With `--select COLUMN`, the matching rows' values of COLUMN are gathered too, by
//! [`qpl_rs::parquet::query::gather`] with the matching rows as a [`Bitmap`]: pages with no
//! matching row are skipped, dictionary pages give only the selected indices (a `select` job on
//! the chosen path), PLAIN and BYTE_STREAM_SPLIT numbers are read only where selected, other
//! pages are decoded and the matching rows picked.

use std::fs::File;
use std::path::Path as FilePath;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use parquet::column::page::Page as CratePage;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::{ColumnDescPtr, SchemaDescriptor};
use qpl_rs::parquet::codecs::hybrid::HybridDecoder;
use qpl_rs::parquet::codecs::ValueDecoder;
use qpl_rs::parquet::query::{self, ColumnChunk};
use qpl_rs::parquet::{level_width, ChunkDecoder, Column, ColumnData, PhysicalType, Values};
use qpl_rs::{scan, Bitmap, Comparison, Executor, Path, Stream};

use super::bench::{catch, say, to_qpl_page};
use super::verify::column_of;

/// How many selected values `run` prints.
const SAMPLE: usize = 10;

/// What a filter found.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterResult {
    /// The filtered column's dotted path.
    pub column: String,
    /// Rows in the file.
    pub rows: u64,
    /// Rows whose column equals VALUE.
    pub matches: u64,
    /// The path that ran the index scans: the accelerator (or QPL's software path) when any
    /// scan ran there, else [`Path::Fallback`] (also when no page was scanned).
    pub path: Path,
    /// Data pages answered from their dictionary indices (scanned, or skipped because the
    /// dictionary holds no matching entry).
    pub index_pages: usize,
    /// Of those, the pages actually scanned.
    pub scanned_pages: usize,
    /// Data pages decoded and compared value by value.
    pub decoded_pages: usize,
    /// `--select`: the selected column's values in the matching rows.
    pub selected: Option<Selected>,
    /// Wall time of reading, scanning and decoding (the file already open).
    pub elapsed: Duration,
}

/// The values of the `--select` column in the matching rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    /// The selected column's dotted path.
    pub column: String,
    /// Matching rows where it is not null.
    pub values: u64,
    /// Matching rows where it is null.
    pub nulls: u64,
    /// The first few values, formatted.
    pub sample: Vec<String>,
}

/// Runs the command: prints the count, the path, the pages and the time (and with `--select`
/// the selected values); exit 0, or 2 on any error (the message on stderr).
pub fn run(file: &FilePath, column: &str, eq: &str, select: Option<&str>, path: Path) -> ExitCode {
    if let Err(why) = path.availability() {
        eprintln!("qpl-parquet filter: the {path} path cannot run here: {why}");
        return ExitCode::from(2);
    }
    match catch(|| filter(file, column, eq, select, path)) {
        Ok(result) => {
            say!(
                "{} == {eq:?}: {} of {} rows",
                result.column,
                result.matches,
                result.rows
            );
            say!(
                "path {}; {} data pages answered from dictionary indices ({} scanned), {} decoded and compared; {:.3} ms",
                result.path.name(),
                result.index_pages,
                result.scanned_pages,
                result.decoded_pages,
                result.elapsed.as_secs_f64() * 1e3
            );
            if let Some(selected) = &result.selected {
                let more = if selected.values > selected.sample.len() as u64 {
                    ", …"
                } else {
                    ""
                };
                say!(
                    "{}: {} values, {} nulls in the matching rows: [{}{more}]",
                    selected.column,
                    selected.values,
                    selected.nulls,
                    selected.sample.join(", ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("qpl-parquet filter: {}: {e}", file.display());
            ExitCode::from(2)
        }
    }
}

/// Counts the rows of `file` whose `column` equals `eq` (see the module docs), running the
/// dictionary-index scans on `path`; with `select`, gathers that column's values in those
/// rows.
pub fn filter(
    file: &FilePath,
    column: &str,
    eq: &str,
    select: Option<&str>,
    path: Path,
) -> Result<FilterResult, String> {
    let reader = File::open(file)
        .map_err(|e| e.to_string())
        .and_then(|f| SerializedFileReader::new(f).map_err(|e| e.to_string()))?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let (index, descr) = find_leaf(&schema, column)?;
    let target = Target::parse(&column_of(&descr)?, eq)?;
    let selected_leaf = select.map(|name| find_leaf(&schema, name)).transpose()?;

    let start = Instant::now();
    let mut result = FilterResult {
        column: descr.path().string(),
        rows: 0,
        matches: 0,
        path: Path::Fallback,
        index_pages: 0,
        scanned_pages: 0,
        decoded_pages: 0,
        selected: selected_leaf.as_ref().map(|(_, d)| Selected {
            column: d.path().string(),
            values: 0,
            nulls: 0,
            sample: Vec::new(),
        }),
        elapsed: Duration::ZERO,
    };
    for rg in 0..reader.num_row_groups() {
        let row_group = reader
            .get_row_group(rg)
            .map_err(|e| format!("row group {rg}: {e}"))?;
        let pages = read_pages(row_group.as_ref(), index, rg, &result.column)?;
        let mut rows = selected_leaf.is_some().then(Bitmap::new);
        let mut chunk = ChunkFilter {
            column: column_of(&descr)?,
            rows_left: u64::try_from(row_group.metadata().num_rows()).unwrap_or(0),
            target: &target,
            path,
            result: &mut result,
            rows: rows.as_mut(),
        };
        chunk
            .run(&pages)
            .map_err(|e| format!("row group {rg}, column {}: {e}", descr.path().string()))?;
        if let (Some((select_index, select_descr)), Some(rows), Some(selected)) =
            (&selected_leaf, rows, result.selected.as_mut())
        {
            let pages = read_pages(
                row_group.as_ref(),
                *select_index,
                rg,
                &select_descr.path().string(),
            )?;
            let name = select_descr.path().string();
            gather(
                &column_of(select_descr)?,
                &name,
                &pages,
                &rows,
                path,
                selected,
            )
            .map_err(|e| format!("row group {rg}, {e}"))?;
        }
    }
    result.elapsed = start.elapsed();
    Ok(result)
}

/// The leaf called `name`: its dotted path, or a top-level field with a single leaf.
/// Repeated leaves are refused.
fn find_leaf(schema: &SchemaDescriptor, name: &str) -> Result<(usize, ColumnDescPtr), String> {
    let leaves: Vec<usize> = (0..schema.num_columns()).collect();
    let by_path: Vec<usize> = leaves
        .iter()
        .copied()
        .filter(|&i| schema.column(i).path().string() == name)
        .collect();
    let found = if by_path.is_empty() {
        leaves
            .iter()
            .copied()
            .filter(|&i| schema.column(i).path().parts()[0] == name)
            .collect()
    } else {
        by_path
    };
    let names = || {
        leaves
            .iter()
            .map(|&i| schema.column(i).path().string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match found[..] {
        [i] => {
            let descr = schema.column(i);
            if descr.max_rep_level() > 0 {
                return Err(format!(
                    "column {name} is repeated (a list): filter takes columns with one value per row"
                ));
            }
            Ok((i, descr))
        }
        [] => Err(format!("no column {name} (the file has: {})", names())),
        _ => Err(format!(
            "{name} names several leaves (the file has: {})",
            names()
        )),
    }
}

/// The pages of one column chunk, decompressed.
fn read_pages(
    row_group: &dyn parquet::file::reader::RowGroupReader,
    index: usize,
    rg: usize,
    name: &str,
) -> Result<Vec<CratePage>, String> {
    let mut reader = row_group
        .get_column_page_reader(index)
        .map_err(|e| format!("row group {rg}, column {name}: {e}"))?;
    let mut pages = Vec::new();
    while let Some(page) = reader
        .get_next_page()
        .map_err(|e| format!("row group {rg}, column {name}: {e}"))?
    {
        pages.push(page);
    }
    Ok(pages)
}

/// VALUE, parsed for the column's physical type.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    Boolean(bool),
    Int32(i32),
    Int64(i64),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
}

impl Target {
    fn parse(column: &Column, value: &str) -> Result<Target, String> {
        let bad = |what: &str| format!("--eq {value:?} is not {what}");
        Ok(match column.physical_type {
            PhysicalType::Boolean => Target::Boolean(match value {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(bad("a boolean (true, false)")),
            }),
            PhysicalType::Int32 => Target::Int32(value.parse().map_err(|_| bad("an INT32"))?),
            PhysicalType::Int64 => Target::Int64(value.parse().map_err(|_| bad("an INT64"))?),
            PhysicalType::Float => Target::Float(value.parse().map_err(|_| bad("a FLOAT"))?),
            PhysicalType::Double => Target::Double(value.parse().map_err(|_| bad("a DOUBLE"))?),
            PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => {
                Target::Bytes(value.as_bytes().to_vec())
            }
            PhysicalType::Int96 => {
                return Err("filtering an INT96 column is not supported".to_string())
            }
        })
    }

    /// For each of `values`, whether it equals the target.
    fn matches(&self, values: &Values) -> Vec<bool> {
        match (values, self) {
            (Values::Boolean(v), Target::Boolean(t)) => v.iter().map(|x| x == t).collect(),
            (Values::Int32(v), Target::Int32(t)) => v.iter().map(|x| x == t).collect(),
            (Values::Int64(v), Target::Int64(t)) => v.iter().map(|x| x == t).collect(),
            (Values::Float(v), Target::Float(t)) => v.iter().map(|x| x == t).collect(),
            (Values::Double(v), Target::Double(t)) => v.iter().map(|x| x == t).collect(),
            (Values::Bytes(v), Target::Bytes(t)) => v.iter().map(|x| x == t.as_slice()).collect(),
            // `Target::parse` made the target from the column's type.
            _ => vec![false; values.len()],
        }
    }
}

/// One column chunk of the filtered column.
struct ChunkFilter<'a> {
    column: Column,
    /// Rows of the row group (from the footer) not yet in a page: a non-repeated column has
    /// one level per row, so no page may claim more (nothing is sized by a larger count).
    rows_left: u64,
    target: &'a Target,
    path: Path,
    result: &'a mut FilterResult,
    /// With `--select`: one bit per row of the chunk, whether it matches.
    rows: Option<&'a mut Bitmap>,
}

impl ChunkFilter<'_> {
    fn run(&mut self, pages: &[CratePage]) -> Result<(), String> {
        let mut decoder = ChunkDecoder::new(self.column, self.path);
        let mut data = ColumnData::new(&self.column);
        // Dictionary ids whose entry equals the target (`None` until the dictionary page).
        let mut ids: Option<Vec<u32>> = None;
        for (i, page) in pages.iter().enumerate() {
            let fail = |e: String| format!("page {i}: {e}");
            let qpl_page = to_qpl_page(page).map_err(fail)?;
            if let CratePage::DictionaryPage { .. } = page {
                data.clear();
                decoder
                    .decode_page(&qpl_page, &mut data)
                    .map_err(|e| fail(e.to_string()))?;
                let dictionary = decoder
                    .dictionary()
                    .ok_or_else(|| fail("the dictionary page gave no dictionary".to_string()))?;
                ids = Some(
                    self.target
                        .matches(dictionary)
                        .iter()
                        .enumerate()
                        .filter(|(_, &m)| m)
                        .map(|(id, _)| id as u32)
                        .collect(),
                );
                continue;
            }
            let levels = u64::from(page.num_values());
            if levels > self.rows_left {
                return Err(fail(format!(
                    "the page claims {levels} values, but the row group has {} rows left",
                    self.rows_left
                )));
            }
            self.rows_left -= levels;
            self.result.rows += levels;
            let indexed = match (
                &ids,
                index_section(page, &self.column, self.rows.is_some()).map_err(fail)?,
            ) {
                (Some(ids), Some(section)) => Some((ids, section)),
                _ => None,
            };
            match indexed {
                Some((ids, section)) => self.scan_page(&section, ids).map_err(fail)?,
                None => {
                    data.clear();
                    decoder
                        .decode_page(&qpl_page, &mut data)
                        .map_err(|e| fail(e.to_string()))?;
                    self.compare_page(&data);
                }
            }
        }
        if self.rows_left > 0 {
            return Err(format!(
                "the pages hold {} rows fewer than the row group's",
                self.rows_left
            ));
        }
        Ok(())
    }

    /// Counts a dictionary-encoded page's matches by scanning its indices for each id.
    fn scan_page(&mut self, section: &IndexSection<'_>, ids: &[u32]) -> Result<(), String> {
        self.result.index_pages += 1;
        let n = section.values;
        let mut mask = vec![false; if self.rows.is_some() { n as usize } else { 0 }];
        if n > 0 && !ids.is_empty() {
            self.result.scanned_pages += 1;
            let stream = Stream::parquet_rle(section.indices);
            for &id in ids {
                let (bits, output) = scan(self.path, &stream, n, Comparison::Eq(id))
                    .map_err(|e| format!("scan for dictionary id {id}: {e}"))?;
                self.result.matches += u64::from(output.completion.sum_value);
                if output.path != Path::Fallback {
                    self.result.path = output.path;
                }
                for (k, flag) in mask.iter_mut().enumerate() {
                    *flag |= bits.get(k / 8).is_some_and(|b| b >> (k % 8) & 1 == 1);
                }
            }
        }
        if let Some(rows) = self.rows.as_deref_mut() {
            spread(
                rows,
                section.def_levels.as_deref(),
                &mask,
                self.column.max_def_level,
            );
        }
        Ok(())
    }

    /// Counts a decoded page's matches.
    fn compare_page(&mut self, data: &ColumnData) {
        self.result.decoded_pages += 1;
        let mask = self.target.matches(&data.values);
        self.result.matches += mask.iter().filter(|&&m| m).count() as u64;
        if let Some(rows) = self.rows.as_deref_mut() {
            let levels = (self.column.max_def_level > 0).then_some(data.def_levels.as_slice());
            spread(rows, levels, &mask, self.column.max_def_level);
        }
    }
}

/// Appends one bit per row: the value's flag where the row has a value, 0 for nulls.
fn spread(rows: &mut Bitmap, def_levels: Option<&[i16]>, mask: &[bool], max_def: i16) {
    match def_levels {
        None => {
            for &flag in mask {
                rows.push(flag);
            }
        }
        Some(levels) => {
            let mut values = mask.iter();
            for &d in levels {
                rows.push(d == max_def && values.next().copied().unwrap_or(false));
            }
        }
    }
}

/// A dictionary-encoded data page taken apart: its indices stream and how many values (non-null
/// rows) it holds.
struct IndexSection<'a> {
    /// The bit-width byte and the hybrid runs.
    indices: &'a [u8],
    /// Non-null values in the page.
    values: u32,
    /// Definition levels, when the column has them (needed to count a v1 page's values).
    def_levels: Option<Vec<i16>>,
}

/// The indices section of a dictionary-encoded data page, or `None` when the page is not one
/// (or has levels this code does not take apart itself: BIT_PACKED); the page layer decodes
/// those. The definition levels are decoded (on the CPU) when `want_levels` or when they are
/// the only way to know the number of values (v1 pages); a v2 page's header says it.
fn index_section<'a>(
    page: &'a CratePage,
    column: &Column,
    want_levels: bool,
) -> Result<Option<IndexSection<'a>>, String> {
    use parquet::basic::Encoding as E;
    let max_def = column.max_def_level;
    match page {
        CratePage::DataPage {
            buf,
            num_values,
            encoding: E::RLE_DICTIONARY | E::PLAIN_DICTIONARY,
            def_level_encoding,
            ..
        } => {
            if max_def == 0 {
                return Ok(Some(IndexSection {
                    indices: buf,
                    values: *num_values,
                    def_levels: None,
                }));
            }
            if *def_level_encoding != E::RLE {
                return Ok(None);
            }
            let (prefix, rest) = buf
                .split_first_chunk::<4>()
                .ok_or("the page ends inside the definition levels' length")?;
            let len = u32::from_le_bytes(*prefix) as usize;
            if len > rest.len() {
                return Err(format!(
                    "definition levels' length {len} passes the page's {} remaining bytes",
                    rest.len()
                ));
            }
            let (levels, indices) = rest.split_at(len);
            let levels = decode_levels(levels, max_def, *num_values)?;
            let values = levels.iter().filter(|&&d| d == max_def).count() as u32;
            Ok(Some(IndexSection {
                indices,
                values,
                def_levels: Some(levels),
            }))
        }
        CratePage::DataPageV2 {
            buf,
            num_values,
            num_nulls,
            encoding: E::RLE_DICTIONARY | E::PLAIN_DICTIONARY,
            def_levels_byte_len,
            rep_levels_byte_len,
            ..
        } => {
            let start = *rep_levels_byte_len as usize;
            let end = start.saturating_add(*def_levels_byte_len as usize);
            if end > buf.len() {
                return Err(format!(
                    "rep_levels_byte_len {rep_levels_byte_len} + def_levels_byte_len \
                     {def_levels_byte_len} pass the page's {} bytes",
                    buf.len()
                ));
            }
            let values = num_values.checked_sub(*num_nulls).ok_or_else(|| {
                format!("num_nulls {num_nulls} is above the page's num_values {num_values}")
            })?;
            let def_levels = if max_def > 0 && want_levels {
                let levels = decode_levels(&buf[start..end], max_def, *num_values)?;
                let present = levels.iter().filter(|&&d| d == max_def).count();
                if present != values as usize {
                    return Err(format!(
                        "num_nulls {num_nulls} leaves {values} values, but the definition \
                         levels say {present}"
                    ));
                }
                Some(levels)
            } else {
                None
            };
            Ok(Some(IndexSection {
                indices: &buf[end..],
                values,
                def_levels,
            }))
        }
        _ => Ok(None),
    }
}

/// Decodes `num_values` RLE definition levels (no length prefix) in batches.
fn decode_levels(data: &[u8], max_def: i16, num_values: u32) -> Result<Vec<i16>, String> {
    let mut decoder = HybridDecoder::new(data, level_width(max_def), num_values as usize)
        .map_err(|e| format!("definition levels: {e}"))?;
    let mut levels = Vec::new();
    let mut batch = [0u32; 1024];
    while decoder.remaining() > 0 {
        let n = decoder
            .next_batch(&mut batch)
            .map_err(|e| format!("definition levels: {e}"))?;
        if n == 0 {
            return Err("definition levels: the stream ended early".to_string());
        }
        for &level in &batch[..n] {
            let level = i16::try_from(level)
                .ok()
                .filter(|&l| l <= max_def)
                .ok_or_else(|| format!("definition level {level} above the maximum {max_def}"))?;
            levels.push(level);
        }
    }
    Ok(levels)
}

/// Gathers the `--select` column's values in the rows whose bit is 1 in `rows`
/// ([`query::gather`]: only the selected rows are decoded where the encoding allows it).
fn gather(
    column: &Column,
    name: &str,
    pages: &[CratePage],
    rows: &Bitmap,
    path: Path,
    selected: &mut Selected,
) -> Result<(), String> {
    let pages = pages
        .iter()
        .enumerate()
        .map(|(i, page)| to_qpl_page(page).map_err(|e| format!("column {name}, page {i}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let chunk = ColumnChunk::new(name, *column, pages);
    let data =
        query::gather(&chunk, rows.view(), &Executor::new(path)).map_err(|e| e.to_string())?;
    let values = data.values.len();
    let rows_selected = if column.max_def_level == 0 {
        values
    } else {
        data.def_levels.len()
    };
    selected.values += values as u64;
    selected.nulls += (rows_selected - values) as u64;
    for i in 0..values.min(SAMPLE.saturating_sub(selected.sample.len())) {
        selected.sample.push(format_value(&data.values, i));
    }
    Ok(())
}

/// Value `i` as text: numbers as Rust prints them, UTF-8 strings quoted, other bytes in hex.
fn format_value(values: &Values, i: usize) -> String {
    match values {
        Values::Boolean(v) => v[i].to_string(),
        Values::Int32(v) => v[i].to_string(),
        Values::Int64(v) => v[i].to_string(),
        Values::Int96(v) => format!("{:?}", v[i].0),
        Values::Float(v) => v[i].to_string(),
        Values::Double(v) => v[i].to_string(),
        Values::Bytes(v) => match std::str::from_utf8(v.get(i)) {
            Ok(s) => format!("{s:?}"),
            Err(_) => v.get(i).iter().map(|b| format!("{b:02x}")).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use parquet::basic::Encoding as E;

    const COLUMN: Column = Column {
        physical_type: PhysicalType::Int32,
        max_def_level: 1,
        max_rep_level: 0,
    };

    /// A dictionary page [5, 7], then a v2 page of 4 rows, all present (levels: an RLE run of
    /// four 1s), all index 0 (an RLE run of width 1).
    fn pages(num_nulls: u32) -> Vec<CratePage> {
        let mut dictionary = 5i32.to_le_bytes().to_vec();
        dictionary.extend(7i32.to_le_bytes());
        vec![
            CratePage::DictionaryPage {
                buf: Bytes::from(dictionary),
                num_values: 2,
                encoding: E::PLAIN,
                is_sorted: false,
            },
            CratePage::DataPageV2 {
                buf: Bytes::from_static(&[0x08, 0x01, 0x01, 0x08, 0x00]),
                num_values: 4,
                encoding: E::RLE_DICTIONARY,
                num_nulls,
                num_rows: 4,
                def_levels_byte_len: 2,
                rep_levels_byte_len: 0,
                is_compressed: false,
                statistics: None,
            },
        ]
    }

    fn run(pages: &[CratePage], rows_left: u64, select: bool) -> Result<FilterResult, String> {
        let mut result = FilterResult {
            column: "v".into(),
            rows: 0,
            matches: 0,
            path: Path::Fallback,
            index_pages: 0,
            scanned_pages: 0,
            decoded_pages: 0,
            selected: None,
            elapsed: Duration::ZERO,
        };
        let mut rows = Bitmap::new();
        ChunkFilter {
            column: COLUMN,
            rows_left,
            target: &Target::Int32(5),
            path: Path::Fallback,
            result: &mut result,
            rows: select.then_some(&mut rows),
        }
        .run(pages)?;
        if select {
            assert_eq!(rows, Bitmap::repeat(true, 4));
        }
        Ok(result)
    }

    #[test]
    fn a_dictionary_page_is_scanned() {
        let result = run(&pages(0), 4, true).unwrap();
        assert_eq!((result.matches, result.rows), (4, 4));
        assert_eq!((result.index_pages, result.scanned_pages), (1, 1));
    }

    #[test]
    fn counts_that_disagree_are_errors() {
        let e = run(&pages(0), 3, false).unwrap_err();
        assert!(
            e.contains("claims 4 values") && e.contains("3 rows left"),
            "{e}"
        );
        let e = run(&pages(0), 5, false).unwrap_err();
        assert!(e.contains("1 rows fewer"), "{e}");
        let e = run(&pages(5), 4, false).unwrap_err();
        assert!(e.contains("num_nulls 5 is above"), "{e}");
        // The header says one null, the levels none: caught where the levels are decoded.
        let e = run(&pages(1), 4, true).unwrap_err();
        assert!(e.contains("definition levels say 4"), "{e}");
    }
}
