//! Pages from the `parquet` crate's readers (feature `parquet`): a column chunk read by name
//! from a row group, as the [`ColumnChunk`] [`filter`](super::filter) and
//! [`gather`](super::gather) take.

use std::sync::Arc;

use parquet::basic::{Compression, Type as PqType};
use parquet::column::page::{Page as CratePage, PageReader};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, RowGroupReader};
use parquet::file::serialized_reader::SerializedPageReader;
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

use super::{ColumnChunk, QueryError, QueryErrorKind};
use crate::parquet::{Codec, Column, Encoding, Page, PageCompression, PhysicalType};

/// A column chunk's pages as the `parquet` crate read them (decompressed), with the column's
/// name and [`Column`].
#[derive(Clone)]
pub struct ChunkPages {
    /// The column's dotted path.
    pub name: String,
    /// The column.
    pub column: Column,
    /// The pages in order.
    pub pages: Vec<CratePage>,
    /// How each page is stored (empty: all decompressed, as [`ChunkPages::read`] gives them;
    /// [`ChunkPages::read_stored`] keeps GZIP pages compressed).
    pub compression: Vec<PageCompression>,
}

impl ChunkPages {
    /// Reads the chunk of the column called `name` (its dotted path, or a top-level field
    /// with one leaf) from `row_group`.
    pub fn read(row_group: &dyn RowGroupReader, name: &str) -> Result<ChunkPages, QueryError> {
        let error = |page, message: String| QueryError {
            column: name.to_string(),
            page,
            kind: QueryErrorKind::Invalid(message),
        };
        let schema = row_group.metadata().schema_descr();
        let index = leaf_index(schema, name).map_err(|m| error(None, m))?;
        let descr = schema.column(index);
        let column = column_of(&descr).map_err(|m| error(None, m))?;
        let mut reader = row_group
            .get_column_page_reader(index)
            .map_err(|e| error(None, e.to_string()))?;
        let pages = read_pages(reader.as_mut(), |_| {}).map_err(|(at, m)| error(Some(at), m))?;
        Ok(ChunkPages {
            name: descr.path().string(),
            column,
            pages,
            compression: Vec::new(),
        })
    }

    /// Reads the chunk of the column called `name` from row group `row_group` of the file
    /// `reader` holds (whose footer is `metadata`), keeping GZIP pages as they are stored
    /// (see [`stored_page_reader`]): [`filter`](super::filter) then scans them in
    /// decompress-enabled jobs. A chunk of another codec is decompressed by the `parquet`
    /// crate's reader, as [`ChunkPages::read`] does.
    pub fn read_stored<R: ChunkReader + 'static>(
        reader: Arc<R>,
        metadata: &ParquetMetaData,
        row_group: usize,
        name: &str,
    ) -> Result<ChunkPages, QueryError> {
        let error = |page, message: String| QueryError {
            column: name.to_string(),
            page,
            kind: QueryErrorKind::Invalid(message),
        };
        let group = metadata
            .row_groups()
            .get(row_group)
            .ok_or_else(|| error(None, format!("the file has no row group {row_group}")))?;
        let schema = group.schema_descr();
        let index = leaf_index(schema, name).map_err(|m| error(None, m))?;
        let descr = schema.column(index);
        let column = column_of(&descr).map_err(|m| error(None, m))?;
        let (mut pages_reader, codec) =
            stored_page_reader(reader, metadata, row_group, index).map_err(|m| error(None, m))?;
        let mut compression = Vec::new();
        let pages = read_pages(pages_reader.as_mut(), |page| {
            compression.push(compression_of(page, codec))
        })
        .map_err(|(at, m)| error(Some(at), m))?;
        Ok(ChunkPages {
            name: descr.path().string(),
            column,
            pages,
            compression,
        })
    }

    /// The chunk as [`filter`](super::filter) and [`gather`](super::gather) take it
    /// (borrowing the pages' bytes).
    pub fn chunk(&self) -> Result<ColumnChunk<'_>, QueryError> {
        let pages = self
            .pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                page_of(page).map_err(|m| QueryError {
                    column: self.name.clone(),
                    page: Some(i),
                    kind: QueryErrorKind::Unsupported(m),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(ColumnChunk::new(self.name.clone(), self.column, pages)
            .with_compression(self.compression.clone()))
    }
}

/// The leaf of `schema` called `name`: its dotted path, or a top-level field with one leaf;
/// else a message naming the leaves.
pub(crate) fn leaf_index(schema: &SchemaDescriptor, name: &str) -> Result<usize, String> {
    let leaves = 0..schema.num_columns();
    let by_path: Vec<usize> = leaves
        .clone()
        .filter(|&i| schema.column(i).path().string() == name)
        .collect();
    let found: Vec<usize> = if by_path.is_empty() {
        leaves
            .clone()
            .filter(|&i| schema.column(i).path().parts()[0] == name)
            .collect()
    } else {
        by_path
    };
    let [index] = found[..] else {
        let names: Vec<String> = leaves.map(|i| schema.column(i).path().string()).collect();
        return Err(match found.len() {
            0 => format!("no such column (the row group has: {})", names.join(", ")),
            n => format!("the name fits {n} leaves: {}", names.join(", ")),
        });
    };
    Ok(index)
}

/// Every page `reader` gives, in order, each shown to `each` as it comes; an error with the
/// number of pages read before it.
fn read_pages(
    reader: &mut dyn PageReader,
    mut each: impl FnMut(&CratePage),
) -> Result<Vec<CratePage>, (usize, String)> {
    let mut pages = Vec::new();
    loop {
        match reader.get_next_page() {
            Ok(Some(page)) => {
                each(&page);
                pages.push(page);
            }
            Ok(None) => return Ok(pages),
            Err(e) => return Err((pages.len(), e.to_string())),
        }
    }
}

/// The page layer's [`Column`] for a schema leaf.
pub fn column_of(descr: &ColumnDescriptor) -> Result<Column, String> {
    let physical_type = match descr.physical_type() {
        PqType::BOOLEAN => PhysicalType::Boolean,
        PqType::INT32 => PhysicalType::Int32,
        PqType::INT64 => PhysicalType::Int64,
        PqType::INT96 => PhysicalType::Int96,
        PqType::FLOAT => PhysicalType::Float,
        PqType::DOUBLE => PhysicalType::Double,
        PqType::BYTE_ARRAY => PhysicalType::ByteArray,
        PqType::FIXED_LEN_BYTE_ARRAY => match usize::try_from(descr.type_length()) {
            Ok(len) if len > 0 => PhysicalType::FixedLenByteArray(len),
            _ => {
                return Err(format!(
                    "FIXED_LEN_BYTE_ARRAY with type_length {}",
                    descr.type_length()
                ))
            }
        },
    };
    Ok(Column {
        physical_type,
        max_def_level: descr.max_def_level(),
        max_rep_level: descr.max_rep_level(),
    })
}

fn encoding(encoding: parquet::basic::Encoding) -> Result<Encoding, String> {
    let name = encoding.to_string();
    Encoding::from_name(&name).ok_or_else(|| format!("encoding {name} is not supported"))
}

/// The page layer's view of a page the `parquet` crate read (and decompressed).
pub fn page_of(page: &CratePage) -> Result<Page<'_>, String> {
    Ok(match page {
        CratePage::DictionaryPage {
            buf,
            num_values,
            encoding: e,
            ..
        } => Page::Dictionary {
            buf,
            num_values: *num_values,
            encoding: encoding(*e)?,
        },
        CratePage::DataPage {
            buf,
            num_values,
            encoding: e,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => Page::V1 {
            buf,
            num_values: *num_values,
            encoding: encoding(*e)?,
            def_level_encoding: encoding(*def_level_encoding)?,
            rep_level_encoding: encoding(*rep_level_encoding)?,
        },
        CratePage::DataPageV2 {
            buf,
            num_values,
            encoding: e,
            num_nulls,
            def_levels_byte_len,
            rep_levels_byte_len,
            ..
        } => Page::V2 {
            buf,
            num_values: *num_values,
            num_nulls: *num_nulls,
            encoding: encoding(*e)?,
            def_levels_byte_len: *def_levels_byte_len,
            rep_levels_byte_len: *rep_levels_byte_len,
        },
    })
}

/// A page reader over column `column` of row group `row_group` that yields GZIP pages as they
/// are stored (not inflated), with the chunk's [`Codec`]; other codecs are decompressed by the
/// `parquet` crate (their pages come out uncompressed: [`Codec::Uncompressed`]).
///
/// The `parquet` crate (60) decompresses in its page reader and keeps its page header type
/// private; its reader decompresses only when the chunk's metadata names a codec, so the
/// chunk is read with the same metadata marked UNCOMPRESSED: the pages and their header fields
/// come out as stored (a v2 page's `is_compressed` too). What is lost is the header's
/// `uncompressed_page_size` (not in the crate's `Page`): [`PageCompression::uncompressed_size`]
/// stays `None`, and the inflation is bounded by `max_output_bytes`. Encrypted chunks are not
/// read this way (an error of the crate's reader).
pub fn stored_page_reader<R: ChunkReader + 'static>(
    reader: Arc<R>,
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Result<(Box<dyn PageReader>, Codec), String> {
    let group = metadata
        .row_groups()
        .get(row_group)
        .ok_or_else(|| format!("the file has no row group {row_group}"))?;
    let chunk = group
        .columns()
        .get(column)
        .ok_or_else(|| format!("row group {row_group} has no column {column}"))?;
    let rows = usize::try_from(group.num_rows()).map_err(|e| e.to_string())?;
    let (meta, codec) = match chunk.compression() {
        Compression::GZIP(_) => (
            chunk
                .clone()
                .into_builder()
                .set_compression(Compression::UNCOMPRESSED)
                .build()
                .map_err(|e| e.to_string())?,
            Codec::Gzip,
        ),
        _ => (chunk.clone(), Codec::Uncompressed),
    };
    let pages = SerializedPageReader::new(reader, &meta, rows, None).map_err(|e| e.to_string())?;
    Ok((Box::new(pages), codec))
}

/// How a page from [`stored_page_reader`] of a chunk of `codec` is stored: a v2 page whose
/// header says `is_compressed = false` is not compressed.
pub fn compression_of(page: &CratePage, codec: Codec) -> PageCompression {
    match page {
        CratePage::DataPageV2 {
            is_compressed: false,
            ..
        } => PageCompression::NONE,
        _ => PageCompression {
            codec,
            uncompressed_size: None,
        },
    }
}
