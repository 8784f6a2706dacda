//! Opens one file (or byte range of one) of a scan: its footer, DataFusion's pruning, then
//! row group by row group, the projected column chunks fetched and decoded by this
//! project's reader.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use bytes::{Buf, Bytes};
use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::common::{exec_datafusion_err, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::parquet::{
    apply_file_schema_type_coercions, DefaultParquetFileReaderFactory, PagePruningAccessPlanFilter,
    ParquetAccessPlan, ParquetFileMetrics, ParquetFileReaderFactory, RowGroupAccess,
    RowGroupAccessPlanFilter,
};
use datafusion::datasource::physical_plan::FileSource;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener, FileScanConfig};
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, RowSelection,
};
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::errors::ParquetError;
use datafusion::parquet::file::metadata::PageIndexPolicy;
use datafusion::parquet::file::reader::{ChunkReader, Length};
use datafusion::parquet::file::statistics::Statistics;
use datafusion::physical_expr::expressions::DynamicFilterPhysicalExpr;
use datafusion::physical_expr::split_conjunction;
use datafusion::physical_expr::utils::conjunction_opt;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_adapter::{
    DefaultPhysicalExprAdapterFactory, PhysicalExprAdapter, PhysicalExprAdapterFactory,
};
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_optimizer::pruning::PruningPredicateBuilder;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures::StreamExt;
use object_store::ObjectStore;
use qpl_rs::parquet::arrow::{
    ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowFilter,
};
use qpl_rs::parquet::query::{Predicate, Scalar};
use qpl_rs::Executor;

use crate::expr_predicate::{root_columns, ExprPredicate, Selectivity};
use crate::predicate::{comparison, file_row_filter, Comparison, Test};
use crate::source::QplParquetSource;

/// Rows a dynamic filter's expression (a hash-table lookup) sees in a file before it is
/// given up there, if it kept more than half of them: the join applies it again, and a
/// lookup that drops little costs a hash per row (TPC-H Q8/Q9's part keys). Two batches of
/// DataFusion's default size.
const GIVE_UP_AFTER: usize = 16_384;

/// Opens the files of one partition of a [`QplParquetSource`] scan.
pub(crate) struct QplParquetOpener {
    source: QplParquetSource,
    factory: Arc<dyn ParquetFileReaderFactory>,
    /// The table's file columns (logical: types as the table says).
    logical_schema: SchemaRef,
    /// The columns of `logical_schema` the scan gives, in order.
    projection: Vec<usize>,
    batch_size: usize,
    limit: Option<usize>,
    partition: usize,
    /// Threads for a file whose row groups are fewer than the scan's partitions.
    spare_threads: SpareThreads,
    metrics: ExecutionPlanMetricsSet,
    executor: Executor,
}

/// DataFusion spreads a file's row groups over the scan's partitions; when a lone file has
/// fewer row groups than there are partitions (TPC-H at scale factor 0.1: one row group a
/// table, two partitions), some partitions get none and their cores idle while one partition
/// decodes. Those cores then decode the columns of the row groups in parallel
/// ([`ParquetRecordBatchReaderBuilder::with_threads`]). Several files, or enough row groups:
/// one thread a partition, as in stock DataFusion.
#[derive(Clone, Copy, Debug)]
struct SpareThreads {
    /// The scan's partitions.
    partitions: usize,
    /// The scan reads one file only.
    one_file: bool,
    /// The cores of this machine.
    cores: usize,
}

impl SpareThreads {
    fn new(config: &FileScanConfig) -> SpareThreads {
        let mut files = config
            .file_groups
            .iter()
            .flat_map(|group| group.files())
            .map(|file| &file.object_meta.location);
        let first = files.next();
        SpareThreads {
            partitions: config.file_groups.len(),
            one_file: files.all(|f| Some(f) == first),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// Threads for reading a file of `row_groups` row groups.
    fn for_file(self, row_groups: usize) -> usize {
        if !self.one_file || row_groups == 0 || row_groups >= self.partitions {
            return 1;
        }
        self.partitions.div_ceil(row_groups).min(self.cores).max(1)
    }
}

impl QplParquetOpener {
    pub(crate) fn new(
        source: &QplParquetSource,
        object_store: Arc<dyn ObjectStore>,
        projection: &[usize],
        base_config: &FileScanConfig,
        partition: usize,
    ) -> QplParquetOpener {
        let parquet = source.parquet_source();
        let factory = parquet
            .parquet_file_reader_factory()
            .cloned()
            .unwrap_or_else(|| Arc::new(DefaultParquetFileReaderFactory::new(object_store)));
        QplParquetOpener {
            source: source.clone(),
            factory,
            logical_schema: Arc::clone(parquet.table_schema().file_schema()),
            projection: projection.to_vec(),
            batch_size: source.batch_size(base_config),
            limit: base_config.limit,
            partition,
            spare_threads: SpareThreads::new(base_config),
            metrics: parquet.metrics().clone(),
            executor: Executor::new(source.path()),
        }
    }
}

impl FileOpener for QplParquetOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let file_metrics = ParquetFileMetrics::new(
            self.partition,
            file.object_meta.location.as_ref(),
            &self.metrics,
        );
        let mut reader: Box<dyn AsyncFileReader> = self.factory.create_reader(
            self.partition,
            file.clone(),
            file.metadata_size_hint,
            &self.metrics,
        )?;
        let plan = ScanPlan {
            source: self.source.clone(),
            logical_schema: Arc::clone(&self.logical_schema),
            projection: self.projection.clone(),
            batch_size: self.batch_size,
            limit: self.limit,
            spare_threads: self.spare_threads,
            executor: self.executor.clone(),
        };
        Ok(Box::pin(async move {
            let opened = plan.open(&mut reader, &file, &file_metrics).await?;
            let stream = futures::stream::try_unfold(
                (opened, reader),
                |(mut opened, mut reader)| async move {
                    let batch = opened.next_batch(&mut reader).await?;
                    Ok(batch.map(|b| (b, (opened, reader))))
                },
            );
            Ok(stream.boxed())
        }))
    }
}

/// What a scan reads of every file.
struct ScanPlan {
    source: QplParquetSource,
    logical_schema: SchemaRef,
    projection: Vec<usize>,
    batch_size: usize,
    limit: Option<usize>,
    spare_threads: SpareThreads,
    executor: Executor,
}

impl ScanPlan {
    async fn open(
        self,
        reader: &mut Box<dyn AsyncFileReader>,
        file: &PartitionedFile,
        file_metrics: &ParquetFileMetrics,
    ) -> Result<OpenedFile> {
        let parquet = self.source.parquet_source();
        let options = parquet.table_parquet_options();
        let predicate = parquet.filter();
        let page_index = options.global.enable_page_index && predicate.is_some();
        let mut reader_options = ArrowReaderOptions::new().with_page_index_policy(if page_index {
            PageIndexPolicy::Optional
        } else {
            PageIndexPolicy::Skip
        });
        let mut metadata = ArrowReaderMetadata::load_async(reader, reader_options.clone()).await?;

        // The file's columns as the table types them (string views, binary as string).
        let mut file_schema = Arc::clone(metadata.schema());
        if let Some(coerced) = apply_file_schema_type_coercions(&self.logical_schema, &file_schema)
        {
            file_schema = Arc::new(coerced);
            reader_options = reader_options.with_schema(Arc::clone(&file_schema));
            metadata =
                ArrowReaderMetadata::try_new(Arc::clone(metadata.metadata()), reader_options)?;
        }

        // The predicate and the pushed filters, against the file's own columns.
        let adapter = DefaultPhysicalExprAdapterFactory
            .create(Arc::clone(&self.logical_schema), Arc::clone(&file_schema))?;
        let pushed = self
            .source
            .pushed_filters()
            .into_iter()
            .map(|f| adapter.rewrite(f))
            .collect::<Result<Vec<_>>>()?;
        let (dynamic, dynamic_rest) = match &predicate {
            Some(p) => dynamic_filters(p, adapter.as_ref(), &file_schema)?,
            None => (Vec::new(), Vec::new()),
        };
        let predicate = predicate
            .map(|p| adapter.rewrite(snapshot_physical_expr(p)?))
            .transpose()?;

        // Row groups: this range's, the caller's access plan, DataFusion's pruning.
        let parquet_metadata = Arc::clone(metadata.metadata());
        let groups = parquet_metadata.row_groups();
        let initial = match file.extensions.get::<ParquetAccessPlan>() {
            Some(plan) if plan.len() == groups.len() => plan.clone(),
            Some(plan) => {
                return Err(exec_datafusion_err!(
                    "the access plan for {} has {} row groups, the file {}",
                    file.object_meta.location,
                    plan.len(),
                    groups.len()
                ))
            }
            None => ParquetAccessPlan::new_all(groups.len()),
        };
        let mut row_groups = RowGroupAccessPlanFilter::new(initial);
        if let Some(range) = &file.range {
            row_groups.prune_by_range(groups, range);
        }
        let parquet_schema = metadata.parquet_schema();
        if let Some(predicate) = &predicate {
            if options.global.pruning {
                let pruning = PruningPredicateBuilder::new()
                    .with_file_schema(Arc::clone(&file_schema))
                    .with_max_in_list_size(parquet.max_in_list_size())
                    .build(Arc::clone(predicate));
                if let Some(pruning) = pruning {
                    row_groups.prune_by_statistics(
                        &file_schema,
                        parquet_schema,
                        groups,
                        &pruning,
                        file_metrics,
                    );
                }
            }
        }
        let mut access = row_groups.build();
        if let Some(predicate) = &predicate {
            if page_index && parquet_metadata.offset_index().is_some() {
                let pages = PagePruningAccessPlanFilter::new(predicate, Arc::clone(&file_schema));
                if pages.filter_number() > 0 {
                    access = pages.prune_plan_with_page_index(
                        access,
                        &file_schema,
                        parquet_schema,
                        &parquet_metadata,
                        file_metrics,
                    );
                }
            }
        }

        let filters = file_row_filter(&pushed, &file_schema, parquet_schema);
        // A dynamic filter only spares work (its join or TopK applies it again): its
        // comparisons are taken per row group where they drop rows, the rest while it does.
        let dynamic_filter = file_row_filter(&dynamic, &file_schema, parquet_schema).row_filter;
        let mut read: Vec<usize> = Vec::new();
        let mut output = Vec::with_capacity(self.projection.len());
        for &i in &self.projection {
            let field = self.logical_schema.field(i);
            let found = file_schema.index_of(field.name()).ok();
            if let Some(index) = found {
                read.push(index);
            }
            output.push((found, Arc::new(field.clone())));
        }
        read.sort_unstable();
        read.dedup();
        // The pushed filters the query API cannot say are evaluated as expressions by the
        // reader, on their own columns, before the others are decoded.
        let mut row_filter = filters.row_filter;
        if let Some(residual) = conjunction_opt(filters.residual) {
            let selectivity = Arc::new(Selectivity::default());
            if let Some(p) =
                ExprPredicate::new(&residual, &file_schema, parquet_schema, selectivity)?
            {
                row_filter = row_filter.and_predicate(p);
            }
        }
        // The rest only with `pushdown_filters` on, as DataFusion's scan: a hash-table lookup
        // on every row of a large probe side can cost more than the decode it saves (TPC-H
        // Q9 at SF 1: 0.87x of stock with the lookup of ~10,900 part keys evaluated).
        let dynamic_rest = if options.global.pushdown_filters {
            dynamic_rest
        } else {
            Vec::new()
        };
        let dynamic_rest = conjunction_opt(dynamic_rest);
        // The filters' columns are fetched with the others: the pushed filters' (the row
        // filter's predicates and expression), the dynamic predicates' and the rest's.
        let mut fetched_roots = read.clone();
        for pushed in &pushed {
            fetched_roots.extend(root_columns(pushed, &file_schema)?);
        }
        for (name, _) in dynamic_filter.predicates() {
            if let Ok(i) = file_schema.index_of(name) {
                fetched_roots.push(i);
            }
        }
        if let Some(rest) = &dynamic_rest {
            fetched_roots.extend(root_columns(rest, &file_schema)?);
        }
        fetched_roots.sort_unstable();
        fetched_roots.dedup();

        let row_groups: VecDeque<(usize, Option<RowSelection>)> = access
            .into_inner()
            .into_iter()
            .enumerate()
            .filter_map(|(i, a)| match a {
                RowGroupAccess::Skip => None,
                RowGroupAccess::Scan => Some((i, None)),
                RowGroupAccess::Selection(s) => Some((i, Some(s))),
            })
            .collect();
        let read_mask = ProjectionMask::roots(parquet_schema, read.iter().copied());
        let threads = self.spare_threads.for_file(groups.len());
        Ok(OpenedFile {
            plan: self,
            metadata,
            file_size: file.object_meta.size,
            read_mask,
            fetched_roots,
            output,
            output_schema: None,
            file_schema,
            row_filter,
            dynamic_filter,
            dynamic_rest,
            dynamic_selectivity: Arc::new(Selectivity::default()),
            row_groups,
            threads,
            current: None,
            emitted: 0,
        })
    }
}

/// Expressions.
type Exprs = Vec<Arc<dyn PhysicalExpr>>;

/// What the dynamic filters among `predicate`'s conjuncts hold now (a hash join's key bounds
/// and key list or hash-table lookup once its build side is in, a TopK's threshold), in terms
/// of `file_schema`: the comparisons the reader's query predicates can say, and the rest (a
/// hash-table lookup, a partitioned join's per-partition `CASE`), evaluated as expressions. A
/// dynamic filter not yet updated is `true`, and gives none. Rows they reject cannot reach
/// the operator's output, so the scan may drop them early; DataFusion itself evaluates them
/// only for pruning unless `pushdown_filters` is on.
fn dynamic_filters(
    predicate: &Arc<dyn PhysicalExpr>,
    adapter: &dyn PhysicalExprAdapter,
    file_schema: &Schema,
) -> Result<(Exprs, Exprs)> {
    let mut comparisons = Vec::new();
    let mut rest = Vec::new();
    for conjunct in split_conjunction(predicate) {
        if conjunct
            .downcast_ref::<DynamicFilterPhysicalExpr>()
            .is_none()
        {
            continue;
        }
        let now = adapter.rewrite(snapshot_physical_expr(Arc::clone(conjunct))?)?;
        let mut taken: Vec<(Comparison, &Arc<dyn PhysicalExpr>)> = Vec::new();
        for f in split_conjunction(&now) {
            match comparison(f, file_schema) {
                Some(c) => taken.push((c, f)),
                None => rest.push(Arc::clone(f)),
            }
        }
        // A key list implies the keys' bounds: each would be a pass over the chunk.
        let listed: Vec<usize> = taken
            .iter()
            .filter(|(c, _)| matches!(c.test, Test::In(_, false)))
            .map(|(c, _)| c.column)
            .collect();
        comparisons.extend(
            taken
                .into_iter()
                .filter(|(c, _)| matches!(c.test, Test::In(..)) || !listed.contains(&c.column))
                .map(|(_, f)| Arc::clone(f)),
        );
    }
    Ok((comparisons, rest))
}

/// Whether a dynamic filter's `predicate` is worth a pass over a column chunk with
/// `statistics`: it must be expected to drop at least half the chunk's values, estimated by the
/// share of the chunk's integer range `[min, max]` it keeps (values spread evenly). A join's key
/// bounds usually span a row group (TPC-H Q8: `l_partkey` between 157 and 199,949 of 1 to
/// 200,000, from a hash table of ~1,500 part keys), and a key list may name every key there is
/// (all 25 nations): such a pass drops next to no row and costs a decode of the column.
/// Byte-array bounds are taken when they exclude part of `[min, max]`; without statistics,
/// the predicate is taken.
fn worth_evaluating(predicate: &Predicate, statistics: Option<&Statistics>) -> bool {
    let integers = match statistics {
        Some(Statistics::Int32(s)) => s
            .min_opt()
            .zip(s.max_opt())
            .map(|(&min, &max)| (i128::from(min), i128::from(max))),
        Some(Statistics::Int64(s)) => s
            .min_opt()
            .zip(s.max_opt())
            .map(|(&min, &max)| (i128::from(min), i128::from(max))),
        _ => None,
    };
    let integer = |v: &Scalar| match v {
        Scalar::Int32(v) => Some(i128::from(*v)),
        Scalar::Int64(v) => Some(i128::from(*v)),
        _ => None,
    };
    match (predicate, integers) {
        (Predicate::Range(low, high), Some((min, max))) => {
            let (Some(low), Some(high)) = (integer(low), integer(high)) else {
                return true;
            };
            let kept = (high.min(max) - low.max(min) + 1).max(0);
            2 * kept <= max - min + 1
        }
        (Predicate::In(values), Some((min, max))) => {
            let mut inside: Vec<i128> = values
                .iter()
                .filter_map(integer)
                .filter(|v| (min..=max).contains(v))
                .collect();
            inside.sort_unstable();
            inside.dedup();
            2 * inside.len() as i128 <= max - min + 1
        }
        (Predicate::Range(Scalar::Bytes(low), Scalar::Bytes(high)), None) => {
            // Truncated statistics still bound the values: a truncated minimum is a prefix of
            // the true one, a truncated maximum is rounded up.
            let Some(Statistics::ByteArray(s)) = statistics else {
                return true;
            };
            match (s.min_opt(), s.max_opt()) {
                (Some(min), Some(max)) => {
                    !(low.as_slice() <= min.data() && max.data() <= high.as_slice())
                }
                _ => true,
            }
        }
        _ => true,
    }
}

/// A file being read, one row group at a time.
struct OpenedFile {
    plan: ScanPlan,
    metadata: ArrowReaderMetadata,
    file_size: u64,
    read_mask: ProjectionMask,
    fetched_roots: Vec<usize>,
    /// Per output column: its index in the file's columns (absent: nulls), and its field.
    output: Vec<(Option<usize>, datafusion::arrow::datatypes::FieldRef)>,
    output_schema: Option<SchemaRef>,
    /// The file's Arrow schema as read.
    file_schema: SchemaRef,
    /// The pushed filters: the query API's predicates, and the rest as an expression.
    row_filter: RowFilter,
    /// The dynamic filters' predicates, taken per row group where they can drop a row.
    dynamic_filter: RowFilter,
    /// The dynamic filters' other conjuncts (hash-table lookups), as one expression; taken
    /// until it has kept most of the rows it saw.
    dynamic_rest: Option<Arc<dyn PhysicalExpr>>,
    dynamic_selectivity: Arc<Selectivity>,
    row_groups: VecDeque<(usize, Option<RowSelection>)>,
    /// Threads decoding a row group's columns.
    threads: usize,
    current: Option<ParquetRecordBatchReader>,
    emitted: usize,
}

impl OpenedFile {
    async fn next_batch(
        &mut self,
        reader: &mut Box<dyn AsyncFileReader>,
    ) -> Result<Option<RecordBatch>> {
        loop {
            if self.plan.limit.is_some_and(|limit| self.emitted >= limit) {
                return Ok(None);
            }
            if let Some(current) = &mut self.current {
                match current.next() {
                    Some(batch) => {
                        let batch = self.finish(batch?)?;
                        if batch.num_rows() == 0 {
                            continue;
                        }
                        self.emitted += batch.num_rows();
                        return Ok(Some(batch));
                    }
                    None => self.current = None,
                }
            }
            let Some((row_group, selection)) = self.row_groups.pop_front() else {
                return Ok(None);
            };
            self.current = Some(self.open_row_group(reader, row_group, selection).await?);
        }
    }

    async fn open_row_group(
        &mut self,
        reader: &mut Box<dyn AsyncFileReader>,
        row_group: usize,
        selection: Option<RowSelection>,
    ) -> Result<ParquetRecordBatchReader> {
        let parquet_metadata = self.metadata.metadata();
        let schema = parquet_metadata.file_metadata().schema_descr();
        let group = parquet_metadata.row_group(row_group);
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for leaf in 0..schema.num_columns() {
            if self
                .fetched_roots
                .binary_search(&schema.get_column_root_idx(leaf))
                .is_ok()
            {
                let (start, length) = group.column(leaf).byte_range();
                let end = start
                    .checked_add(length)
                    .filter(|&end| end <= self.file_size);
                let end = end.ok_or_else(|| {
                    exec_datafusion_err!(
                        "row group {row_group}, column {}: its chunk ({start} + {length} bytes) lies past the file's end ({})",
                        schema.column(leaf).path(),
                        self.file_size
                    )
                })?;
                ranges.push(start..end);
            }
        }
        let fetched = reader.get_byte_ranges(ranges.clone()).await?;
        let chunks = FetchedChunks::new(
            self.file_size,
            ranges.into_iter().map(|r| r.start).zip(fetched),
        );
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(chunks, self.metadata.clone())
                .with_executor(self.plan.executor.clone())
                .with_row_groups(vec![row_group])
                .with_projection(self.read_mask.clone())
                .with_batch_size(self.plan.batch_size)
                .with_threads(self.threads);
        if let Some(selection) = selection {
            builder = builder.with_row_selection(selection);
        }
        let mut row_filter = self.row_filter.clone();
        for (column, predicate) in self.dynamic_filter.predicates() {
            let statistics = (0..schema.num_columns())
                .find(|&leaf| schema.column(leaf).path().string() == *column)
                .and_then(|leaf| group.column(leaf).statistics());
            if worth_evaluating(predicate, statistics) {
                row_filter = row_filter.and(column.clone(), predicate.clone());
            }
        }
        if let Some(rest) = &self.dynamic_rest {
            if !self.dynamic_selectivity.keeps_most_of(GIVE_UP_AFTER) {
                let predicate = ExprPredicate::new(
                    rest,
                    &self.file_schema,
                    schema,
                    Arc::clone(&self.dynamic_selectivity),
                )?
                .map(|p| p.optional(GIVE_UP_AFTER));
                if let Some(p) = predicate {
                    row_filter = row_filter.and_predicate(p);
                }
            }
        }
        if !row_filter.is_empty() {
            builder = builder.with_row_filter(row_filter);
        }
        if let Some(limit) = self.plan.limit {
            builder = builder.with_limit(limit.saturating_sub(self.emitted));
        }
        Ok(builder.build()?)
    }

    /// A batch as the scan gives it: the projected columns in the table's order and types
    /// (absent columns null).
    fn finish(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let batch_schema = batch.schema();
        let file_fields = self.metadata.schema().fields();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.output.len());
        for (index, field) in &self.output {
            let column = match index {
                Some(i) => {
                    let name = file_fields[*i].name();
                    let at = batch_schema.index_of(name)?;
                    let column = Arc::clone(batch.column(at));
                    if column.data_type() == field.data_type() {
                        column
                    } else {
                        cast(&column, field.data_type())?
                    }
                }
                None => new_null_array(field.data_type(), rows),
            };
            columns.push(column);
        }
        let schema = self
            .output_schema
            .get_or_insert_with(|| {
                Arc::new(Schema::new(
                    self.output
                        .iter()
                        .map(|(_, f)| Arc::clone(f))
                        .collect::<Vec<_>>(),
                ))
            })
            .clone();
        Ok(RecordBatch::try_new_with_options(
            schema,
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }
}

/// The byte ranges of a file fetched for one row group: the reader's input. A read that
/// starts outside them is an error (the reader reads only the chunks of the columns it was
/// given).
#[derive(Clone)]
struct FetchedChunks {
    file_size: u64,
    /// `(offset in the file, bytes)`, sorted by offset.
    chunks: Arc<Vec<(u64, Bytes)>>,
}

impl FetchedChunks {
    fn new(file_size: u64, chunks: impl Iterator<Item = (u64, Bytes)>) -> FetchedChunks {
        let mut chunks: Vec<(u64, Bytes)> = chunks.collect();
        chunks.sort_by_key(|(start, _)| *start);
        FetchedChunks {
            file_size,
            chunks: Arc::new(chunks),
        }
    }

    /// The fetched bytes from `start` to the end of the chunk holding `start`, and the
    /// chunk's length from there.
    fn from(&self, start: u64) -> Result<Bytes, ParquetError> {
        let at = self.chunks.partition_point(|(offset, _)| *offset <= start);
        let fetched = at.checked_sub(1).map(|i| &self.chunks[i]);
        match fetched {
            Some((offset, bytes)) if start - offset <= bytes.len() as u64 => {
                Ok(bytes.slice((start - offset) as usize..))
            }
            _ => Err(ParquetError::General(format!(
                "byte {start} of the file was not fetched for this row group"
            ))),
        }
    }
}

impl Length for FetchedChunks {
    fn len(&self) -> u64 {
        self.file_size
    }
}

impl ChunkReader for FetchedChunks {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        Ok(self.from(start)?.reader())
    }

    /// The bytes from `start` on, at most `length`: fewer when the chunk holding `start` ends
    /// first. The reader reads page headers through a window that may reach past its chunk
    /// (it takes short reads); a page that reaches past its chunk fails on the short read.
    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let bytes = self.from(start)?;
        Ok(bytes.slice(..length.min(bytes.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::{worth_evaluating, SpareThreads};
    use datafusion::parquet::data_type::ByteArray;
    use datafusion::parquet::file::statistics::Statistics;
    use qpl_rs::parquet::query::{Predicate, Scalar};

    #[test]
    fn dynamic_predicates_are_taken_where_they_drop_half_a_chunk() {
        let range = |l, h| Predicate::Range(Scalar::Int64(l), Scalar::Int64(h));
        let keys = |ks: &[i64]| Predicate::In(ks.iter().map(|&k| Scalar::Int64(k)).collect());
        // TPC-H Q8 at SF 1: part keys 1..=200,000 in a lineitem row group.
        let chunk = Statistics::int64(Some(1), Some(200_000), None, Some(0), false);
        assert!(!worth_evaluating(&range(157, 199_949), Some(&chunk)));
        assert!(!worth_evaluating(&range(-5, 6_000_000), Some(&chunk)));
        assert!(!worth_evaluating(&range(1, 100_001), Some(&chunk)));
        assert!(worth_evaluating(&range(1, 100_000), Some(&chunk)));
        assert!(worth_evaluating(&range(150_000, 6_000_000), Some(&chunk)));
        assert!(worth_evaluating(&range(300_000, 400_000), Some(&chunk)));
        assert!(worth_evaluating(&keys(&[5, 17, 199_999]), Some(&chunk)));
        // Nation keys 0..=24: all 25 listed drops nothing, 5 of them drop four fifths;
        // duplicates and keys outside the chunk's range count once or not at all.
        let nations = Statistics::int32(Some(0), Some(24), None, Some(0), false);
        let all: Vec<i64> = (0..25).collect();
        let nation_keys =
            |ks: &[i64]| Predicate::In(ks.iter().map(|&k| Scalar::Int32(k as i32)).collect());
        assert!(!worth_evaluating(&nation_keys(&all), Some(&nations)));
        assert!(worth_evaluating(
            &nation_keys(&[1, 2, 3, 17, 24]),
            Some(&nations)
        ));
        let doubled: Vec<i64> = (0..12).chain(0..12).chain(30..60).collect();
        assert!(worth_evaluating(&nation_keys(&doubled), Some(&nations)));
        assert!(!worth_evaluating(
            &nation_keys(&(0..13).collect::<Vec<_>>()),
            Some(&nations)
        ));
        // Without statistics (or without a max), taken.
        assert!(worth_evaluating(&range(157, 199_949), None));
        let no_max = Statistics::int64(Some(1), None, None, Some(0), false);
        assert!(worth_evaluating(&range(157, 199_949), Some(&no_max)));
        // Byte arrays: taken when they exclude part of [min, max].
        let words = Statistics::byte_array(
            Some(ByteArray::from("MAIL")),
            Some(ByteArray::from("TRUCK")),
            None,
            Some(0),
            false,
        );
        let bytes =
            |l: &str, h: &str| Predicate::Range(Scalar::Bytes(l.into()), Scalar::Bytes(h.into()));
        assert!(!worth_evaluating(&bytes("AIR", "TRUCK"), Some(&words)));
        assert!(worth_evaluating(&bytes("AIR", "SHIP"), Some(&words)));
    }

    #[test]
    fn threads_only_for_partitions_a_lone_file_leaves_idle() {
        let lone = |partitions, cores| SpareThreads {
            partitions,
            one_file: true,
            cores,
        };
        // TPC-H at SF 0.1: one row group, two partitions, two cores.
        assert_eq!(lone(2, 2).for_file(1), 2);
        // Never more threads than cores, nor than the idle partitions make up.
        assert_eq!(lone(2, 1).for_file(1), 1);
        assert_eq!(lone(16, 8).for_file(1), 8);
        assert_eq!(lone(8, 16).for_file(3), 3);
        // Enough row groups for every partition, or none: one thread, as stock.
        assert_eq!(lone(2, 2).for_file(2), 1);
        assert_eq!(lone(2, 2).for_file(6), 1);
        assert_eq!(lone(2, 2).for_file(0), 1);
        // Several files: the partitions share them out.
        let files = SpareThreads {
            partitions: 2,
            one_file: false,
            cores: 2,
        };
        assert_eq!(files.for_file(1), 1);
    }
}
