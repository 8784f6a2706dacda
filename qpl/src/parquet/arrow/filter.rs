//! A [`RowFilter`] evaluated with the query API, row group by row group: each predicate's
//! column chunk is read and [`filter`]ed (dictionary chunks by index scans on the path), the
//! rows where all hold kept.

use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;

use super::chunk_bytes::{ChunkSource, DynSource};
use super::RowFilter;
use crate::parquet::query::{
    chunk_page_reader, column_of, filter, leaf_index, page_of, ColumnChunk,
};
use crate::Executor;

/// The rows of `row_groups` (in order, one after another) where every predicate holds, one
/// bit a row.
pub(crate) fn evaluate(
    input: Arc<dyn ChunkSource>,
    metadata: &Arc<ParquetMetaData>,
    row_groups: &[usize],
    row_filter: &RowFilter,
    executor: &Executor,
) -> Result<BooleanBuffer, ParquetError> {
    let schema = metadata.file_metadata().schema_descr();
    let mut leaves = Vec::new();
    for (name, predicate) in row_filter.predicates() {
        let leaf = leaf_index(schema, name)
            .map_err(|m| ParquetError::General(format!("row filter on {name}: {m}")))?;
        leaves.push((leaf, predicate));
    }
    let mut kept = BooleanBufferBuilder::new(0);
    for &row_group in row_groups {
        let group = metadata.row_group(row_group);
        let rows = group.num_rows() as usize;
        let mut keep: Option<BooleanBuffer> = None;
        for &(leaf, predicate) in &leaves {
            let descr = schema.column(leaf);
            let name = descr.path().string();
            let error =
                |m: String| ParquetError::General(format!("row filter, column {name}: {m}"));
            let column = column_of(&descr).map_err(error)?;
            let mut reader =
                chunk_page_reader(&DynSource(Arc::clone(&input)), metadata, row_group, leaf)?;
            let mut pages = Vec::new();
            while let Some(page) = reader.get_next_page()? {
                pages.push(page);
            }
            let views = pages
                .iter()
                .map(page_of)
                .collect::<Result<Vec<_>, _>>()
                .map_err(error)?;
            let chunk = ColumnChunk::new(name.clone(), column, views);
            let matched = filter(&chunk, predicate, executor)
                .map_err(|e| ParquetError::General(format!("row filter: {e}")))?;
            if matched.rows.len() != rows {
                return Err(error(format!(
                    "the chunk holds {} rows, its row group {rows}",
                    matched.rows.len()
                )));
            }
            let matched = BooleanBuffer::from(matched.rows);
            keep = Some(match keep {
                None => matched,
                Some(keep) => &keep & &matched,
            });
        }
        match keep {
            None => kept.append_n(rows, true),
            Some(keep) => kept.append_buffer(&keep),
        }
    }
    Ok(kept.finish())
}
