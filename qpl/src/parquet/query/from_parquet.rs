//! Pages from the `parquet` crate's readers (feature `parquet`): a column chunk read by name
//! from a row group, as the [`ColumnChunk`] [`filter`](super::filter) and
//! [`gather`](super::gather) take.

use parquet::basic::Type as PqType;
use parquet::column::page::Page as CratePage;
use parquet::file::reader::RowGroupReader;
use parquet::schema::types::ColumnDescriptor;

use super::{ColumnChunk, QueryError, QueryErrorKind};
use crate::parquet::{Column, Encoding, Page, PhysicalType};

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
            return Err(error(
                None,
                match found.len() {
                    0 => format!("no such column (the row group has: {})", names.join(", ")),
                    n => format!("the name fits {n} leaves: {}", names.join(", ")),
                },
            ));
        };
        let descr = schema.column(index);
        let column = column_of(&descr).map_err(|m| error(None, m))?;
        let mut reader = row_group
            .get_column_page_reader(index)
            .map_err(|e| error(None, e.to_string()))?;
        let mut pages = Vec::new();
        loop {
            match reader.get_next_page() {
                Ok(Some(page)) => pages.push(page),
                Ok(None) => break,
                Err(e) => return Err(error(Some(pages.len()), e.to_string())),
            }
        }
        Ok(ChunkPages {
            name: descr.path().string(),
            column,
            pages,
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
        Ok(ColumnChunk::new(self.name.clone(), self.column, pages))
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
