//! [`QplScanRule`]: DataFusion's Parquet scans become [`QplParquetSource`] scans.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::datasource::physical_plan::{FileScanConfigBuilder, FileSource, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use qpl_rs::Path;

use crate::source::QplParquetSource;

/// The rule's name in a session's rule list.
pub(crate) const NAME: &str = "qpl_parquet_scan";

/// Replaces every scan of DataFusion's `ParquetSource` by a [`QplParquetSource`] holding it.
/// Runs first ([`crate::enable`] puts it there), so that the filter pushdown rule offers
/// the filters to this project's scan. Scans of encrypted files are left as they are (the
/// reader does not decrypt).
#[derive(Debug)]
pub struct QplScanRule {
    path: Path,
}

impl QplScanRule {
    /// The rule, with the scans' decodes and filters on `path`.
    pub fn new(path: Path) -> QplScanRule {
        QplScanRule { path }
    }

    /// `plan` with its Parquet scans replaced.
    pub fn rewrite(&self, plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(exec) = node.downcast_ref::<DataSourceExec>() else {
                return Ok(Transformed::no(node));
            };
            let Some((config, parquet)) = exec.downcast_to_file_source::<ParquetSource>() else {
                return Ok(Transformed::no(node));
            };
            if parquet
                .table_parquet_options()
                .crypto
                .file_decryption
                .is_some()
                || !parquet.table_schema().virtual_columns().is_empty()
            {
                return Ok(Transformed::no(node));
            }
            let source = QplParquetSource::new(parquet.clone(), self.path);
            let config = FileScanConfigBuilder::from(config.clone())
                .with_source(Arc::new(source))
                .build();
            Ok(Transformed::yes(
                DataSourceExec::from_data_source(config) as Arc<dyn ExecutionPlan>
            ))
        })
        .data()
    }
}

impl PhysicalOptimizerRule for QplScanRule {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.rewrite(plan)
    }

    fn name(&self) -> &str {
        NAME
    }

    fn schema_check(&self) -> bool {
        true
    }
}
