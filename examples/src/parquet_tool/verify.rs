//! `qpl-parquet verify`: every column chunk of every row group of a file decoded by qpl-rs's
//! page layer and compared with what the `parquet` crate decodes from the same file.
//!
//! The `parquet` crate reads the file's structure: the footer, and each chunk's pages through
//! its page reader, which decompresses them. Each page's body then goes to
//! [`qpl_rs::parquet::ChunkDecoder`], which decodes definition levels, repetition levels and
//! values by itself (levels, dictionary indices and RLE booleans on the chosen [`Path`]). The
//! reference is the `parquet` crate's typed column reader (`read_records` with level buffers)
//! over the same row group. Levels must be equal, values equal (floats by bit pattern, so NaNs
//! and -0.0 count).
//!
//! One JSON line per column chunk on stdout, keys in this order:
//!
//! | key | value |
//! |---|---|
//! | `file` | the file name as given |
//! | `row_group` | row group index (`null` when the file could not be opened) |
//! | `column` | the column's dotted path, e.g. `"tags.list.element"` (`null` likewise) |
//! | `physical_type` | `"INT32"`, `"FIXED_LEN_BYTE_ARRAY"`... (`null` likewise) |
//! | `encodings` | distinct encodings the chunk's page headers name, in first-seen order: per page, the dictionary page's encoding, or a data page's value encoding then its repetition- and definition-level encodings (only for levels the column has) |
//! | `values` | the chunk's level count: one per value slot, nulls and empty lists included (the sum of the data pages' `num_values`), as far as the pages were read |
//! | `result` | `"ok"`, `"mismatch"` or `"error"` |
//! | `detail` | `""` when ok; else the first difference (`"value 17: expected 5, got 6"`) or the error |
//! | `path` | the path that decoded the levels/indices/booleans: the accelerator (or QPL's software path) if any page used it, else `"fallback"`; `null` when the chunk has no such part (a required column of PLAIN, DELTA_* or BYTE_STREAM_SPLIT values: all on the CPU codecs) or nothing was decoded |
//!
//! Every chunk's pages, ours and the reference's, come from
//! `qpl_rs::parquet::query::chunk_page_reader`: the chunk's byte range read into memory, every
//! page header read bounded by it (the `parquet` crate's own page reader can loop forever on a
//! damaged header, see that function's docs), so a damaged file ends with an error line.
//!
//! GZIP chunks: their pages are read as stored (`qpl_rs::parquet::query::stored_page_reader`)
//! and decoded by [`ChunkDecoder::decode_compressed_page`]: in one decompress-enabled job where
//! the encoding allows it (dictionary indices, PLAIN booleans), else inflated on the CPU first
//! (`docs/decompress.md`, "Parquet pages"). The lines are the same.
//!
//! Exit status: 0 when every chunk is ok, 1 when any is a mismatch (and none an error), 2 when
//! any is an error. A malformed file gives error lines, never a panic: a panic inside the
//! `parquet` crate is caught and reported as that chunk's error.

use std::fs::File;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use parquet::basic::{Encoding as PqEncoding, Type as PqType};
use parquet::column::page::Page as PqPage;
use parquet::column::reader::{get_column_reader, get_typed_column_reader};
use parquet::data_type::{
    BoolType, ByteArrayType, DataType, DoubleType, FixedLenByteArrayType, FloatType, Int32Type,
    Int64Type, Int96Type,
};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};
use parquet::schema::types::ColumnDescriptor;
use qpl_rs::parquet::query::{
    chunk_page_reader, compression_of, read_metadata, stored_page_reader,
};
use qpl_rs::parquet::{
    ChunkDecoder, Codec, Column, ColumnData, CompressedPage, Encoding, Page, Values,
};
use qpl_rs::Path;
use serde::Serialize;
use std::sync::Arc;

/// The outcome of one column chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Levels and values equal the `parquet` crate's.
    Ok,
    /// Both decoded, with a difference.
    Mismatch,
    /// Something could not be decoded (by this project, or by the `parquet` crate).
    Error,
}

/// One JSON line of `verify` (see the module docs for each field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkLine {
    /// The file name as given.
    pub file: String,
    /// Row group index.
    pub row_group: Option<usize>,
    /// Dotted column path.
    pub column: Option<String>,
    /// Physical type as Parquet names it.
    pub physical_type: Option<&'static str>,
    /// Distinct encodings of the chunk's page headers, first seen first.
    pub encodings: Vec<String>,
    /// Levels (value slots, nulls included) in the pages read.
    pub values: u64,
    /// The outcome.
    pub result: Outcome,
    /// `""` when ok, else the first difference or the error.
    pub detail: String,
    /// The path that decoded the levels/indices/booleans.
    pub path: Option<&'static str>,
}

/// Verifies each file on `path`, writes one JSON line per column chunk on stdout and a short
/// summary on stderr; the exit status is 0 (all ok), 1 (a mismatch) or 2 (an error).
pub fn run(files: &[PathBuf], path: Path) -> ExitCode {
    // Panics in the parquet crate are caught and reported per chunk; keep stderr quiet.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut stdout = std::io::stdout().lock();
    let mut all = Vec::new();
    for file in files {
        let lines = match path.availability() {
            // Nothing can be decoded on this path: one error line per file says why.
            Err(why) => vec![file_error(
                &file.display().to_string(),
                format!("the {path} path cannot run here: {why}"),
            )],
            Ok(()) => verify_file(file, path),
        };
        for line in lines {
            let json = serde_json::to_string(&line).expect("a line serialises");
            if writeln!(stdout, "{json}").is_err() {
                std::panic::set_hook(previous_hook);
                return ExitCode::from(2);
            }
            all.push(line);
        }
    }
    let _ = stdout.flush();
    std::panic::set_hook(previous_hook);
    // Not `eprintln!`, which panics when stderr is a closed pipe (`2>&1 | head`).
    let _ = writeln!(std::io::stderr(), "{}", summary(&all));
    exit_status(&all)
}

/// 2 when any line is an error, else 1 when any is a mismatch, else 0.
pub fn exit_status(lines: &[ChunkLine]) -> ExitCode {
    if lines.iter().any(|l| l.result == Outcome::Error) {
        ExitCode::from(2)
    } else if lines.iter().any(|l| l.result == Outcome::Mismatch) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A few lines for people: counts, the encodings seen, the paths that ran, the failures.
pub fn summary(lines: &[ChunkLine]) -> String {
    let count = |o| lines.iter().filter(|l| l.result == o).count();
    let mut encodings: Vec<&str> = Vec::new();
    let mut paths: Vec<&str> = Vec::new();
    for line in lines {
        for e in &line.encodings {
            if !encodings.contains(&e.as_str()) {
                encodings.push(e);
            }
        }
        if let Some(p) = line.path {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
    }
    let levels: u64 = lines.iter().map(|l| l.values).sum();
    let mut out = format!(
        "verified {} lines ({levels} values): {} ok, {} mismatch, {} error\n\
         encodings: {}\n\
         levels/indices decoded on: {}",
        lines.len(),
        count(Outcome::Ok),
        count(Outcome::Mismatch),
        count(Outcome::Error),
        if encodings.is_empty() {
            "-".to_string()
        } else {
            encodings.join(", ")
        },
        if paths.is_empty() {
            "-".to_string()
        } else {
            paths.join(", ")
        },
    );
    for line in lines.iter().filter(|l| l.result != Outcome::Ok).take(10) {
        out.push_str(&format!(
            "\n  {:?} {} row group {} column {}: {}",
            line.result,
            line.file,
            line.row_group.map_or("-".into(), |r| r.to_string()),
            line.column.as_deref().unwrap_or("-"),
            line.detail
        ));
    }
    out
}

/// The JSON lines of one file, decoded on `path`.
pub fn verify_file(file: &std::path::Path, path: Path) -> Vec<ChunkLine> {
    let name = file.display().to_string();
    match File::open(file) {
        Ok(f) => verify_source(&name, f, |column| ChunkDecoder::new(column, path)),
        Err(e) => vec![file_error(&name, format!("cannot open: {e}"))],
    }
}

/// The error line of a file that cannot be read at all.
fn file_error(name: &str, detail: String) -> ChunkLine {
    ChunkLine {
        file: name.to_string(),
        row_group: None,
        column: None,
        physical_type: None,
        encodings: Vec::new(),
        values: 0,
        result: Outcome::Error,
        detail,
        path: None,
    }
}

/// The JSON lines of the Parquet file `source` (named `name` in the lines), each chunk decoded
/// by a decoder from `decoder_for`.
pub fn verify_source<R: ChunkReader + 'static>(
    name: &str,
    source: R,
    decoder_for: impl Fn(Column) -> ChunkDecoder,
) -> Vec<ChunkLine> {
    let source = Shared(Arc::new(source));
    // The footer as the Arrow reader reads it: footers the parquet crate refuses but pyarrow
    // reads (Dremio's) are repaired first.
    let opened = catch("the parquet crate", || read_metadata(&source))
        .and_then(|r| r.map_err(|e| format!("not a readable Parquet file: {e}")));
    let metadata = match opened {
        Ok(metadata) => metadata,
        Err(detail) => return vec![file_error(name, detail)],
    };
    let metadata = &metadata;
    let mut lines = Vec::new();
    for rg in 0..metadata.num_row_groups() {
        let columns = metadata.row_group(rg).columns();
        for (j, chunk) in columns.iter().enumerate() {
            let descr = chunk.column_descr();
            let mut line = ChunkLine {
                file: name.to_string(),
                row_group: Some(rg),
                column: Some(chunk.column_path().string()),
                physical_type: Some(type_name(descr.physical_type())),
                encodings: Vec::new(),
                values: 0,
                result: Outcome::Ok,
                detail: String::new(),
                path: None,
            };
            match verify_chunk(metadata, &source, rg, j, descr, &decoder_for, &mut line) {
                Ok(None) => {}
                Ok(Some(difference)) => {
                    line.result = Outcome::Mismatch;
                    line.detail = difference;
                }
                Err(error) => {
                    line.result = Outcome::Error;
                    line.detail = error;
                }
            }
            lines.push(line);
        }
    }
    lines
}

/// Runs `f`, turning a panic into an error message naming `who` panicked.
fn catch<T>(who: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        format!("{who} panicked: {message}")
    })
}

fn type_name(t: PqType) -> &'static str {
    match t {
        PqType::BOOLEAN => "BOOLEAN",
        PqType::INT32 => "INT32",
        PqType::INT64 => "INT64",
        PqType::INT96 => "INT96",
        PqType::FLOAT => "FLOAT",
        PqType::DOUBLE => "DOUBLE",
        PqType::BYTE_ARRAY => "BYTE_ARRAY",
        PqType::FIXED_LEN_BYTE_ARRAY => "FIXED_LEN_BYTE_ARRAY",
    }
}

/// The page layer's column for a schema leaf (`qpl-rs`'s adaptor, feature `parquet`).
pub use qpl_rs::parquet::query::column_of;

/// The page layer's encoding for one the `parquet` crate read from a page header.
fn encoding_of(e: PqEncoding) -> Result<Encoding, String> {
    let name = e.to_string();
    Encoding::from_name(&name)
        .ok_or_else(|| format!("encoding {name} is not one this project decodes"))
}

fn note_encoding(encodings: &mut Vec<String>, e: PqEncoding) {
    let name = e.to_string();
    if !encodings.contains(&name) {
        encodings.push(name);
    }
}

/// Decodes chunk `j` of row group `rg` both ways; `Ok(None)` when equal, `Ok(Some(difference))`
/// for a mismatch, `Err` when either side fails. Fills `line`'s encodings, values and path.
fn verify_chunk<R: ChunkReader + 'static>(
    metadata: &ParquetMetaData,
    source: &Shared<R>,
    rg: usize,
    j: usize,
    descr: &ColumnDescriptor,
    decoder_for: &dyn Fn(Column) -> ChunkDecoder,
    line: &mut ChunkLine,
) -> Result<Option<String>, String> {
    let column = column_of(descr)?;
    let (stored, codec) = catch("the parquet crate", || {
        stored_page_reader(Arc::new(source.clone()), metadata, rg, j)
    })?
    .map_err(|e| format!("cannot read the pages: {e}"))?;
    let ours = if codec == Codec::Gzip {
        decode_ours(stored, codec, decoder_for(column), line)?
    } else {
        let pages = catch("the parquet crate", || {
            chunk_page_reader(source, metadata, rg, j)
        })?
        .map_err(|e| format!("cannot read the pages: {e}"))?;
        decode_ours(pages, Codec::Uncompressed, decoder_for(column), line)?
    };
    let reference = catch("the parquet crate", || {
        let pages = chunk_page_reader(source, metadata, rg, j)?;
        read_reference(pages, metadata.row_group(rg).column(j).column_descr_ptr())
    })?
    .map_err(|e| format!("the parquet crate cannot read the chunk: {e}"))?;
    Ok(compare(&reference, &ours))
}

/// The file's bytes, shared by the `parquet` crate's file reader and the reader of GZIP
/// chunks' stored pages.
pub struct Shared<R>(Arc<R>);

impl<R> Shared<R> {
    /// Shares `source`.
    pub fn new(source: R) -> Shared<R> {
        Shared(Arc::new(source))
    }
}

impl<R> Clone for Shared<R> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<R: ChunkReader> Length for Shared<R> {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl<R: ChunkReader> ChunkReader for Shared<R> {
    type T = R::T;

    fn get_read(&self, start: u64) -> parquet::errors::Result<R::T> {
        self.0.get_read(start)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// This project's decoding of the chunk's pages (`pages` as stored when `codec` is GZIP).
fn decode_ours(
    mut pages: Box<dyn parquet::column::page::PageReader>,
    codec: Codec,
    mut decoder: ChunkDecoder,
    line: &mut ChunkLine,
) -> Result<ColumnData, String> {
    let column = *decoder.column();
    let mut data = ColumnData::new(&column);
    let mut index = 0usize;
    let mut ran: Option<Path> = None;
    loop {
        let page = catch("the parquet crate", || pages.get_next_page())?
            .map_err(|e| format!("page {index}: the parquet crate cannot read it: {e}"))?;
        let Some(page) = page else { break };
        let what = |e: String| format!("page {index}: {e}");
        let compression = compression_of(&page, codec);
        let decoder = &mut decoder;
        let data = &mut data;
        let mut decode = |page: Page<'_>| {
            catch("qpl-rs", || {
                decoder.decode_compressed_page(&CompressedPage { page, compression }, data)
            })
        };
        let report = match &page {
            PqPage::DictionaryPage {
                buf,
                num_values,
                encoding,
                ..
            } => {
                note_encoding(&mut line.encodings, *encoding);
                let page = Page::Dictionary {
                    buf,
                    num_values: *num_values,
                    encoding: encoding_of(*encoding).map_err(what)?,
                };
                decode(page)?
            }
            PqPage::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
                ..
            } => {
                note_encoding(&mut line.encodings, *encoding);
                if column.max_rep_level > 0 {
                    note_encoding(&mut line.encodings, *rep_level_encoding);
                }
                if column.max_def_level > 0 {
                    note_encoding(&mut line.encodings, *def_level_encoding);
                }
                line.values += u64::from(*num_values);
                let page = Page::V1 {
                    buf,
                    num_values: *num_values,
                    encoding: encoding_of(*encoding).map_err(what)?,
                    def_level_encoding: encoding_of(*def_level_encoding).map_err(what)?,
                    rep_level_encoding: encoding_of(*rep_level_encoding).map_err(what)?,
                };
                decode(page)?
            }
            PqPage::DataPageV2 {
                buf,
                num_values,
                encoding,
                num_nulls,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                note_encoding(&mut line.encodings, *encoding);
                if column.max_rep_level > 0 || column.max_def_level > 0 {
                    note_encoding(&mut line.encodings, PqEncoding::RLE);
                }
                line.values += u64::from(*num_values);
                let page = Page::V2 {
                    buf,
                    num_values: *num_values,
                    num_nulls: *num_nulls,
                    encoding: encoding_of(*encoding).map_err(what)?,
                    def_levels_byte_len: *def_levels_byte_len,
                    rep_levels_byte_len: *rep_levels_byte_len,
                };
                decode(page)?
            }
        };
        let report = report.map_err(|e| what(e.to_string()))?;
        // The accelerator's (or QPL software's) path once any page used it; else fallback once
        // any page had a part a path runs; else none.
        ran = match (ran, report.routed_path()) {
            (Some(p), _) if p != Path::Fallback => Some(p),
            (ran, None) => ran,
            (_, page) => page,
        };
        line.path = ran.map(Path::name);
        index += 1;
    }
    Ok(data)
}

/// The `parquet` crate's reading of the chunk (its column reader over `pages`), in the page
/// layer's types.
fn read_reference(
    pages: Box<dyn parquet::column::page::PageReader>,
    descr: parquet::schema::types::ColumnDescPtr,
) -> parquet::errors::Result<ColumnData> {
    let (def, rep) = (descr.max_def_level() > 0, descr.max_rep_level() > 0);
    let reader = get_column_reader(descr.clone(), pages);
    let mut data = ColumnData {
        def_levels: Vec::new(),
        rep_levels: Vec::new(),
        values: Values::Boolean(Vec::new()),
    };
    data.values = match descr.physical_type() {
        PqType::BOOLEAN => Values::Boolean(read_all::<BoolType>(reader, def, rep, &mut data)?),
        PqType::INT32 => Values::Int32(read_all::<Int32Type>(reader, def, rep, &mut data)?),
        PqType::INT64 => Values::Int64(read_all::<Int64Type>(reader, def, rep, &mut data)?),
        PqType::INT96 => Values::Int96(
            read_all::<Int96Type>(reader, def, rep, &mut data)?
                .iter()
                .map(|v| {
                    let d = v.data();
                    qpl_rs::parquet::Int96([d[0], d[1], d[2]])
                })
                .collect(),
        ),
        PqType::FLOAT => Values::Float(read_all::<FloatType>(reader, def, rep, &mut data)?),
        PqType::DOUBLE => Values::Double(read_all::<DoubleType>(reader, def, rep, &mut data)?),
        PqType::BYTE_ARRAY => Values::Bytes(
            read_all::<ByteArrayType>(reader, def, rep, &mut data)?
                .iter()
                .map(|v| v.data())
                .collect(),
        ),
        PqType::FIXED_LEN_BYTE_ARRAY => Values::Bytes(
            read_all::<FixedLenByteArrayType>(reader, def, rep, &mut data)?
                .iter()
                .map(|v| v.data())
                .collect(),
        ),
    };
    Ok(data)
}

/// Every record of a column reader: its values, and the levels the column has into `data`.
fn read_all<T: DataType>(
    reader: parquet::column::reader::ColumnReader,
    def: bool,
    rep: bool,
    data: &mut ColumnData,
) -> parquet::errors::Result<Vec<T::T>> {
    let mut typed = get_typed_column_reader::<T>(reader);
    let mut values = Vec::new();
    loop {
        let (records, _, _) = typed.read_records(
            8192,
            def.then_some(&mut data.def_levels),
            rep.then_some(&mut data.rep_levels),
            &mut values,
        )?;
        if records == 0 {
            break;
        }
    }
    Ok(values)
}

/// The first difference between the reference and this project's decoding, if any.
pub fn compare(expected: &ColumnData, got: &ColumnData) -> Option<String> {
    if let Some(d) = first_difference("definition level", &expected.def_levels, &got.def_levels) {
        return Some(d);
    }
    if let Some(d) = first_difference("repetition level", &expected.rep_levels, &got.rep_levels) {
        return Some(d);
    }
    match (&expected.values, &got.values) {
        (Values::Boolean(e), Values::Boolean(g)) => first_difference("value", e, g),
        (Values::Int32(e), Values::Int32(g)) => first_difference("value", e, g),
        (Values::Int64(e), Values::Int64(g)) => first_difference("value", e, g),
        (Values::Int96(e), Values::Int96(g)) => {
            let words = |v: &[qpl_rs::parquet::Int96]| v.iter().map(|x| x.0).collect::<Vec<_>>();
            first_difference("value", &words(e), &words(g))
        }
        (Values::Float(e), Values::Float(g)) => {
            let bits = |v: &[f32]| {
                v.iter()
                    .map(|x| FloatBits(x.to_bits().into(), 32))
                    .collect::<Vec<_>>()
            };
            first_difference("value", &bits(e), &bits(g))
        }
        (Values::Double(e), Values::Double(g)) => {
            let bits = |v: &[f64]| {
                v.iter()
                    .map(|x| FloatBits(x.to_bits(), 64))
                    .collect::<Vec<_>>()
            };
            first_difference("value", &bits(e), &bits(g))
        }
        (Values::Bytes(e), Values::Bytes(g)) => {
            let (e, g): (Vec<_>, Vec<_>) =
                (e.iter().map(Text).collect(), g.iter().map(Text).collect());
            first_difference("value", &e, &g)
        }
        (e, g) => Some(format!(
            "values of different types: expected {} values, got {}",
            e.len(),
            g.len()
        )),
    }
}

fn first_difference<T: PartialEq + std::fmt::Debug>(
    what: &str,
    expected: &[T],
    got: &[T],
) -> Option<String> {
    if let Some(i) = expected.iter().zip(got).position(|(e, g)| e != g) {
        return Some(format!(
            "{what} {i}: expected {:?}, got {:?}",
            expected[i], got[i]
        ));
    }
    (expected.len() != got.len())
        .then(|| format!("{what}s: expected {}, got {}", expected.len(), got.len()))
}

/// A float compared by its bits, shown as the number and its bits.
#[derive(PartialEq)]
struct FloatBits(u64, u32);

impl std::fmt::Debug for FloatBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.1 == 32 {
            write!(f, "{} (0x{:08x})", f32::from_bits(self.0 as u32), self.0)
        } else {
            write!(f, "{} (0x{:016x})", f64::from_bits(self.0), self.0)
        }
    }
}

/// Bytes shown as a string when UTF-8, else as hex.
#[derive(PartialEq)]
struct Text<'a>(&'a [u8]);

impl std::fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match std::str::from_utf8(self.0) {
            Ok(s) => write!(f, "{s:?}"),
            Err(_) => write!(f, "0x{}", hex::encode(self.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet_tool::files;
    use bytes::Bytes;

    fn failures(lines: &[ChunkLine]) -> Vec<&ChunkLine> {
        lines.iter().filter(|l| l.result != Outcome::Ok).collect()
    }

    /// Every test file of `files` (every encoding the arrow-rs writer emits, pages v1 and v2,
    /// every codec, nullable and list columns) verifies ok on the fallback path (codecs run
    /// directly) and with the job parts run as jobs (the executor's model of QPL), and the two
    /// report their paths truthfully.
    #[test]
    fn test_files_verify_ok_with_codecs_and_with_jobs() {
        let mut chunks = 0;
        let mut seen = Vec::new();
        for (name, bytes) in files::test_files().expect("test files") {
            let bytes = Bytes::from(bytes);
            let direct = verify_source(&name, bytes.clone(), |c| {
                ChunkDecoder::new(c, Path::Fallback)
            });
            assert!(failures(&direct).is_empty(), "{:#?}", failures(&direct));
            let jobs = verify_source(&name, bytes, |c| {
                ChunkDecoder::new(c, Path::Fallback).force_jobs()
            });
            assert!(failures(&jobs).is_empty(), "{:#?}", failures(&jobs));
            assert_eq!(direct.len(), jobs.len());
            for (d, j) in direct.iter().zip(&jobs) {
                assert_eq!((&d.encodings, d.values), (&j.encodings, j.values));
                assert!(matches!(d.path, None | Some("fallback")), "{d:?}");
                assert_eq!(d.path, j.path, "{d:?}");
                // Levels, dictionary indices or RLE booleans are decoded on a path; a chunk
                // with none of them reports none.
                let routed = d.encodings.iter().any(|e| {
                    matches!(
                        e.as_str(),
                        "RLE" | "BIT_PACKED" | "RLE_DICTIONARY" | "PLAIN_DICTIONARY"
                    )
                });
                assert_eq!(d.path.is_some(), routed, "{d:?}");
                for e in &d.encodings {
                    if !seen.contains(e) {
                        seen.push(e.clone());
                    }
                }
            }
            chunks += direct.len();
        }
        seen.sort();
        println!("{chunks} chunks, encodings {seen:?}");
        for e in [
            "PLAIN",
            "RLE",
            "RLE_DICTIONARY",
            "DELTA_BINARY_PACKED",
            "DELTA_LENGTH_BYTE_ARRAY",
            "DELTA_BYTE_ARRAY",
            "BYTE_STREAM_SPLIT",
        ] {
            assert!(seen.iter().any(|s| s == e), "no chunk of {e}: {seen:?}");
        }
    }

    /// A file cut anywhere, or with bytes overwritten, gives error (or mismatch) lines and
    /// never a panic of this project's page layer.
    #[test]
    fn damaged_files_give_error_lines_not_panics() {
        let demo = files::demo_file().expect("demo file");
        let decoder = |c| ChunkDecoder::new(c, Path::Fallback);
        // Cut: the footer is gone, so one error line with no row group.
        for cut in [0, 1, 8, demo.len() / 2, demo.len() - 1] {
            let lines = verify_source("cut", Bytes::from(demo[..cut].to_vec()), decoder);
            assert_eq!(lines.len(), 1, "cut at {cut}");
            assert_eq!(lines[0].result, Outcome::Error);
            assert_eq!(
                (lines[0].row_group, lines[0].column.as_deref()),
                (None, None)
            );
        }
        // Overwritten bytes inside the pages (the footer stays intact).
        let mut rng = files::Rng::new(0x5eed);
        let mut outcomes = [0usize; 3];
        let footer = demo.len()
            - 8
            - u32::from_le_bytes(demo[demo.len() - 8..demo.len() - 4].try_into().unwrap()) as usize;
        for round in 0..40 {
            let mut damaged = demo.clone();
            for _ in 0..1 + round % 4 {
                let at = 4 + (rng.next_u64() as usize) % (footer - 4);
                damaged[at] = rng.next_u64() as u8;
            }
            for line in verify_source("damaged", Bytes::from(damaged), decoder) {
                assert!(
                    !line.detail.starts_with("qpl-rs panicked")
                        && !line.detail.contains(": qpl-rs panicked"),
                    "{line:?}"
                );
                outcomes[line.result as usize] += 1;
            }
        }
        println!("ok/mismatch/error lines: {outcomes:?}");
        assert!(outcomes[2] > 0, "some damage is detected as an error");
    }

    #[test]
    fn missing_file_is_one_error_line() {
        let lines = verify_file(
            std::path::Path::new("/nonexistent/x.parquet"),
            Path::Fallback,
        );
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].result, Outcome::Error);
        assert!(
            lines[0].detail.starts_with("cannot open"),
            "{}",
            lines[0].detail
        );
        let json = serde_json::to_string(&lines[0]).unwrap();
        assert!(json.contains(r#""row_group":null,"column":null"#), "{json}");
    }

    #[test]
    fn exit_status_is_the_worst_outcome() {
        let line = |result| ChunkLine {
            result,
            ..file_error("f", String::new())
        };
        assert_eq!(exit_status(&[]), ExitCode::SUCCESS);
        assert_eq!(exit_status(&[line(Outcome::Ok)]), ExitCode::SUCCESS);
        let mixed = [
            line(Outcome::Ok),
            line(Outcome::Mismatch),
            line(Outcome::Ok),
        ];
        assert_eq!(exit_status(&mixed), ExitCode::from(1));
        let worst = [line(Outcome::Error), line(Outcome::Mismatch)];
        assert_eq!(exit_status(&worst), ExitCode::from(2));
        let json = serde_json::to_string(&line(Outcome::Mismatch)).unwrap();
        assert!(json.contains(r#""result":"mismatch""#), "{json}");
    }

    #[test]
    fn compare_names_the_first_difference() {
        let data = |defs: Vec<i16>, values: Vec<f32>| ColumnData {
            def_levels: defs,
            rep_levels: Vec::new(),
            values: Values::Float(values),
        };
        let a = data(vec![1, 0, 1], vec![1.0, f32::NAN]);
        assert_eq!(compare(&a, &a.clone()), None);
        let b = data(vec![1, 1, 1], vec![1.0, f32::NAN]);
        assert_eq!(
            compare(&a, &b).unwrap(),
            "definition level 1: expected 0, got 1"
        );
        let c = data(vec![1, 0, 1], vec![1.0, -f32::NAN]);
        assert!(compare(&a, &c)
            .unwrap()
            .starts_with("value 1: expected NaN (0x7fc00000)"));
        let d = data(vec![1, 0, 1], vec![1.0]);
        assert_eq!(compare(&a, &d).unwrap(), "values: expected 2, got 1");
    }
}
