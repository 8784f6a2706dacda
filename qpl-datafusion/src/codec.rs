//! [`QplPhysicalExtensionCodec`]: the scan in serialized physical plans.

use std::sync::Arc;

use datafusion::common::{exec_datafusion_err, Result};
use datafusion::datasource::physical_plan::{FileScanConfigBuilder, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::bytes::{
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use qpl_rs::Path;

use crate::source::QplParquetSource;

/// The first bytes of an encoded scan, with the format's version.
const MAGIC: &[u8] = b"qpl-rs parquet scan v1\n";

/// Encodes and decodes [`QplParquetSource`] scans in datafusion-proto's physical plans, so
/// that a plan made on one machine scans with this project on another (Ballista,
/// distributed DataFusion). Give it wherever a `PhysicalExtensionCodec` is taken (Ballista:
/// the scheduler's and executors' `physical_extension_codec`).
///
/// The scan is written as DataFusion's own Parquet scan with the same configuration (file
/// groups, schema, projection, predicate, options; the filters this scan evaluates are part
/// of the predicate), behind a marker and the [`Path`]: the receiving side decodes it with
/// datafusion-proto and puts this project's reader back on it. Other nodes are not this
/// codec's: an error, so a chain of codecs can try the next.
#[derive(Debug, Default)]
pub struct QplPhysicalExtensionCodec;

impl PhysicalExtensionCodec for QplPhysicalExtensionCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        _inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let rest = buf
            .strip_prefix(MAGIC)
            .ok_or_else(|| exec_datafusion_err!("not a qpl-rs Parquet scan"))?;
        let (&path, plan) = rest
            .split_first()
            .ok_or_else(|| exec_datafusion_err!("a qpl-rs Parquet scan without its path"))?;
        let path = Path::ALL
            .into_iter()
            .find(|p| path_byte(*p) == path)
            .ok_or_else(|| exec_datafusion_err!("a qpl-rs Parquet scan with path byte {path}"))?;
        let plan = physical_plan_from_bytes_with_extension_codec(plan, ctx, self)?;
        let exec = plan.downcast_ref::<DataSourceExec>();
        let (config, parquet) = exec
            .and_then(|e| e.downcast_to_file_source::<ParquetSource>())
            .ok_or_else(|| {
                exec_datafusion_err!("a qpl-rs Parquet scan that does not hold a Parquet scan")
            })?;
        let source = QplParquetSource::new(parquet.clone(), path);
        let config = FileScanConfigBuilder::from(config.clone())
            .with_source(Arc::new(source))
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let exec = node.downcast_ref::<DataSourceExec>();
        let (config, source) = exec
            .and_then(|e| e.downcast_to_file_source::<QplParquetSource>())
            .ok_or_else(|| exec_datafusion_err!("not a qpl-rs Parquet scan: {node:?}"))?;
        let parquet = FileScanConfigBuilder::from(config.clone())
            .with_source(Arc::new(source.parquet_source().clone()))
            .build();
        let parquet = DataSourceExec::from_data_source(parquet);
        let plan = physical_plan_to_bytes_with_extension_codec(parquet, self)?;
        buf.extend_from_slice(MAGIC);
        buf.push(path_byte(source.path()));
        buf.extend_from_slice(&plan);
        Ok(())
    }
}

/// A path as one byte of the encoding.
fn path_byte(path: Path) -> u8 {
    match path {
        Path::Auto => 0,
        Path::Fallback => 1,
        Path::Software => 2,
        Path::Hardware => 3,
    }
}

/// `plan` as datafusion-proto bytes, its qpl-rs scans encoded by [`QplPhysicalExtensionCodec`]
/// (what a scheduler ships to executors).
pub fn encode_plan(plan: Arc<dyn ExecutionPlan>) -> Result<bytes::Bytes> {
    physical_plan_to_bytes_with_extension_codec(plan, &QplPhysicalExtensionCodec)
}

/// The plan [`encode_plan`] wrote, its qpl-rs scans back on this project's reader.
pub fn decode_plan(bytes: &[u8], ctx: &TaskContext) -> Result<Arc<dyn ExecutionPlan>> {
    physical_plan_from_bytes_with_extension_codec(bytes, ctx, &QplPhysicalExtensionCodec)
}
