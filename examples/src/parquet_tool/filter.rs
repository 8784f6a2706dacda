//! `qpl-parquet filter FILE --column NAME --eq VALUE [--select COLUMN]`: counts the rows whose
//! column equals VALUE.
//!
//! Per row group, [`qpl_rs::parquet::query::filter`] answers `Predicate::Eq(VALUE)` on the
//! column's chunk with the chosen [`Path`] (the accelerator when there is one). On a
//! dictionary-encoded data page it never decodes a value: it finds the dictionary ids whose
//! entry equals VALUE (once per chunk, from the dictionary page), then scans the page's indices
//! stream (the bit-width byte and the RLE/bit-packed hybrid runs: exactly QPL's `parquet_rle`
//! stream) for them, and checks the indices against the dictionary's length where the bit width
//! could hold one past it. A page whose dictionary holds no such entry is not scanned for it.
//! Other pages (PLAIN, DELTA_*, BYTE_STREAM_SPLIT, a writer's fallback after its dictionary grew
//! too big) are decoded by the page layer and compared. See the `query` module docs.
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
//!
//! GZIP chunks are read as stored (`query::stored_page_reader`): a dictionary-encoded GZIP page
//! whose values section is the whole compressed stream (v2 pages; v1 pages of a required
//! column) is scanned by decompress-enabled jobs, inflate and scan in one pass; other pages
//! are inflated and decoded (`docs/decompress.md`, "Parquet pages").

use std::fs::File;
use std::path::Path as FilePath;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use parquet::column::page::Page as CratePage;
use std::sync::Arc;

use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::{ColumnDescPtr, SchemaDescriptor};
use qpl_rs::parquet::query::{self, ChunkPages, Predicate, Scalar};
use qpl_rs::parquet::{Column, PhysicalType, Values};
use qpl_rs::{Bitmap, Executor, Path};

use super::bench::{catch, say};
use super::verify::{column_of, Shared};

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
    /// Data pages answered from their dictionary indices (scanned, or not scanned because the
    /// dictionary holds no matching entry).
    pub index_pages: usize,
    /// Of those, the pages scanned for VALUE's dictionary ids.
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
    let source = Shared::new(File::open(file).map_err(|e| e.to_string())?);
    let reader = SerializedFileReader::new(source.clone()).map_err(|e| e.to_string())?;
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr_ptr();
    let (_, descr) = find_leaf(&schema, column)?;
    let filtered_column = column_of(&descr)?;
    let predicate = Predicate::Eq(scalar(&filtered_column, eq, "--eq")?);
    let selected_leaf = select.map(|name| find_leaf(&schema, name)).transpose()?;
    let executor = Executor::new(path);

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
        let num_rows = u64::try_from(row_group.metadata().num_rows()).unwrap_or(0);
        let name = result.column.clone();
        let pages = read_pages(&source, metadata, rg, &name)?;
        let rows = filter_chunk(&pages, num_rows, &predicate, &executor, &mut result)
            .map_err(|e| format!("row group {rg}, {e}"))?;
        if let (Some((_, select_descr)), Some(selected)) =
            (&selected_leaf, result.selected.as_mut())
        {
            let name = select_descr.path().string();
            let pages = read_pages(&source, metadata, rg, &name)?;
            gather(&pages, &rows, &executor, selected)
                .map_err(|e| format!("row group {rg}, {e}"))?;
        }
    }
    result.elapsed = start.elapsed();
    Ok(result)
}

/// Filters one column chunk (the pages of one row group of `num_rows` rows) with
/// [`query::filter`], adds its counts to `result`, and gives its matching rows. Errors start
/// with "column NAME".
fn filter_chunk(
    pages: &ChunkPages,
    num_rows: u64,
    predicate: &Predicate,
    executor: &Executor,
    result: &mut FilterResult,
) -> Result<Bitmap, String> {
    check_rows(&pages.pages, num_rows).map_err(|e| format!("column {}: {e}", pages.name))?;
    let chunk = pages.chunk().map_err(|e| e.to_string())?;
    let filtered = query::filter(&chunk, predicate, executor).map_err(|e| e.to_string())?;
    result.rows += filtered.rows.len() as u64;
    result.matches += filtered.rows.count_ones() as u64;
    if filtered.path != Path::Fallback {
        result.path = filtered.path;
    }
    result.index_pages += filtered.index_pages;
    result.scanned_pages += filtered.scanned_pages;
    result.decoded_pages += filtered.decoded_pages;
    Ok(filtered.rows)
}

/// Checks the data pages' counts against the row group's rows before anything is decoded: a
/// non-repeated column has one level per row, so no page may claim more (nothing is sized by
/// a larger count), and together they hold them all.
fn check_rows(pages: &[CratePage], num_rows: u64) -> Result<(), String> {
    let mut rows_left = num_rows;
    for (i, page) in pages.iter().enumerate() {
        if let CratePage::DictionaryPage { .. } = page {
            continue;
        }
        let levels = u64::from(page.num_values());
        if levels > rows_left {
            return Err(format!(
                "page {i}: the page claims {levels} values, but the row group has {rows_left} \
                 rows left"
            ));
        }
        rows_left -= levels;
    }
    if rows_left > 0 {
        return Err(format!(
            "the pages hold {rows_left} rows fewer than the row group's"
        ));
    }
    Ok(())
}

/// The leaf called `name`: its dotted path, or a top-level field with a single leaf.
/// Repeated leaves are refused.
pub(super) fn find_leaf(
    schema: &SchemaDescriptor,
    name: &str,
) -> Result<(usize, ColumnDescPtr), String> {
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

/// The pages of one column chunk (`name`, its dotted path), read by the library
/// ([`ChunkPages::read_stored`]): GZIP pages as stored, others decompressed by the parquet
/// crate.
fn read_pages(
    source: &Shared<File>,
    metadata: &ParquetMetaData,
    rg: usize,
    name: &str,
) -> Result<ChunkPages, String> {
    ChunkPages::read_stored(Arc::new(source.clone()), metadata, rg, name)
        .map_err(|e| format!("row group {rg}, {e}"))
}

/// VALUE, parsed for the column's physical type; errors name `option` (`--eq`, `--filter`).
pub(super) fn scalar(column: &Column, value: &str, option: &str) -> Result<Scalar, String> {
    let bad = |what: &str| format!("{option} {value:?} is not {what}");
    Ok(match column.physical_type {
        PhysicalType::Boolean => Scalar::Boolean(match value {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(bad("a boolean (true, false)")),
        }),
        PhysicalType::Int32 => Scalar::Int32(value.parse().map_err(|_| bad("an INT32"))?),
        PhysicalType::Int64 => Scalar::Int64(value.parse().map_err(|_| bad("an INT64"))?),
        PhysicalType::Float => Scalar::Float(value.parse().map_err(|_| bad("a FLOAT"))?),
        PhysicalType::Double => Scalar::Double(value.parse().map_err(|_| bad("a DOUBLE"))?),
        PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => {
            Scalar::Bytes(value.as_bytes().to_vec())
        }
        PhysicalType::Int96 => return Err("filtering an INT96 column is not supported".to_string()),
    })
}

/// Gathers the `--select` column's values in the rows whose bit is 1 in `rows`
/// ([`query::gather`]: only the selected rows are decoded where the encoding allows it).
fn gather(
    pages: &ChunkPages,
    rows: &Bitmap,
    executor: &Executor,
    selected: &mut Selected,
) -> Result<(), String> {
    let column = &pages.column;
    let chunk = pages.chunk().map_err(|e| e.to_string())?;
    let data = query::gather(&chunk, rows.view(), executor).map_err(|e| e.to_string())?;
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

    fn run(pages: &[CratePage], num_rows: u64) -> Result<(FilterResult, Bitmap), String> {
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
        let stored = ChunkPages {
            name: "v".into(),
            column: COLUMN,
            pages: pages.to_vec(),
            compression: Vec::new(),
        };
        let rows = filter_chunk(
            &stored,
            num_rows,
            &Predicate::Eq(Scalar::Int32(5)),
            &Executor::new(Path::Fallback),
            &mut result,
        )?;
        Ok((result, rows))
    }

    #[test]
    fn a_dictionary_page_is_scanned() {
        let (result, rows) = run(&pages(0), 4).unwrap();
        assert_eq!((result.matches, result.rows), (4, 4));
        assert_eq!((result.index_pages, result.scanned_pages), (1, 1));
        assert_eq!(rows, Bitmap::repeat(true, 4));
    }

    #[test]
    fn counts_that_disagree_are_errors() {
        let e = run(&pages(0), 3).unwrap_err();
        assert!(
            e.contains("column v: page 1: the page claims 4 values") && e.contains("3 rows left"),
            "{e}"
        );
        let e = run(&pages(0), 5).unwrap_err();
        assert!(e.contains("1 rows fewer"), "{e}");
        // The header says more nulls than values, or one null where the levels say none.
        for nulls in [5, 1] {
            let e = run(&pages(nulls), 4).unwrap_err();
            assert!(e.starts_with("column v, page 1: "), "{e}");
            let expected = match nulls {
                5 => "num_nulls 5 is above num_values 4".to_string(),
                _ => format!("num_nulls {nulls} = 3 values, but the definition levels say 4"),
            };
            assert!(e.contains(&expected), "{e}");
        }
    }
}
