//! Parquet files for `qpl-parquet`'s demo and for the tests, written by another implementation:
//! the arrow-rs `parquet` crate's low-level writer (`SerializedFileWriter`), with every value
//! encoding that writer emits, on required, optional (nulls) and repeated (list) columns, in
//! data pages v1 and v2, with every compression codec it has, and several pages per chunk.
//!
//! | encoding | physical types written here |
//! |---|---|
//! | PLAIN | BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY |
//! | RLE (values) | BOOLEAN |
//! | RLE_DICTIONARY (+ PLAIN dictionary page) | INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY |
//! | DELTA_BINARY_PACKED | INT32, INT64 (default and non-default block layouts) |
//! | DELTA_LENGTH_BYTE_ARRAY | BYTE_ARRAY |
//! | DELTA_BYTE_ARRAY | BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY |
//! | BYTE_STREAM_SPLIT | FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY |
//!
//! Not here: GroupVarInt has no encoding number in Parquet's `Encoding` enum, so no page header
//! can name it and it cannot appear in a file (it is tested at the codec level only);
//! BIT_PACKED (deprecated) and PLAIN_DICTIONARY are not written by arrow-rs; ALP (encoding 10,
//! which arrow-rs 60 can write for floats) is outside this project's specification.
//!
//! The data has the structure real columns have, because that is what decides which run kinds,
//! bit widths and prefix lengths the writer produces: runs and skew (Zipf-like dictionary ids),
//! sorted strings with long shared prefixes, timestamps with jitter, NaN / ±inf / -0.0,
//! `i32`/`i64` minimum and maximum next to each other (wrapping deltas), empty strings, null
//! runs, empty and null lists.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FixedLenByteArray,
    FixedLenByteArrayType, FloatType, Int32Type, Int64Type, Int96, Int96Type,
};
use parquet::errors::Result;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;

/// Writes the demo file of `qpl-parquet verify` (with no FILE) and of the README: one column
/// per encoding the project decodes, data pages v2, SNAPPY, two row groups of 5,000 rows and
/// several pages per chunk. Column `a` is a nullable dictionary-encoded string column (city
/// names, skewed, about 10 % nulls), so that `qpl-parquet filter demo.parquet --column a --eq
/// Paris` runs the dictionary-index scan; `qty` (INT32, dictionary) and `id` (INT64, delta)
/// filter too.
pub fn write_demo_file(path: &Path) -> Result<()> {
    std::fs::write(path, demo_file()?)?;
    Ok(())
}

/// The demo file's bytes (see [`write_demo_file`]).
pub fn demo_file() -> Result<Vec<u8>> {
    let columns = vec![
        Column::new("id", Gen::I64(sequential_id), Shape::Required)
            .encoding(Encoding::DELTA_BINARY_PACKED),
        Column::new("a", Gen::Bytes(city), Shape::Optional)
            .utf8()
            .dictionary(),
        Column::new("qty", Gen::I32(small_skewed_i32), Shape::Required).dictionary(),
        Column::new("price", Gen::F64(sensor_f64), Shape::Required)
            .encoding(Encoding::BYTE_STREAM_SPLIT),
        Column::new("url", Gen::Bytes(sorted_url), Shape::Required)
            .utf8()
            .encoding(Encoding::DELTA_BYTE_ARRAY),
        Column::new("note", Gen::Bytes(word), Shape::Optional)
            .utf8()
            .encoding(Encoding::DELTA_LENGTH_BYTE_ARRAY),
        Column::new("in_stock", Gen::Bool(bool_runs), Shape::Required).encoding(Encoding::RLE),
        Column::new("rating", Gen::F32(f32_specials), Shape::Optional).encoding(Encoding::PLAIN),
        Column::new("sku", Gen::Fixed(4, code4), Shape::Required).dictionary(),
        Column::new("tags", Gen::Bytes(city), Shape::List)
            .utf8()
            .encoding(Encoding::PLAIN),
    ];
    FileSpec {
        version: WriterVersion::PARQUET_2_0,
        compression: Compression::SNAPPY,
        row_groups: 2,
        rows_per_group: 5000,
        page_rows: 1000,
        page_bytes: 16 * 1024,
        seed: 2026,
        columns,
    }
    .write()
}

/// The test set: `(file name, bytes)` of every file [`write_test_files`] writes.
///
/// - `encodings_<v1|v2>_<codec>.parquet`: all encodings and types of the module table, on
///   required, optional and list columns (see [`encodings_columns`]), for every compression
///   codec the parquet crate has, uncompressed in both page versions;
/// - `tiny_pages_v2.parquet` (pages of a few values), `one_page_v1.parquet` (one page per
///   chunk, one row group);
/// - `edge_<v1|v2>.parquet`: all-null columns, a one-entry dictionary (index width 0), only
///   empty or null lists, a row group of one row;
/// - `demo.parquet`: [`demo_file`].
pub fn test_files() -> Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    let codecs = [
        (WriterVersion::PARQUET_1_0, Compression::UNCOMPRESSED),
        (WriterVersion::PARQUET_2_0, Compression::UNCOMPRESSED),
        (WriterVersion::PARQUET_1_0, Compression::SNAPPY),
        (
            WriterVersion::PARQUET_2_0,
            Compression::GZIP(GzipLevel::default()),
        ),
        (
            WriterVersion::PARQUET_1_0,
            Compression::BROTLI(BrotliLevel::default()),
        ),
        (WriterVersion::PARQUET_2_0, Compression::LZ4_RAW),
        (
            WriterVersion::PARQUET_1_0,
            Compression::ZSTD(ZstdLevel::default()),
        ),
        (WriterVersion::PARQUET_2_0, Compression::LZ4),
    ];
    for (i, (version, compression)) in codecs.into_iter().enumerate() {
        let spec = FileSpec {
            version,
            compression,
            row_groups: 2,
            rows_per_group: 2000,
            page_rows: 500,
            page_bytes: 8 * 1024,
            seed: 100 + i as u64,
            columns: encodings_columns(),
        };
        files.push((
            format!(
                "encodings_{}_{}.parquet",
                version_name(version),
                codec_name(compression)
            ),
            spec.write()?,
        ));
    }
    files.push((
        "tiny_pages_v2.parquet".to_string(),
        FileSpec {
            version: WriterVersion::PARQUET_2_0,
            compression: Compression::UNCOMPRESSED,
            row_groups: 1,
            rows_per_group: 600,
            page_rows: 7,
            page_bytes: 64,
            seed: 7,
            columns: encodings_columns(),
        }
        .write()?,
    ));
    files.push((
        "one_page_v1.parquet".to_string(),
        FileSpec {
            version: WriterVersion::PARQUET_1_0,
            compression: Compression::UNCOMPRESSED,
            row_groups: 1,
            rows_per_group: 3000,
            page_rows: 1 << 20,
            page_bytes: 1 << 24,
            seed: 8,
            columns: encodings_columns(),
        }
        .write()?,
    ));
    for (version, seed) in [
        (WriterVersion::PARQUET_1_0, 9),
        (WriterVersion::PARQUET_2_0, 10),
    ] {
        for (rows, suffix) in [(1000, ""), (1, "_one_row")] {
            files.push((
                format!("edge_{}{suffix}.parquet", version_name(version)),
                FileSpec {
                    version,
                    compression: Compression::UNCOMPRESSED,
                    row_groups: 1,
                    rows_per_group: rows,
                    page_rows: 300,
                    page_bytes: 4096,
                    seed,
                    columns: edge_columns(),
                }
                .write()?,
            ));
        }
    }
    files.push(("demo.parquet".to_string(), demo_file()?));
    Ok(files)
}

/// Writes [`test_files`] into `dir` (which must exist); returns their paths.
pub fn write_test_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for (name, bytes) in test_files()? {
        let path = dir.join(name);
        std::fs::write(&path, bytes)?;
        paths.push(path);
    }
    Ok(paths)
}

/// `v1` or `v2`.
fn version_name(version: WriterVersion) -> &'static str {
    match version {
        WriterVersion::PARQUET_1_0 => "v1",
        WriterVersion::PARQUET_2_0 => "v2",
    }
}

/// The codec's name in a file name (`lz4_raw`).
fn codec_name(compression: Compression) -> &'static str {
    match compression {
        Compression::UNCOMPRESSED => "uncompressed",
        Compression::SNAPPY => "snappy",
        Compression::GZIP(_) => "gzip",
        Compression::LZO => "lzo",
        Compression::BROTLI(_) => "brotli",
        Compression::LZ4 => "lz4",
        Compression::ZSTD(_) => "zstd",
        Compression::LZ4_RAW => "lz4_raw",
    }
}

/// One column per (encoding, physical type) of the module table, plus lists. The names say
/// the encoding and the type (`delta_int64`), so a failing chunk in a report names itself.
pub fn encodings_columns() -> Vec<Column> {
    use Encoding::*;
    use Shape::*;
    vec![
        Column::new("plain_boolean", Gen::Bool(bool_mostly_true), Required).encoding(PLAIN),
        Column::new("plain_int32", Gen::I32(i32_extremes), Optional).encoding(PLAIN),
        Column::new("plain_int64", Gen::I64(i64_extremes), Required).encoding(PLAIN),
        Column::new("plain_int96", Gen::I96(int96_timestamp), Optional).encoding(PLAIN),
        Column::new("plain_float", Gen::F32(f32_specials), Required).encoding(PLAIN),
        Column::new("plain_double", Gen::F64(f64_specials), Optional).encoding(PLAIN),
        Column::new("plain_byte_array", Gen::Bytes(binary), Optional).encoding(PLAIN),
        Column::new("plain_flba16", Gen::Fixed(16, uuid), Required).encoding(PLAIN),
        Column::new("rle_boolean", Gen::Bool(bool_runs), Optional).encoding(RLE),
        Column::new("dict_int32", Gen::I32(small_skewed_i32), Optional).dictionary(),
        Column::new("dict_int64", Gen::I64(skewed_i64), Required).dictionary(),
        Column::new("dict_int96", Gen::I96(int96_few), Required).dictionary(),
        Column::new("dict_float", Gen::F32(f32_few), Required).dictionary(),
        Column::new("dict_double", Gen::F64(f64_few), Optional).dictionary(),
        Column::new("dict_byte_array", Gen::Bytes(city), Optional)
            .utf8()
            .dictionary(),
        Column::new("dict_flba4", Gen::Fixed(4, code4), Required).dictionary(),
        // Many distinct words and a 1 KiB dictionary limit: the writer gives up on the
        // dictionary part-way through the chunk and writes the rest with its fallback
        // encoding, so one chunk mixes RLE_DICTIONARY and PLAIN (v1) / DELTA_BYTE_ARRAY (v2).
        Column::new("dict_fallback_byte_array", Gen::Bytes(word), Required)
            .utf8()
            .dictionary()
            .dictionary_limit(1024),
        Column::new("delta_int32", Gen::I32(timestamp_i32), Required).encoding(DELTA_BINARY_PACKED),
        Column::new("delta_int64", Gen::I64(timestamp_i64), Optional).encoding(DELTA_BINARY_PACKED),
        Column::new("delta_int32_extremes", Gen::I32(i32_extremes), Required)
            .encoding(DELTA_BINARY_PACKED),
        Column::new("delta_int64_blocks", Gen::I64(i64_extremes), Required)
            .encoding(DELTA_BINARY_PACKED),
        Column::new("delta_length_byte_array", Gen::Bytes(word), Optional)
            .utf8()
            .encoding(DELTA_LENGTH_BYTE_ARRAY),
        Column::new("delta_byte_array", Gen::Bytes(sorted_url), Required)
            .utf8()
            .encoding(DELTA_BYTE_ARRAY),
        Column::new(
            "delta_byte_array_flba8",
            Gen::Fixed(8, sorted_decimal8),
            Optional,
        )
        .encoding(DELTA_BYTE_ARRAY),
        Column::new("bss_float", Gen::F32(f32_specials), Required).encoding(BYTE_STREAM_SPLIT),
        Column::new("bss_double", Gen::F64(sensor_f64), Optional).encoding(BYTE_STREAM_SPLIT),
        Column::new("bss_int32", Gen::I32(timestamp_i32), Required).encoding(BYTE_STREAM_SPLIT),
        Column::new("bss_int64", Gen::I64(i64_extremes), Optional).encoding(BYTE_STREAM_SPLIT),
        Column::new("bss_flba6", Gen::Fixed(6, measurement6), Required).encoding(BYTE_STREAM_SPLIT),
        Column::new("list_dict_int32", Gen::I32(small_skewed_i32), List).dictionary(),
        Column::new("list_plain_byte_array", Gen::Bytes(word), List)
            .utf8()
            .encoding(PLAIN),
        Column::new("list_delta_int64", Gen::I64(timestamp_i64), List)
            .encoding(DELTA_BINARY_PACKED),
        Column::new("list_bss_double", Gen::F64(f64_specials), List).encoding(BYTE_STREAM_SPLIT),
    ]
}

/// Columns whose pages are degenerate but valid: no values at all, a dictionary of one entry
/// (indices of bit width 0), lists that are all empty or null.
fn edge_columns() -> Vec<Column> {
    use Encoding::*;
    use Shape::*;
    vec![
        Column::new("all_null_dict_int32", Gen::I32(small_skewed_i32), Optional)
            .dictionary()
            .null_percent(100),
        Column::new("all_null_plain_byte_array", Gen::Bytes(word), Optional)
            .encoding(PLAIN)
            .null_percent(100),
        Column::new("all_null_delta_int64", Gen::I64(timestamp_i64), Optional)
            .encoding(DELTA_BINARY_PACKED)
            .null_percent(100),
        Column::new("all_null_bss_float", Gen::F32(f32_specials), Optional)
            .encoding(BYTE_STREAM_SPLIT)
            .null_percent(100),
        Column::new(
            "one_value_dict_byte_array",
            Gen::Bytes(constant_bytes),
            Required,
        )
        .utf8()
        .dictionary(),
        Column::new("one_value_dict_int64", Gen::I64(constant_i64), Optional).dictionary(),
        Column::new("one_value_delta_int32", Gen::I32(constant_i32), Required)
            .encoding(DELTA_BINARY_PACKED),
        Column::new(
            "empty_strings_delta_byte_array",
            Gen::Bytes(empty),
            Required,
        )
        .utf8()
        .encoding(DELTA_BYTE_ARRAY),
        Column::new("empty_strings_dlba", Gen::Bytes(empty), Optional)
            .utf8()
            .encoding(DELTA_LENGTH_BYTE_ARRAY),
        Column::new("null_or_empty_lists", Gen::I32(i32_extremes), List)
            .dictionary()
            .null_percent(100),
    ]
}

/// How a column repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `required T name`: no levels.
    Required,
    /// `optional T name`: definition levels 0 (null) or 1.
    Optional,
    /// `optional group name (LIST) { repeated group list { optional T element; } }`: the
    /// standard three-level list; definition levels 0 (null list), 1 (empty list), 2 (null
    /// element), 3 (value), repetition levels 0 (new row) or 1.
    List,
}

/// A value generator: called with the random source and the row's index in the file (so
/// that sorted columns stay sorted across row groups).
#[derive(Clone, Copy)]
pub enum Gen {
    /// BOOLEAN.
    Bool(fn(&mut Rng, usize) -> bool),
    /// INT32.
    I32(fn(&mut Rng, usize) -> i32),
    /// INT64.
    I64(fn(&mut Rng, usize) -> i64),
    /// INT96, as three little-endian words.
    I96(fn(&mut Rng, usize) -> [u32; 3]),
    /// FLOAT.
    F32(fn(&mut Rng, usize) -> f32),
    /// DOUBLE.
    F64(fn(&mut Rng, usize) -> f64),
    /// BYTE_ARRAY.
    Bytes(fn(&mut Rng, usize) -> Vec<u8>),
    /// FIXED_LEN_BYTE_ARRAY of the given length (the generator gets it too).
    Fixed(usize, fn(&mut Rng, usize, usize) -> Vec<u8>),
}

impl Gen {
    /// The physical type as the schema parser spells it.
    fn schema_type(self) -> String {
        match self {
            Gen::Bool(_) => "boolean".into(),
            Gen::I32(_) => "int32".into(),
            Gen::I64(_) => "int64".into(),
            Gen::I96(_) => "int96".into(),
            Gen::F32(_) => "float".into(),
            Gen::F64(_) => "double".into(),
            Gen::Bytes(_) => "binary".into(),
            Gen::Fixed(len, _) => format!("fixed_len_byte_array({len})"),
        }
    }
}

/// One column of a [`FileSpec`].
#[derive(Clone)]
pub struct Column {
    /// The top-level field's name.
    pub name: &'static str,
    /// Its values.
    pub gen: Gen,
    /// Required, optional or list.
    pub shape: Shape,
    /// `None`: dictionary encoding (RLE_DICTIONARY data pages, PLAIN dictionary page);
    /// otherwise the value encoding of every data page.
    pub encoding: Option<Encoding>,
    /// Dictionary page size limit in bytes, to force the writer's fallback mid-chunk.
    pub dictionary_limit: Option<usize>,
    /// Percentage of null rows (optional and list columns; for lists, of null or empty lists).
    pub null_percent: u64,
    /// A BYTE_ARRAY column of UTF-8 text (logical type STRING), so that other tools show text.
    pub utf8: bool,
}

impl Column {
    /// A column with PLAIN encoding and 12 % nulls (when it has nulls at all).
    pub fn new(name: &'static str, gen: Gen, shape: Shape) -> Self {
        Column {
            name,
            gen,
            shape,
            encoding: Some(Encoding::PLAIN),
            dictionary_limit: None,
            null_percent: 12,
            utf8: false,
        }
    }

    /// Text: the STRING logical type on a BYTE_ARRAY column.
    pub fn utf8(mut self) -> Self {
        self.utf8 = true;
        self
    }

    /// Data pages in `encoding`.
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = Some(encoding);
        self
    }

    /// Dictionary encoded.
    pub fn dictionary(mut self) -> Self {
        self.encoding = None;
        self
    }

    /// Dictionary page size limit.
    pub fn dictionary_limit(mut self, bytes: usize) -> Self {
        self.dictionary_limit = Some(bytes);
        self
    }

    /// Percentage of null rows.
    pub fn null_percent(mut self, percent: u64) -> Self {
        self.null_percent = percent;
        self
    }

    /// The column's schema fragment.
    fn schema(&self) -> String {
        let ty = self.gen.schema_type();
        let annotation = if self.utf8 { " (UTF8)" } else { "" };
        match self.shape {
            Shape::Required => format!("required {ty} {}{annotation};", self.name),
            Shape::Optional => format!("optional {ty} {}{annotation};", self.name),
            Shape::List => format!(
                "optional group {} (LIST) {{ repeated group list {{ optional {ty} \
                 element{annotation}; }} }}",
                self.name
            ),
        }
    }

    /// The leaf's path (what writer properties are keyed by).
    fn path(&self) -> ColumnPath {
        match self.shape {
            Shape::List => ColumnPath::new(vec![
                self.name.to_string(),
                "list".to_string(),
                "element".to_string(),
            ]),
            _ => ColumnPath::new(vec![self.name.to_string()]),
        }
    }

    /// Sets this column's writer properties.
    fn configure(&self, mut props: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
        let path = self.path();
        match self.encoding {
            None => {
                props = props.set_column_dictionary_enabled(path.clone(), true);
            }
            Some(encoding) => {
                props = props
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path.clone(), encoding);
            }
        }
        if let Some(limit) = self.dictionary_limit {
            props = props.set_column_dictionary_page_size_limit(path.clone(), limit);
        }
        props
    }
}

/// A file to write: page version, codec, sizes, columns.
pub struct FileSpec {
    /// PARQUET_1_0: data pages v1; PARQUET_2_0: data pages v2.
    pub version: WriterVersion,
    /// Every column's codec.
    pub compression: Compression,
    /// Number of row groups.
    pub row_groups: usize,
    /// Rows in each row group.
    pub rows_per_group: usize,
    /// Data page row count limit.
    pub page_rows: usize,
    /// Data page size limit in bytes.
    pub page_bytes: usize,
    /// Seed of the values.
    pub seed: u64,
    /// The columns.
    pub columns: Vec<Column>,
}

impl FileSpec {
    /// Writes the file in memory.
    pub fn write(&self) -> Result<Vec<u8>> {
        let fields: String = self.columns.iter().map(|c| c.schema() + " ").collect();
        let schema = parse_message_type(&format!("message schema {{ {fields}}}"))?;
        let mut props = WriterProperties::builder()
            .set_writer_version(self.version)
            .set_compression(self.compression)
            .set_dictionary_enabled(false)
            .set_data_page_row_count_limit(self.page_rows)
            .set_data_page_size_limit(self.page_bytes)
            // The page limits are checked between write batches: small batches make them bite.
            .set_write_batch_size(self.page_rows.clamp(1, 256))
            .set_created_by("qpl-rs examples (arrow-rs parquet writer)".to_string());
        for column in &self.columns {
            props = column.configure(props);
        }
        let mut file = Vec::new();
        let mut writer =
            SerializedFileWriter::new(&mut file, Arc::new(schema), Arc::new(props.build()))?;
        let mut rng = Rng::new(self.seed);
        for group in 0..self.row_groups {
            let first_row = group * self.rows_per_group;
            let mut row_group = writer.next_row_group()?;
            for column in &self.columns {
                let mut column_writer = row_group
                    .next_column()?
                    .expect("one column writer per schema leaf");
                write_column(
                    &mut column_writer,
                    column,
                    first_row,
                    self.rows_per_group,
                    &mut rng,
                )?;
                column_writer.close()?;
            }
            row_group.close()?;
        }
        writer.close()?;
        Ok(file)
    }
}

/// Generates a column's rows `first_row..first_row + rows` and writes them.
fn write_column(
    writer: &mut SerializedColumnWriter<'_>,
    column: &Column,
    first_row: usize,
    rows: usize,
    rng: &mut Rng,
) -> Result<()> {
    let shape = |rng: &mut Rng| Levels::new(column.shape, column.null_percent, rows, rng);
    match column.gen {
        Gen::Bool(f) => write_typed::<BoolType>(writer, shape(rng), first_row, rng, f),
        Gen::I32(f) => write_typed::<Int32Type>(writer, shape(rng), first_row, rng, f),
        Gen::I64(f) => write_typed::<Int64Type>(writer, shape(rng), first_row, rng, f),
        Gen::I96(f) => write_typed::<Int96Type>(writer, shape(rng), first_row, rng, |r, i| {
            Int96::from(f(r, i).to_vec())
        }),
        Gen::F32(f) => write_typed::<FloatType>(writer, shape(rng), first_row, rng, f),
        Gen::F64(f) => write_typed::<DoubleType>(writer, shape(rng), first_row, rng, f),
        Gen::Bytes(f) => {
            write_typed::<ByteArrayType>(writer, shape(rng), first_row, rng, |r, i| {
                ByteArray::from(f(r, i))
            })
        }
        Gen::Fixed(len, f) => {
            write_typed::<FixedLenByteArrayType>(writer, shape(rng), first_row, rng, |r, i| {
                let bytes = f(r, i, len);
                debug_assert_eq!(bytes.len(), len);
                FixedLenByteArray::from(bytes)
            })
        }
    }
}

/// Writes one value per "value" level of `levels`, generated by `value(rng, row)`.
fn write_typed<T: DataType>(
    writer: &mut SerializedColumnWriter<'_>,
    levels: Levels,
    first_row: usize,
    rng: &mut Rng,
    mut value: impl FnMut(&mut Rng, usize) -> T::T,
) -> Result<()> {
    let values: Vec<T::T> = levels
        .value_rows
        .iter()
        .map(|&row| value(rng, first_row + row))
        .collect();
    writer
        .typed::<T>()
        .write_batch(&values, levels.def.as_deref(), levels.rep.as_deref())?;
    Ok(())
}

/// A column's levels and, for each value present, the row it belongs to.
struct Levels {
    def: Option<Vec<i16>>,
    rep: Option<Vec<i16>>,
    value_rows: Vec<usize>,
}

impl Levels {
    fn new(shape: Shape, null_percent: u64, rows: usize, rng: &mut Rng) -> Levels {
        match shape {
            Shape::Required => Levels {
                def: None,
                rep: None,
                value_rows: (0..rows).collect(),
            },
            Shape::Optional => {
                let mut def = Vec::with_capacity(rows);
                let mut null_run = 0;
                for _ in 0..rows {
                    // Nulls come in runs (a sensor offline for a while), not only alone.
                    if null_run == 0 && rng.below(100) < null_percent {
                        null_run = if rng.below(8) == 0 {
                            1 + rng.below(60)
                        } else {
                            1
                        };
                    }
                    if null_percent >= 100 || null_run > 0 {
                        def.push(0);
                        null_run = null_run.saturating_sub(1);
                    } else {
                        def.push(1);
                    }
                }
                let value_rows = (0..rows).filter(|&r| def[r] == 1).collect();
                Levels {
                    def: Some(def),
                    rep: None,
                    value_rows,
                }
            }
            Shape::List => {
                let (mut def, mut rep, mut value_rows) = (Vec::new(), Vec::new(), Vec::new());
                for row in 0..rows {
                    if null_percent >= 100 || rng.below(100) < null_percent {
                        // A null list or an empty list: one level, no value.
                        def.push(if rng.below(2) == 0 { 0 } else { 1 });
                        rep.push(0);
                        continue;
                    }
                    let max_len = if rng.below(10) == 0 { 40 } else { 5 };
                    let len = 1 + rng.below(max_len);
                    for k in 0..len {
                        rep.push(if k == 0 { 0 } else { 1 });
                        if rng.below(10) == 0 {
                            def.push(2);
                        } else {
                            def.push(3);
                            value_rows.push(row);
                        }
                    }
                }
                Levels {
                    def: Some(def),
                    rep: Some(rep),
                    value_rows,
                }
            }
        }
    }
}

/// Deterministic xorshift64 (reproducible files, no dependency).
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(mix(seed) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Skewed towards 0 in `0..n` (Zipf-like: the minimum of two draws, sometimes narrowed).
    pub fn skewed(&mut self, n: u64) -> u64 {
        let id = self.below(n).min(self.below(n));
        if self.below(3) == 0 {
            self.below(id + 1)
        } else {
            id
        }
    }
}

/// splitmix64's finaliser: a fixed pseudo-random function of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

// ---- value generators ----

fn bool_mostly_true(rng: &mut Rng, _: usize) -> bool {
    rng.below(10) != 0
}

/// Long runs (RLE runs in the hybrid encoding), with some noise (bit-packed groups).
fn bool_runs(rng: &mut Rng, row: usize) -> bool {
    let run = mix(row as u64 / 50) & 1 == 1;
    if rng.below(20) == 0 {
        !run
    } else {
        run
    }
}

/// Full-range values with the extremes next to each other every few rows, so that deltas
/// overflow and wrap.
fn i32_extremes(rng: &mut Rng, row: usize) -> i32 {
    match row % 7 {
        0 => i32::MIN,
        1 => i32::MAX,
        2 => 0,
        3 => -1,
        4 => rng.below(100) as i32,
        _ => rng.next_u64() as i32,
    }
}

/// As [`i32_extremes`], 64-bit.
fn i64_extremes(rng: &mut Rng, row: usize) -> i64 {
    match row % 7 {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 0,
        3 => -1,
        4 => rng.below(1000) as i64,
        _ => rng.next_u64() as i64,
    }
}

/// Seconds, increasing with jitter, with a spike to the extremes every 997 rows.
fn timestamp_i32(rng: &mut Rng, row: usize) -> i32 {
    match row % 997 {
        500 => i32::MAX,
        501 => i32::MIN,
        _ => 1_600_000_000 + (row as i32).wrapping_mul(3) + rng.below(5) as i32,
    }
}

/// Microseconds, increasing with jitter, with a spike to the extremes every 997 rows.
fn timestamp_i64(rng: &mut Rng, row: usize) -> i64 {
    match row % 997 {
        300 => i64::MIN,
        301 => i64::MAX,
        _ => 1_700_000_000_000_000 + row as i64 * 1_000_000 + rng.below(1000) as i64,
    }
}

/// A row id: 1, 2, 3, ... (one DELTA miniblock of width 0 per block).
fn sequential_id(_: &mut Rng, row: usize) -> i64 {
    row as i64 + 1
}

/// Quantities: 50 distinct small values, skewed, in runs.
fn small_skewed_i32(rng: &mut Rng, row: usize) -> i32 {
    let id = if rng.below(4) == 0 {
        (mix(row as u64 / 30) % 50) as i32
    } else {
        rng.skewed(50) as i32
    };
    id * 10 - 100
}

/// Ids from 300 distinct large values, skewed.
fn skewed_i64(rng: &mut Rng, _: usize) -> i64 {
    mix(rng.skewed(300)) as i64
}

/// Nanoseconds-of-day and Julian day, as old writers stored timestamps.
fn int96_timestamp(rng: &mut Rng, row: usize) -> [u32; 3] {
    let nanos = (row as u64 % 86_400) * 1_000_000_000 + rng.below(1_000_000_000);
    [
        nanos as u32,
        (nanos >> 32) as u32,
        2_459_000 + (row / 1000) as u32,
    ]
}

/// INT96 from 20 distinct values.
fn int96_few(rng: &mut Rng, _: usize) -> [u32; 3] {
    let id = rng.skewed(20);
    [
        mix(id) as u32,
        (mix(id) >> 32) as u32,
        2_459_000 + id as u32,
    ]
}

/// Prices with the special values: NaN, ±inf, -0.0, a subnormal.
fn f32_specials(rng: &mut Rng, row: usize) -> f32 {
    match row % 101 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => f32::MIN_POSITIVE / 2.0,
        5 => f32::MAX,
        _ => rng.below(100_000) as f32 / 100.0,
    }
}

/// As [`f32_specials`], 64-bit.
fn f64_specials(rng: &mut Rng, row: usize) -> f64 {
    match row % 101 {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => -0.0,
        4 => f64::MIN_POSITIVE / 2.0,
        5 => f64::MIN,
        _ => rng.below(10_000_000) as f64 / 1000.0,
    }
}

/// Few distinct floats, NaN among them.
fn f32_few(rng: &mut Rng, _: usize) -> f32 {
    [0.5, 1.0, 2.5, f32::NAN, -0.0, 99.99, 1e-7, -3.25][rng.skewed(8) as usize]
}

/// Few distinct doubles.
fn f64_few(rng: &mut Rng, _: usize) -> f64 {
    (rng.skewed(40) as f64) * 0.25 - 3.0
}

/// A smooth signal with noise (what BYTE_STREAM_SPLIT is for).
fn sensor_f64(rng: &mut Rng, row: usize) -> f64 {
    20.0 + 5.0 * (row as f64 * 0.01).sin() + rng.below(1000) as f64 / 10_000.0
}

/// Arbitrary bytes (not UTF-8), lengths 0..=40, some empty.
fn binary(rng: &mut Rng, _: usize) -> Vec<u8> {
    let len = if rng.below(10) == 0 {
        0
    } else {
        rng.below(41) as usize
    };
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// Words of 0..=12 lowercase letters, from a large vocabulary (many distinct).
fn word(rng: &mut Rng, _: usize) -> Vec<u8> {
    let len = if rng.below(20) == 0 {
        0
    } else {
        1 + rng.below(12) as usize
    };
    (0..len).map(|_| b'a' + rng.skewed(26) as u8).collect()
}

/// City names: skewed, the empty string among them.
fn city(rng: &mut Rng, _: usize) -> Vec<u8> {
    const CITIES: [&str; 24] = [
        "Paris",
        "London",
        "Berlin",
        "Madrid",
        "Rome",
        "Vienna",
        "Prague",
        "Warsaw",
        "Amsterdam",
        "Brussels",
        "Lisbon",
        "Dublin",
        "",
        "Zürich",
        "Oslo",
        "Helsinki",
        "Stockholm",
        "Copenhagen",
        "Athens",
        "Budapest",
        "Bucharest",
        "Sofia",
        "Riga",
        "Tallinn",
    ];
    CITIES[rng.skewed(CITIES.len() as u64) as usize]
        .as_bytes()
        .to_vec()
}

/// Sorted URLs with long shared prefixes (what DELTA_BYTE_ARRAY is for).
fn sorted_url(_: &mut Rng, row: usize) -> Vec<u8> {
    format!(
        "https://shop.example.com/catalogue/category-{:03}/item-{:07}",
        row / 250,
        row
    )
    .into_bytes()
}

/// The same string in every row.
fn constant_bytes(_: &mut Rng, _: usize) -> Vec<u8> {
    b"constant".to_vec()
}

/// The same number in every row.
fn constant_i64(_: &mut Rng, _: usize) -> i64 {
    -42
}

/// The same number in every row.
fn constant_i32(_: &mut Rng, _: usize) -> i32 {
    7
}

/// The empty string in every row.
fn empty(_: &mut Rng, _: usize) -> Vec<u8> {
    Vec::new()
}

/// 16 random bytes (a UUID).
fn uuid(rng: &mut Rng, _: usize, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// Product codes `AB12` from a small set.
fn code4(rng: &mut Rng, _: usize, len: usize) -> Vec<u8> {
    let id = rng.skewed(60) as u8;
    let mut code = vec![b'A' + id / 26 % 26, b'A' + id % 26, b'0' + id % 10, b'7'];
    code.resize(len, b'0');
    code
}

/// Increasing big-endian decimals (a DECIMAL(18) column): long shared prefixes.
fn sorted_decimal8(rng: &mut Rng, row: usize, len: usize) -> Vec<u8> {
    let value = 1_000_000_000u64 + row as u64 * 97 + rng.below(50);
    value.to_be_bytes()[8 - len.min(8)..].to_vec()
}

/// Six-byte measurements: a slowly varying high part and a noisy low part.
fn measurement6(rng: &mut Rng, row: usize, len: usize) -> Vec<u8> {
    let value = ((row as u64 / 64) << 24) | rng.below(1 << 12);
    value.to_le_bytes()[..len.min(8)].to_vec()
}
