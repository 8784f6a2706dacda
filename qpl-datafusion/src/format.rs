//! [`QplParquetFormat`]: the scan as a `FileFormat`, for tables that name it explicitly.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::{Result, Statistics, DEFAULT_PARQUET_EXTENSION};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use object_store::{ObjectMeta, ObjectStore};
use qpl_rs::Path;

use crate::rule::QplScanRule;

/// Parquet read by this project: DataFusion's [`ParquetFormat`] (schema inference,
/// statistics, writing) whose scans are [`QplParquetSource`](crate::QplParquetSource)s.
#[derive(Debug, Default)]
pub struct QplParquetFormat {
    inner: ParquetFormat,
    path: Option<Path>,
}

impl QplParquetFormat {
    /// `inner`'s options, scans on `path`.
    pub fn new(inner: ParquetFormat, path: Path) -> QplParquetFormat {
        QplParquetFormat {
            inner,
            path: Some(path),
        }
    }

    fn path(&self) -> Path {
        self.path.unwrap_or(Path::Auto)
    }
}

#[async_trait]
impl FileFormat for QplParquetFormat {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.inner.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.inner.compression_type()
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.inner.infer_schema(state, store, objects).await
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        self.inner
            .infer_stats(state, store, table_schema, object)
            .await
    }

    async fn infer_stats_and_ordering(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<datafusion::datasource::file_format::FileMeta> {
        self.inner
            .infer_stats_and_ordering(state, store, table_schema, object)
            .await
    }

    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.inner.create_physical_plan(state, conf).await?;
        QplScanRule::new(self.path()).rewrite(plan)
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner
            .create_writer_physical_plan(input, state, conf, order_requirements)
            .await
    }

    /// DataFusion's Parquet source: `ParquetFormat::create_physical_plan` takes only that;
    /// [`create_physical_plan`](Self::create_physical_plan) then puts this project's reader
    /// on the scan it makes.
    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        self.inner.file_source(table_schema)
    }
}

impl fmt::Display for QplParquetFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "QplParquetFormat(path={})", self.path().name())
    }
}

/// Registers the Parquet file or directory at `table_path` (a path or URL) as table `name`
/// of `ctx`, scanned by this project ([`QplParquetFormat`], the session's Parquet options),
/// whether or not the session was [`enable`](crate::enable)d.
pub async fn register_parquet(ctx: &SessionContext, name: &str, table_path: &str) -> Result<()> {
    let state = ctx.state();
    let parquet = ParquetFormat::default().with_options(state.table_options().parquet.clone());
    let format = QplParquetFormat::new(parquet, Path::Auto);
    let url = ListingTableUrl::parse(table_path)?;
    let options =
        ListingOptions::new(Arc::new(format)).with_file_extension(DEFAULT_PARQUET_EXTENSION);
    let schema = options.infer_schema(&state, &url).await?;
    let config = ListingTableConfig::new(url)
        .with_listing_options(options)
        .with_schema(schema);
    ctx.register_table(name, Arc::new(ListingTable::try_new(config)?))?;
    Ok(())
}
