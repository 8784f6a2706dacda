//! [`QplParquetSource`]: DataFusion's Parquet scan with this project's reader underneath.

use std::fmt;
use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::Result;
use datafusion::datasource::physical_plan::parquet::can_expr_be_pushed_down_with_schemas;
use datafusion::datasource::physical_plan::{
    FileOpener, FileScanConfig, FileSource, ParquetSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_expr::conjunction;
use datafusion::physical_expr::expressions::DynamicFilterPhysicalExpr;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::DisplayFormatType;
use object_store::ObjectStore;
use qpl_rs::Path;

use crate::opener::QplParquetOpener;
use crate::predicate::comparison;

/// A Parquet scan whose pages this project decodes: DataFusion's [`ParquetSource`] (its
/// table schema, projection, predicate and options, so statistics and pruning stay
/// DataFusion's) with a file opener that reads through
/// [`qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder`].
///
/// Filters: [`FileSource::try_pushdown_filters`] takes the comparisons the reader evaluates
/// (see the crate's docs) and reports the others unsupported, so DataFusion keeps a
/// `FilterExec` for them; every filter also joins the predicate that prunes row groups and
/// pages by their statistics, as in DataFusion's own scan.
#[derive(Clone, Debug)]
pub struct QplParquetSource {
    inner: ParquetSource,
    path: Path,
    batch_size: Option<usize>,
}

impl QplParquetSource {
    /// This project's scan with `inner`'s schema, projection, predicate and options, decoding
    /// on `path`.
    ///
    /// Conjuncts of the predicate that hold a scalar subquery's result are left out of it
    /// (they only prune; the filter above the scan still applies them): datafusion-proto
    /// decodes such an expression only inside its plan's `ScalarSubqueryExec`, and
    /// [`crate::QplPhysicalExtensionCodec`] encodes the scan on its own.
    pub fn new(inner: ParquetSource, path: Path) -> QplParquetSource {
        let inner = match inner.filter() {
            Some(predicate) if holds_scalar_subquery(&predicate) => {
                // `conjunction` of nothing is `true`: a predicate that prunes nothing.
                let kept = datafusion::physical_expr::split_conjunction(&predicate)
                    .into_iter()
                    .filter(|f| !holds_scalar_subquery(f))
                    .cloned();
                inner.with_predicate(conjunction(kept))
            }
            _ => inner,
        };
        QplParquetSource {
            inner,
            path,
            batch_size: None,
        }
    }

    /// DataFusion's own scan with the same schema, projection, predicate and options (what a
    /// plan serializer writes; [`crate::QplPhysicalExtensionCodec`] wraps it).
    pub fn parquet_source(&self) -> &ParquetSource {
        &self.inner
    }

    /// Where the reader's scans and decodes run.
    pub fn path(&self) -> Path {
        self.path
    }

    /// The filters this scan evaluates itself (in terms of the table schema): the conjuncts
    /// of the predicate that are comparisons it takes; with `pushdown_filters` on, every
    /// conjunct on the file's columns (as DataFusion's scan), those the query API cannot say
    /// evaluated as expressions on their own columns before the others are decoded. Dynamic
    /// filters are not among them (the opener takes what they hold when a file opens).
    pub fn pushed_filters(&self) -> Vec<Arc<dyn PhysicalExpr>> {
        match self.inner.filter() {
            None => Vec::new(),
            Some(predicate) => datafusion::physical_expr::split_conjunction(&predicate)
                .into_iter()
                .filter(|f| evaluates(&self.inner, f))
                .cloned()
                .collect(),
        }
    }

    fn with_inner(&self, inner: ParquetSource) -> QplParquetSource {
        QplParquetSource {
            inner,
            path: self.path,
            batch_size: self.batch_size,
        }
    }
}

impl FileSource for QplParquetSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let table_schema = self.inner.table_schema();
        let projection = match self.inner.projection() {
            Some(projection) => SplitProjection::new(table_schema.file_schema(), projection),
            None => SplitProjection::unprojected(table_schema),
        };
        let opener = QplParquetOpener::new(
            self,
            object_store,
            &projection.file_indices,
            base_config,
            partition,
        );
        ProjectionOpener::try_new(projection, Arc::new(opener), table_schema.file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        self.inner.table_schema()
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut source = self.clone();
        source.batch_size = Some(batch_size);
        Arc::new(source)
    }

    fn filter(&self) -> Option<Arc<dyn PhysicalExpr>> {
        self.inner.filter()
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        self.inner.projection()
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        self.inner.metrics()
    }

    fn file_type(&self) -> &str {
        "parquet"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.fmt_extra(t, f)?;
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", reader=qpl-rs, path={}", self.path.name())?;
                let pushed = self.pushed_filters();
                if !pushed.is_empty() {
                    let pushed: Vec<String> = pushed.iter().map(|p| p.to_string()).collect();
                    write!(f, ", scan_filters=[{}]", pushed.join(", "))?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => writeln!(f, "reader=qpl-rs"),
        }
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        if filters.is_empty() {
            return Ok(FilterPushdownPropagation::with_parent_pushdown_result(
                Vec::new(),
            ));
        }
        // As DataFusion's scan: the table's option or the session's; kept in the scan's
        // options, so that a plan decoded elsewhere evaluates what this one was given.
        let pushdown = self.inner.table_parquet_options().global.pushdown_filters
            || config.execution.parquet.pushdown_filters;
        let inner = self.inner.clone().with_pushdown_filters(pushdown);
        let pushed: Vec<PushedDown> = filters
            .iter()
            .map(|f| {
                if evaluates(&inner, f) {
                    PushedDown::Yes
                } else {
                    PushedDown::No
                }
            })
            .collect();
        // Every filter prunes (statistics, page index), as in DataFusion's scan, except those
        // holding a scalar subquery's result (see `new`); those pushed are also evaluated by
        // the reader.
        let filters = filters.into_iter().filter(|f| !holds_scalar_subquery(f));
        let predicate = conjunction(inner.filter().into_iter().chain(filters));
        let inner = inner.with_predicate(predicate);
        let source: Arc<dyn FileSource> = Arc::new(self.with_inner(inner));
        Ok(
            FilterPushdownPropagation::with_parent_pushdown_result(pushed)
                .with_updated_node(source),
        )
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let Some(pushed) = self.inner.try_pushdown_projection(projection)? else {
            return Ok(None);
        };
        // DataFusion's scan may add a virtual column (a row index) this reader does not
        // make: the projection then stays above the scan.
        match pushed.downcast_ref::<ParquetSource>() {
            Some(inner) if inner.table_schema().virtual_columns().is_empty() => {
                Ok(Some(Arc::new(self.with_inner(inner.clone()))))
            }
            _ => Ok(None),
        }
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }
}

impl QplParquetSource {
    pub(crate) fn batch_size(&self, base_config: &FileScanConfig) -> usize {
        self.batch_size.or(base_config.batch_size).unwrap_or(8192)
    }
}

/// Whether the scan `inner` configures evaluates `filter` (see
/// [`QplParquetSource::pushed_filters`]).
fn evaluates(inner: &ParquetSource, filter: &Arc<dyn PhysicalExpr>) -> bool {
    let schema = inner.table_schema().file_schema();
    if comparison(filter, schema).is_some() {
        return true;
    }
    inner.table_parquet_options().global.pushdown_filters
        && filter.downcast_ref::<DynamicFilterPhysicalExpr>().is_none()
        && !holds_scalar_subquery(filter)
        && can_expr_be_pushed_down_with_schemas(filter, schema)
}

/// Whether `expr` uses a scalar subquery's result.
fn holds_scalar_subquery(expr: &Arc<dyn PhysicalExpr>) -> bool {
    let mut found = false;
    let _ = expr.apply(|e| {
        found |= e
            .downcast_ref::<datafusion::physical_expr::scalar_subquery::ScalarSubqueryExpr>()
            .is_some();
        Ok(if found {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    found
}
