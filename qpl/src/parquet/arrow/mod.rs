//! Parquet files into Arrow [`RecordBatch`]es (features `parquet` and `arrow`): a drop-in for
//! arrow-rs's `ParquetRecordBatchReaderBuilder`, whose pages are decoded by this project (the
//! levels, dictionary indices and booleans on the [`Path`], IAA where present).
//!
//! Switching is a change of import: the builder takes the same [`ChunkReader`]s (`File`,
//! `Bytes`), the same [`ProjectionMask`], [`RowSelection`], row groups, batch size, limit and
//! offset, and gives the same batches (schema, values, nulls). On top of arrow-rs's options:
//! [`with_path`](ParquetRecordBatchReaderBuilder::with_path) /
//! [`with_executor`](ParquetRecordBatchReaderBuilder::with_executor),
//! [`with_threads`](ParquetRecordBatchReaderBuilder::with_threads), and a [`RowFilter`] of
//! the query API's predicates, evaluated on the [`Path`] (dictionary columns by index scans).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch, StringArray};
//! use bytes::Bytes;
//! use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder;
//!
//! # let batch = RecordBatch::try_from_iter([
//! #     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
//! #     ("name", Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as _),
//! # ])?;
//! # let mut file = Vec::new();
//! # let mut writer = parquet::arrow::ArrowWriter::try_new(&mut file, batch.schema(), None)?;
//! # writer.write(&batch)?;
//! # writer.close()?;
//! let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))?
//!     .with_batch_size(8192)
//!     .build()?;
//! for batch in reader {
//!     let batch = batch?;
//!     assert_eq!(batch.num_rows(), 3);
//! }
//! # Ok(())
//! # }
//! ```

mod chunk_bytes;

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader as ArrowRsReader,
    ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
};
pub use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
pub use parquet::arrow::ProjectionMask;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
pub use parquet::file::reader::ChunkReader;
use parquet::schema::types::SchemaDescriptor;

use crate::parquet::query::Predicate;
use crate::{Executor, Path};

pub use chunk_bytes::SharedReader;

/// The batch size arrow-rs's builder starts with.
const DEFAULT_BATCH_SIZE: usize = 1024;

/// A conjunction of predicates on leaf columns (named by their dotted path, or a top-level
/// field with one leaf), evaluated before the other columns are decoded: a row is kept when
/// every predicate holds on it. Predicates are the query API's ([`Predicate`]): nulls never
/// match, comparisons are the physical type's (see [`crate::parquet::query`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowFilter {
    predicates: Vec<(String, Predicate)>,
}

impl RowFilter {
    /// No predicate: every row is kept.
    pub fn new() -> RowFilter {
        RowFilter::default()
    }

    /// Adds `predicate` on `column` (AND).
    pub fn and(mut self, column: impl Into<String>, predicate: Predicate) -> RowFilter {
        self.predicates.push((column.into(), predicate));
        self
    }

    /// The predicates, with their columns, in the order they were added.
    pub fn predicates(&self) -> &[(String, Predicate)] {
        &self.predicates
    }

    /// Whether there is no predicate.
    pub fn is_empty(&self) -> bool {
        self.predicates.is_empty()
    }
}

/// Builds a [`ParquetRecordBatchReader`]: arrow-rs's builder, method for method, plus the
/// [`Path`], threads and a pushed-down [`RowFilter`].
pub struct ParquetRecordBatchReaderBuilder<T: ChunkReader + 'static> {
    input: SharedReader<T>,
    metadata: ArrowReaderMetadata,
    projection: ProjectionMask,
    row_groups: Option<Vec<usize>>,
    batch_size: usize,
    selection: Option<RowSelection>,
    limit: Option<usize>,
    offset: Option<usize>,
    filter: Option<RowFilter>,
    executor: Executor,
    threads: usize,
}

impl<T: ChunkReader + 'static> ParquetRecordBatchReaderBuilder<T> {
    /// Reads the footer of `reader` (default options).
    pub fn try_new(reader: T) -> Result<Self, ParquetError> {
        Self::try_new_with_options(reader, ArrowReaderOptions::new())
    }

    /// Reads the footer of `reader` with arrow-rs's `options` (the embedded Arrow schema, a
    /// supplied schema, the page index).
    pub fn try_new_with_options(
        reader: T,
        options: ArrowReaderOptions,
    ) -> Result<Self, ParquetError> {
        let metadata = ArrowReaderMetadata::load(&reader, options)?;
        Ok(Self::new_with_metadata(reader, metadata))
    }

    /// A builder over `input` whose footer was already read (`metadata`).
    pub fn new_with_metadata(input: T, metadata: ArrowReaderMetadata) -> Self {
        let projection = ProjectionMask::all();
        ParquetRecordBatchReaderBuilder {
            input: SharedReader::new(input),
            metadata,
            projection,
            row_groups: None,
            batch_size: DEFAULT_BATCH_SIZE,
            selection: None,
            limit: None,
            offset: None,
            filter: None,
            executor: Executor::new(Path::Auto),
            threads: 1,
        }
    }

    /// The file's footer.
    pub fn metadata(&self) -> &Arc<ParquetMetaData> {
        self.metadata.metadata()
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &SchemaDescriptor {
        self.metadata.parquet_schema()
    }

    /// The file's Arrow schema (before projection), as arrow-rs gives it.
    pub fn schema(&self) -> &SchemaRef {
        self.metadata.schema()
    }

    /// Rows per batch (the last batch may have fewer). arrow-rs's default: 1024.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Reads only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: Vec<usize>) -> Self {
        self.row_groups = Some(row_groups);
        self
    }

    /// Reads only the leaves `mask` selects.
    pub fn with_projection(mut self, mask: ProjectionMask) -> Self {
        self.projection = mask;
        self
    }

    /// Reads only the rows `selection` selects (of the row groups read, in order).
    pub fn with_row_selection(mut self, selection: RowSelection) -> Self {
        self.selection = Some(selection);
        self
    }

    /// Keeps only the rows where every predicate of `filter` holds, evaluated before the other
    /// columns are decoded.
    pub fn with_row_filter(mut self, filter: RowFilter) -> Self {
        self.filter = Some(filter);
        self
    }

    /// At most `limit` rows (after the selection, the filter and the offset).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skips the first `offset` rows (after the selection and the filter).
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Decodes levels, dictionary indices and booleans on `path` (default [`Path::Auto`]).
    pub fn with_path(self, path: Path) -> Self {
        self.with_executor(Executor::new(path))
    }

    /// Runs the jobs on `executor` (its path, and its `max_output_bytes`, which bounds what
    /// one page may decode).
    pub fn with_executor(mut self, executor: Executor) -> Self {
        self.executor = executor;
        self
    }

    /// Decodes the projected columns of a row group on `threads` threads (1: on the caller's
    /// thread, the default). Batches come in order whatever the count.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The reader.
    pub fn build(self) -> Result<ParquetRecordBatchReader, ParquetError> {
        let mut builder = ArrowRsBuilder::new_with_metadata(self.input, self.metadata)
            .with_projection(self.projection)
            .with_batch_size(self.batch_size);
        if let Some(row_groups) = self.row_groups {
            builder = builder.with_row_groups(row_groups);
        }
        if let Some(selection) = self.selection {
            builder = builder.with_row_selection(selection);
        }
        if let Some(limit) = self.limit {
            builder = builder.with_limit(limit);
        }
        if let Some(offset) = self.offset {
            builder = builder.with_offset(offset);
        }
        let _ = (self.filter, self.executor, self.threads);
        let inner = builder.build()?;
        Ok(ParquetRecordBatchReader {
            schema: inner.schema(),
            inner,
        })
    }
}

/// Batches of a Parquet file: an iterator of `Result<RecordBatch, ArrowError>`, as arrow-rs's
/// reader is.
pub struct ParquetRecordBatchReader {
    schema: SchemaRef,
    inner: ArrowRsReader,
}

impl Iterator for ParquetRecordBatchReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl RecordBatchReader for ParquetRecordBatchReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}
