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
mod convert;
mod dictionary_keys;
mod filter;
mod flat;
mod join;
mod list;
mod open_bytes;
mod open_fixed;
mod selection;
mod structs;
mod view;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowPredicate, ArrowReaderMetadata, ArrowReaderOptions,
    ParquetRecordBatchReader as ArrowRsReader, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
};
pub use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
pub use parquet::arrow::ProjectionMask;
use parquet::errors::ParquetError;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
pub use parquet::file::reader::ChunkReader;
use parquet::schema::types::SchemaDescriptor;

use crate::parquet::query::Predicate;
use crate::parquet::thrift::{self, Footer};
use crate::{Executor, Path};

pub use chunk_bytes::SharedReader;
use flat::FlatColumn;
use selection::Plan;

/// Batches each column decodes ahead when the reader has threads.
const READ_AHEAD: usize = 8;

/// The batch size arrow-rs's builder starts with.
const DEFAULT_BATCH_SIZE: usize = 1024;

/// A conjunction of predicates, evaluated before the other columns are decoded: a row is kept
/// when every predicate holds on it.
///
/// Two kinds, which may be mixed:
/// - the query API's [`Predicate`]s on leaf columns (named by their dotted path, or a
///   top-level field with one leaf), evaluated on the encoded pages ([`and`](RowFilter::and)):
///   nulls never match, comparisons are the physical type's (see [`crate::parquet::query`]);
///   dictionary columns are answered by index scans on the [`Path`];
/// - arrow-rs's [`ArrowPredicate`]s (an [`ArrowPredicateFn`](parquet::arrow::arrow_reader::ArrowPredicateFn)
///   or one's own, [`and_predicate`](RowFilter::and_predicate)), evaluated as arrow-rs's
///   `RowFilter` evaluates them: on batches of their projection's columns (decoded here), over
///   the rows the earlier predicates kept; a null result drops the row.
///
/// The query API's predicates come first, then the Arrow predicates in the order added.
#[derive(Clone, Debug, Default)]
pub struct RowFilter {
    predicates: Vec<(String, Predicate)>,
    arrow_predicates: Vec<SharedPredicate>,
}

/// An [`ArrowPredicate`] that clones of its [`RowFilter`] share (evaluating it needs `&mut`).
#[derive(Clone)]
struct SharedPredicate(Arc<std::sync::Mutex<Box<dyn ArrowPredicate>>>);

impl std::fmt::Debug for SharedPredicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArrowPredicate")
    }
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

    /// Adds arrow-rs's `predicate` (AND), evaluated after the query API's predicates and
    /// the Arrow predicates added before it.
    pub fn and_predicate(mut self, predicate: impl ArrowPredicate) -> RowFilter {
        self.arrow_predicates
            .push(SharedPredicate(Arc::new(std::sync::Mutex::new(Box::new(
                predicate,
            )))));
        self
    }

    /// The query API's predicates, with their columns, in the order they were added.
    pub fn predicates(&self) -> &[(String, Predicate)] {
        &self.predicates
    }

    /// How many Arrow predicates there are.
    pub fn arrow_predicate_count(&self) -> usize {
        self.arrow_predicates.len()
    }

    /// Whether there is no predicate.
    pub fn is_empty(&self) -> bool {
        self.predicates.is_empty() && self.arrow_predicates.is_empty()
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
    /// The rows already kept, one bit a row of the row groups read: set for a builder that
    /// reads an Arrow predicate's columns (which has no selection nor filter of its own).
    kept: Option<BooleanBuffer>,
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
        // The walked footer is decoded from the bytes the walk read (arrow-rs's `load` would
        // read them again), unless the page index is asked for: `load` reads it.
        let footer = thrift::repair_footer(&reader)?;
        let page_index = options.column_index_policy() != PageIndexPolicy::Skip
            || options.offset_index_policy() != PageIndexPolicy::Skip;
        let decode = |bytes: &[u8], options: ArrowReaderOptions| {
            let metadata = ParquetMetaDataReader::decode_metadata_with_options(
                bytes,
                Some(options.metadata_options()),
            )?;
            ArrowReaderMetadata::try_new(Arc::new(metadata), options)
        };
        // arrow-ipc panics on some damaged embedded Arrow schemas (`ARROW:schema` naming an
        // unknown type: "not implemented", found by the `reader` fuzz target): an error here.
        let metadata = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match footer {
            Footer::AsIs(bytes) if !page_index => decode(&bytes, options),
            Footer::Repaired(bytes) => decode(&bytes, options),
            Footer::AsIs(_) | Footer::Unread => ArrowReaderMetadata::load(&reader, options),
        }))
        .map_err(|_| {
            ParquetError::General(
                "the footer's embedded Arrow schema (ARROW:schema) could not be read: \
                 arrow-rs panicked on it"
                    .into(),
            )
        })??;
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
            kept: None,
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
    /// thread, the default). Batches come in order whatever the count. The caller's thread
    /// and `threads - 1` threads started for each read-ahead decode the columns, each taking
    /// the next column not yet taken.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The reader. Reads the footer's row counts and, with a [`RowFilter`], the filter's
    /// columns (to know which rows are kept); the other columns are read as batches are asked
    /// for.
    pub fn build(mut self) -> Result<ParquetRecordBatchReader, ParquetError> {
        let metadata = Arc::clone(self.metadata.metadata());
        let row_groups: Vec<usize> = match self.row_groups.take() {
            Some(row_groups) => row_groups,
            None => (0..metadata.num_row_groups()).collect(),
        };
        let mut total = 0usize;
        for &row_group in &row_groups {
            if row_group >= metadata.num_row_groups() {
                return Err(ParquetError::General(format!(
                    "row group {row_group} out of bounds: the file has {}",
                    metadata.num_row_groups()
                )));
            }
            let rows = usize::try_from(metadata.row_group(row_group).num_rows())
                .ok()
                .and_then(|rows| total.checked_add(rows));
            total = rows.ok_or_else(|| {
                ParquetError::General(format!(
                    "row group {row_group}: its row count {} is negative or too large",
                    metadata.row_group(row_group).num_rows()
                ))
            })?;
        }
        // The batches' schema is arrow-rs's, for the same projection (hints, time zones,
        // pruned structs): its reader over no row group gives it.
        let schema = ArrowRsBuilder::new_with_metadata(self.input.clone(), self.metadata.clone())
            .with_projection(self.projection.clone())
            .with_row_groups(Vec::new())
            .build()?
            .schema();
        let kept = match self.filter.as_ref().filter(|f| !f.is_empty()) {
            Some(filter) => Some(self.evaluate_filter(filter, &metadata, &row_groups, total)?),
            None => self.kept.clone(),
        };
        let plan = match kept {
            Some(kept) if self.offset.is_none() && self.limit.is_none() => {
                // They stay one bit a row: a filter keeping scattered rows would make a
                // selection of as many runs (a run list costs more than the decode it saves).
                Plan::from_mask(kept)
            }
            Some(kept) => {
                let kept = RowSelection::from_filters(&[kept.into()]);
                Plan::new(Some(&kept), total, self.offset, self.limit)
            }
            None => Plan::new(self.selection.as_ref(), total, self.offset, self.limit),
        };

        // Each output field: one of ours (a flat leaf of a type converted here) or arrow-rs's.
        let parquet_schema = metadata.file_metadata().schema_descr();
        let mut leaves_of_root: Vec<Vec<usize>> =
            vec![Vec::new(); parquet_schema.root_schema().get_fields().len()];
        for leaf in 0..parquet_schema.num_columns() {
            if self.projection.leaf_included(leaf) {
                leaves_of_root[parquet_schema.get_column_root_idx(leaf)].push(leaf);
            }
        }
        let projected: Vec<&Vec<usize>> = leaves_of_root.iter().filter(|l| !l.is_empty()).collect();
        if projected.len() != schema.fields().len() {
            return Err(ParquetError::General(format!(
                "the projection selects {} top-level fields, arrow-rs's schema has {}",
                projected.len(),
                schema.fields().len()
            )));
        }
        let mut sources = Vec::with_capacity(projected.len());
        let mut columns = Vec::new();
        let mut handed_over = Vec::new();
        // A column of leaf `leaf` read as `data_type` (a list's with its shape).
        let open = |leaf: usize, data_type: DataType, list: Option<list::ListShape>| {
            FlatColumn::new(
                self.input.source(),
                Arc::clone(&metadata),
                leaf,
                data_type,
                list,
                &row_groups,
                plan.cursor(),
                self.executor.clone(),
                self.batch_size,
                plan.selected,
            )
        };
        for (field, leaves) in schema.fields().iter().zip(projected) {
            // One leaf: flat, or a list of a converted type. A flat dictionary of other keys
            // than Int32 is read with Int32 keys, its batches' keys converted.
            let read_type = dictionary_keys::read_with_int32_keys(field.data_type())
                .unwrap_or_else(|| field.data_type().clone());
            let ours = match leaves[..] {
                [leaf] => {
                    let descr = parquet_schema.column(leaf);
                    let flat = descr.max_rep_level() == 0 && descr.path().parts().len() == 1;
                    let physical = crate::parquet::query::column_of(&descr).ok();
                    let converted =
                        physical.is_some_and(|c| convert::converts(c.physical_type, &read_type));
                    if flat && converted {
                        Some(None)
                    } else {
                        list::list_shape(parquet_schema, leaf, field.data_type()).map(Some)
                    }
                }
                _ => None,
            };
            let parts = struct_parts(parquet_schema, leaves, field.data_type());
            let map = list::map_shapes(parquet_schema, leaves, field.data_type());
            // A map of nested values (structs of flat fields) is read as a list of its entries'
            // structs, made a map per batch.
            let list_struct = match (field.data_type(), &map) {
                (DataType::Map(entries, _), None) => list::list_struct_shapes(
                    parquet_schema,
                    leaves,
                    &DataType::List(Arc::clone(entries)),
                ),
                _ => list::list_struct_shapes(parquet_schema, leaves, field.data_type()),
            };
            if let Some(shapes) = list_struct {
                // A list of structs: each field read as a list of a struct of it, joined per
                // batch.
                let mut indices = Vec::with_capacity(shapes.len());
                for (leaf, shape) in leaves.iter().zip(shapes) {
                    indices.push(columns.len());
                    let data_type = shape.data_type();
                    columns.push(open(*leaf, data_type, Some(shape))?);
                }
                sources.push(Source::ListStruct(indices));
            } else if let Some(shapes) = map {
                // A map: its keys and its values each read as a list, joined per batch.
                let mut indices = [0; 2];
                for (i, (leaf, shape)) in leaves.iter().zip(shapes).enumerate() {
                    indices[i] = columns.len();
                    let data_type = DataType::List(Arc::clone(shape.child()));
                    columns.push(open(*leaf, data_type, Some(shape))?);
                }
                sources.push(Source::Map(indices[0], indices[1]));
            } else if let Some(parts) = parts.filter(|_| ours.is_none()) {
                let mut indices = Vec::with_capacity(parts.len());
                for (leaf, part) in leaves.iter().zip(parts) {
                    indices.push(columns.len());
                    let column = match part {
                        StructPart::Flat(parents) => open(
                            *leaf,
                            parents
                                .last()
                                .expect("a leaf's chain ends at its field")
                                .child
                                .data_type()
                                .clone(),
                            None,
                        )?
                        .in_struct(parents),
                        // A list field: read as a struct of the list, with the struct's validity.
                        StructPart::List(shape) => open(*leaf, shape.data_type(), Some(shape))?,
                    };
                    columns.push(column);
                }
                sources.push(Source::Struct(indices));
            } else if let Some(list) = ours {
                sources.push(Source::Ours(columns.len()));
                let data_type = match list {
                    None => read_type,
                    Some(_) => field.data_type().clone(),
                };
                columns.push(open(leaves[0], data_type, list)?);
            } else {
                sources.push(Source::ArrowRs(handed_over.len()));
                handed_over.push(leaves.clone());
            }
        }
        let arrow_rs = if handed_over.is_empty() {
            None
        } else {
            let leaves = handed_over.concat();
            self.check_pages_handed_over(&leaves, &row_groups)?;
            let mut builder =
                ArrowRsBuilder::new_with_metadata(self.input.clone(), self.metadata.clone())
                    .with_projection(ProjectionMask::leaves(parquet_schema, leaves))
                    .with_row_groups(row_groups.clone())
                    .with_batch_size(self.batch_size);
            if let Some(selection) = plan.row_selection() {
                builder = builder.with_row_selection(selection);
            }
            Some(builder.build()?)
        };
        Ok(ParquetRecordBatchReader {
            schema,
            sources,
            columns,
            arrow_rs,
            remaining: plan.selected,
            batch_size: self.batch_size,
            threads: self.threads,
        })
    }
}

impl<T: ChunkReader + 'static> ParquetRecordBatchReaderBuilder<T> {
    /// Refuses a column chunk of `leaves` (handed to arrow-rs's reader) in `row_groups` with a
    /// page claiming more bytes than the executor's `max_output_bytes`: arrow-rs's reader
    /// trusts the claim (a 4 KB file of a map whose page inflates to 2 GB took it 28 s, found
    /// by the `reader` fuzz target), where this reader's own pages are held to the limit.
    fn check_pages_handed_over(
        &self,
        leaves: &[usize],
        row_groups: &[usize],
    ) -> Result<(), ParquetError> {
        let limit = self.executor.config().max_output_bytes as u64;
        let metadata = self.metadata.metadata();
        for &row_group in row_groups {
            for &leaf in leaves {
                let chunk = metadata.row_group(row_group).column(leaf);
                // Not `byte_range`, which panics on a negative offset.
                let (_, start, end) = crate::parquet::query::checked_chunk(
                    parquet::file::reader::Length::len(&self.input),
                    chunk.clone(),
                )?;
                let len = end - start;
                let sizes = thrift::page_sizes(len, |at, n| self.input.get_bytes(start + at, n))?;
                if let Some(&size) = sizes.iter().find(|&&size| size > limit) {
                    return Err(ParquetError::General(format!(
                        "column {}, row group {row_group}: a page of {size} bytes uncompressed, \
                         above this executor's limit of {limit} (Config::max_output_bytes)",
                        chunk.column_path()
                    )));
                }
            }
        }
        Ok(())
    }

    /// The rows of `row_groups` (`total`) that the selection selects and every predicate of
    /// `filter` keeps, one bit a row.
    fn evaluate_filter(
        &self,
        filter: &RowFilter,
        metadata: &Arc<ParquetMetaData>,
        row_groups: &[usize],
        total: usize,
    ) -> Result<BooleanBuffer, ParquetError> {
        let mut kept = match &self.selection {
            // DataFusion's page-index pruning gives one, often of every row, as bits: rows
            // past the selection's end are not selected (a run-list intersection would keep
            // the longer side's tail).
            Some(selection) => selection::selection_mask(selection, total),
            None => BooleanBuffer::new_set(total),
        };
        if !filter.predicates.is_empty() {
            let evaluate = || {
                filter::evaluate(
                    self.input.source(),
                    metadata,
                    row_groups,
                    filter,
                    &self.executor,
                )
            };
            // As in `next`: a panic of the parquet crate's page reader is an error.
            let matched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(evaluate))
                .unwrap_or_else(|_| {
                    Err(ParquetError::General(
                        "a malformed page: the parquet crate's page reader panicked on it".into(),
                    ))
                })?;
            kept = &kept & &matched;
        }
        for predicate in &filter.arrow_predicates {
            kept = self.evaluate_arrow_predicate(predicate, kept, row_groups)?;
        }
        Ok(kept)
    }

    /// The rows of `kept` where `predicate` holds: its columns are read (by this reader) for
    /// the kept rows only, in batches of the batch size.
    fn evaluate_arrow_predicate(
        &self,
        predicate: &SharedPredicate,
        kept: BooleanBuffer,
        row_groups: &[usize],
    ) -> Result<BooleanBuffer, ParquetError> {
        if kept.count_set_bits() == 0 {
            return Ok(kept);
        }
        // A poisoned lock only means an earlier evaluation panicked; the predicate is the
        // caller's, as arrow-rs would hold it.
        let mut predicate = predicate
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let reader = ParquetRecordBatchReaderBuilder {
            input: self.input.clone(),
            metadata: self.metadata.clone(),
            projection: predicate.projection().clone(),
            row_groups: Some(row_groups.to_vec()),
            batch_size: self.batch_size,
            selection: None,
            limit: None,
            offset: None,
            filter: None,
            kept: Some(kept.clone()),
            executor: self.executor.clone(),
            threads: self.threads,
        }
        .build()?;
        let mut out = arrow_buffer::MutableBuffer::from_len_zeroed(kept.len().div_ceil(8));
        let mut rows = kept.set_indices();
        for batch in reader {
            let batch = batch?;
            let count = batch.num_rows();
            let result = predicate.evaluate(batch)?;
            if result.len() != count {
                return Err(ParquetError::General(format!(
                    "a row filter's predicate gave {} values for a batch of {count} rows",
                    result.len()
                )));
            }
            for (i, row) in rows.by_ref().take(count).enumerate() {
                if result.is_valid(i) && result.value(i) {
                    arrow_buffer::bit_util::set_bit(out.as_slice_mut(), row);
                }
            }
        }
        Ok(BooleanBuffer::new(out.into(), 0, kept.len()))
    }
}

/// Each of `columns` decoded until `rows` rows are pending (or it ends), on `threads`
/// threads: the caller's and `threads - 1` scoped threads started for this call, each taking
/// the next column not yet taken, the largest first (the first error is returned).
///
/// Threads started per call, not a pool's: with a rayon pool, whose workers sleep while the
/// caller works on the batches between two calls, two threads decoded little faster than
/// one, or slower, once the caller spent 1 ms on each batch (events_1m 79 -> 70 ms,
/// lineitem SF 0.1 uncompressed 31 -> 44 ms; these threads: 70 -> 47-51, 33 -> 28). Starting a
/// thread costs far less than the milliseconds of decoding a call does (`READ_AHEAD`
/// batches of every column).
fn fill_in_parallel(
    columns: &mut [FlatColumn],
    rows: usize,
    threads: usize,
) -> Result<(), ArrowError> {
    // The largest columns last in the queue, taken first, so that no large one is left to
    // the end alone.
    let mut queue: Vec<&mut FlatColumn> = columns.iter_mut().collect();
    queue.sort_by_cached_key(|column| column.weight());
    let helpers = threads.min(queue.len()).saturating_sub(1);
    let queue = std::sync::Mutex::new(queue);
    let work = || -> Result<(), ArrowError> {
        loop {
            let next = queue
                .lock()
                .map_err(|_| ArrowError::ParquetError("a reader thread panicked".into()))?
                .pop();
            let Some(column) = next else {
                return Ok(());
            };
            column.fill(rows)?;
        }
    };
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (0..helpers).map(|_| scope.spawn(work)).collect();
        let mine = work();
        let theirs = helpers.into_iter().map(|helper| {
            helper.join().unwrap_or_else(|_| {
                Err(ArrowError::ParquetError("a reader thread panicked".into()))
            })
        });
        theirs.fold(mine, |first, result| first.and(result))
    })
}

/// A top-level struct's leaf read here.
enum StructPart {
    /// A flat leaf, in the structs from the top-level one down (outermost first).
    Flat(Vec<structs::StructParent>),
    /// A list of a converted type, a list of structs' field or a map's keys or values, read
    /// wrapped in the structs on its path.
    List(list::ListShape),
}

/// How each leaf of a struct of flat fields, lists of them and structs of flat fields sits in
/// it, when `data_type` is such a struct and `leaves` are its leaves, all of types converted
/// here.
fn struct_parts(
    schema: &SchemaDescriptor,
    leaves: &[usize],
    data_type: &arrow_schema::DataType,
) -> Option<Vec<StructPart>> {
    let arrow_schema::DataType::Struct(fields) = data_type else {
        return None;
    };
    let root = &schema.root_schema().get_fields()[schema.get_column_root_idx(*leaves.first()?)];
    let mut rest = leaves;
    let mut parts = Vec::with_capacity(leaves.len());
    let walk = StructWalk { schema };
    walk.fields(root, fields, optional(root), &[], &mut rest, &mut parts)?;
    rest.is_empty().then_some(parts)
}

fn optional(t: &parquet::schema::types::Type) -> i16 {
    i16::from(t.get_basic_info().repetition() == parquet::basic::Repetition::OPTIONAL)
}

/// The walk of [`struct_parts`] down a struct's fields.
struct StructWalk<'a> {
    schema: &'a SchemaDescriptor,
}

impl StructWalk<'_> {
    /// Takes the leaves of group `node` (read as `fields`, non-null from level `defined` on,
    /// inside the structs `outer`: each level's defined level and field) from `leaves`, in
    /// order, into `parts`.
    fn fields(
        &self,
        node: &parquet::schema::types::Type,
        fields: &arrow_schema::Fields,
        defined: i16,
        outer: &[(i16, arrow_schema::FieldRef)],
        leaves: &mut &[usize],
        parts: &mut Vec<StructPart>,
    ) -> Option<()> {
        let children = node.get_fields();
        if !node.is_group() || children.len() != fields.len() {
            return None;
        }
        for (child, field) in children.iter().zip(fields) {
            let plain_group = child.is_group()
                && child.get_basic_info().repetition() != parquet::basic::Repetition::REPEATED
                && child.get_basic_info().converted_type() == parquet::basic::ConvertedType::NONE
                && child.get_basic_info().logical_type_ref().is_none();
            if child.name() != field.name() {
                return None;
            }
            if let (arrow_schema::DataType::Struct(inner), true) = (field.data_type(), plain_group)
            {
                let mut levels = outer.to_vec();
                levels.push((defined, Arc::clone(field)));
                self.fields(
                    child,
                    inner,
                    defined + optional(child),
                    &levels,
                    leaves,
                    parts,
                )?;
                continue;
            }
            let depth = outer.len() + 1;
            let on_path = |leaf: usize| {
                self.schema.column(leaf).path().parts().get(depth) == Some(field.name())
            };
            // A map: its keys and its values each a leaf read as a list, wrapped in the
            // structs above (joined into the map when the struct is joined).
            // Each list wrapped in the structs above, the innermost holding that list only.
            let wrapped = |shapes: Vec<list::ListShape>, parts: &mut Vec<StructPart>| {
                for mut shape in shapes {
                    let narrowed = arrow_schema::Field::new(
                        field.name(),
                        shape.data_type(),
                        field.is_nullable(),
                    );
                    shape.set_parents(structs::chain(outer, defined, &Arc::new(narrowed)));
                    parts.push(StructPart::List(shape));
                }
            };
            if let DataType::Map(..) = field.data_type() {
                let taken = leaves.get(..2)?;
                *leaves = &leaves[2..];
                if !taken.iter().all(|&leaf| on_path(leaf)) {
                    return None;
                }
                let shapes =
                    list::map_shapes_in(self.schema, taken, field.data_type(), depth, defined)?;
                wrapped(shapes.into(), parts);
                continue;
            }
            // A list of structs: its element's leaves (of its fields, or of structs in it),
            // each read as a list of the struct narrowed to it, wrapped in the structs above.
            if let DataType::List(element) | DataType::LargeList(element) = field.data_type() {
                if let DataType::Struct(inner) = element.data_type() {
                    let count = list::leaf_field_paths(inner).len();
                    let taken = leaves.get(..count)?;
                    *leaves = &leaves[count..];
                    if !taken.iter().all(|&leaf| on_path(leaf)) {
                        return None;
                    }
                    let shapes = list::list_struct_shapes_in(
                        self.schema,
                        taken,
                        field.data_type(),
                        depth,
                        defined,
                    )?;
                    wrapped(shapes, parts);
                    continue;
                }
            }
            let (&leaf, rest) = leaves.split_first()?;
            *leaves = rest;
            let descr = self.schema.column(leaf);
            let path = descr.path().parts();
            if !on_path(leaf) {
                return None;
            }
            if descr.max_rep_level() > 0 {
                // A list of a converted type, wrapped in the structs above.
                parts.push(StructPart::List(list::struct_list_shape(
                    self.schema,
                    leaf,
                    depth,
                    structs::chain(outer, defined, field),
                    field,
                )?));
                continue;
            }
            let physical = crate::parquet::query::column_of(&descr).ok()?.physical_type;
            if child.is_group()
                || path.len() != outer.len() + 2
                || descr.max_def_level() != defined + optional(child)
                || !convert::converts(physical, field.data_type())
            {
                return None;
            }
            parts.push(StructPart::Flat(structs::chain(outer, defined, field)));
        }
        Some(())
    }
}

/// Where an output column comes from.
enum Source {
    /// This project's reader: `columns[i]`.
    Ours(usize),
    /// A struct of flat fields, lists of them, lists of structs of them and structs of such,
    /// each leaf read here:
    /// `columns[i]` for each `i`, each giving the struct narrowed to its leaf's path.
    Struct(Vec<usize>),
    /// A map read here: its keys' and its values' lists, `columns[k]` and `columns[v]`.
    Map(usize, usize),
    /// A list of structs of flat fields (or of structs of them) read here: `columns[i]` for
    /// each leaf, each giving a list of the struct narrowed to that leaf's path.
    ListStruct(Vec<usize>),
    /// arrow-rs's reader (nested columns, and types not converted here yet): its batches'
    /// column `i`.
    ArrowRs(usize),
}

/// Batches of a Parquet file: an iterator of `Result<RecordBatch, ArrowError>`, as arrow-rs's
/// reader is. After an error it ends.
pub struct ParquetRecordBatchReader {
    schema: SchemaRef,
    sources: Vec<Source>,
    columns: Vec<FlatColumn>,
    arrow_rs: Option<ArrowRsReader>,
    /// Selected rows not yet returned.
    remaining: usize,
    batch_size: usize,
    /// Threads that decode the columns ahead (1: the caller's alone).
    threads: usize,
}

impl ParquetRecordBatchReader {
    fn next_batch(&mut self, rows: usize) -> Result<RecordBatch, ArrowError> {
        // With threads: when a column runs short, every column decodes ahead, up to
        // READ_AHEAD batches, in parallel; so the pages of different columns are decoded at
        // the same time (one at a time, each column would run short at another batch).
        if self.threads > 1
            && self
                .columns
                .iter()
                .any(|column| column.pending_rows() < rows)
        {
            let target = rows.saturating_mul(READ_AHEAD).min(self.remaining);
            fill_in_parallel(&mut self.columns, target, self.threads)?;
        }
        let ours: Vec<Result<ArrayRef, ArrowError>> = self
            .columns
            .iter_mut()
            .map(|column| column.next_batch(rows))
            .collect();
        let ours = ours.into_iter().collect::<Result<Vec<_>, _>>()?;
        let theirs = match &mut self.arrow_rs {
            None => None,
            Some(reader) => {
                // arrow-rs's readers unwrap some errors of damaged files (its map reader, on
                // children of unequal lengths): a panic there is this reader's error.
                let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()))
                    .map_err(|_| {
                        ArrowError::ParquetError(
                            "arrow-rs's reader panicked on this file's nested columns".into(),
                        )
                    })?;
                let batch = next.transpose()?.ok_or_else(|| {
                    ArrowError::ParquetError("arrow-rs's reader ended early".into())
                })?;
                if batch.num_rows() != rows {
                    return Err(ArrowError::ParquetError(format!(
                        "arrow-rs's reader gave {} rows where {rows} were expected",
                        batch.num_rows()
                    )));
                }
                Some(batch)
            }
        };
        let arrays = self
            .sources
            .iter()
            .zip(self.schema.fields())
            .map(|(source, field)| match *source {
                Source::Ours(i) => dictionary_keys::with_keys_of(&ours[i], field.data_type()),
                Source::Map(k, v) => join::join_map(field.data_type(), &ours[k], &ours[v]),
                Source::Struct(ref parts) => {
                    let parts: Vec<&ArrayRef> = parts.iter().map(|&i| &ours[i]).collect();
                    join::join_struct(field.data_type(), &parts).map(|s| Arc::new(s) as ArrayRef)
                }
                Source::ListStruct(ref parts) => {
                    let parts: Vec<&ArrayRef> = parts.iter().map(|&i| &ours[i]).collect();
                    join::join_list_struct(field.data_type(), &parts)
                }
                Source::ArrowRs(i) => Ok(Arc::clone(
                    theirs.as_ref().expect("arrow-rs reads").column(i),
                )),
            })
            .collect::<Result<Vec<_>, ArrowError>>()?;
        RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
    }
}

impl Iterator for ParquetRecordBatchReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        let rows = self.remaining.min(self.batch_size);
        // The parquet crate's page reader unwraps some malformed page headers (a v2 page type
        // without its v2 header, in `peek_next_page`): a panic below is this batch's error.
        let batch =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.next_batch(rows)))
                .unwrap_or_else(|_| {
                    Err(ArrowError::ParquetError(
                        "a malformed page: the parquet crate's page reader panicked on it".into(),
                    ))
                });
        self.remaining = if batch.is_ok() {
            self.remaining - rows
        } else {
            0
        };
        Some(batch)
    }
}

impl RecordBatchReader for ParquetRecordBatchReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl ParquetRecordBatchReader {
    /// The top-level fields whose columns this reader hands to arrow-rs's reader (nested
    /// columns other than lists of one leaf at any depth, maps of two, lists of structs of
    /// flat fields or of nested structs of them, and structs of flat fields, lists of them,
    /// lists of structs of them, maps and such structs at any depth: lists of structs holding
    /// lists or maps, maps of nested keys or of values other than structs of flat fields;
    /// MonthDayNano intervals, which arrow-rs refuses too; dictionaries of other values than
    /// byte arrays, and dictionaries of other keys than Int32 inside nested columns), in
    /// schema order.
    pub fn columns_read_by_arrow_rs(&self) -> Vec<String> {
        self.sources
            .iter()
            .zip(self.schema.fields())
            .filter(|(source, _)| matches!(source, Source::ArrowRs(_)))
            .map(|(_, field)| field.name().clone())
            .collect()
    }
}
