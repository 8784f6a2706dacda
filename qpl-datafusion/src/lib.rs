//! DataFusion scans Parquet through qpl-rs's Arrow reader: pages decoded by this project,
//! filters evaluated on the `Path` (dictionary columns by index scans, on IAA where the host
//! has one, the fallback's kernels everywhere else).
//!
//! One call switches a `SessionContext` over; `register_parquet`, `CREATE EXTERNAL TABLE …
//! STORED AS PARQUET`, `read_parquet` and SQL work unchanged:
//!
//! ```no_run
//! # async fn example() -> datafusion::common::Result<()> {
//! use datafusion::prelude::*;
//!
//! let ctx = SessionContext::new();
//! qpl_datafusion::enable(&ctx); // every Parquet scan planned from here on reads with qpl-rs
//! ctx.register_parquet("lineitem", "lineitem.parquet", ParquetReadOptions::default()).await?;
//! ctx.sql("SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode = 'MAIL'")
//!     .await?
//!     .show()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! How it plugs in:
//! - [`QplScanRule`], a physical optimizer rule that runs first, replaces each scan of
//!   DataFusion's `ParquetSource` by a [`QplParquetSource`] holding it: the same table schema,
//!   projection, statistics, file groups and options, with this project's reader opening the
//!   files. DataFusion's later rules (filter pushdown, projection pushdown, repartitioning,
//!   limits) then act on it.
//! - [`QplParquetSource::try_pushdown_filters`](datafusion::datasource::physical_plan::FileSource::try_pushdown_filters)
//!   takes the comparisons of a column with literals (`=`, `<>`, `<`, `<=`, `>`, `>=`,
//!   `IN`, `NOT IN`, and their conjunctions) and reports the rest unsupported, so DataFusion
//!   keeps a `FilterExec` for them. Row groups and pages are pruned by DataFusion's own
//!   pruning (statistics, page index) with every filter.
//! - [`QplParquetFormat`] is the same scan as a `FileFormat`, for a `ListingTable` that names
//!   it explicitly ([`register_parquet`]).
//! - [`QplPhysicalExtensionCodec`] writes and reads the scan in serialized physical plans
//!   (datafusion-proto), so that Ballista or any distributed DataFusion ships plans that scan
//!   with this project.

mod codec;
mod expr_predicate;
mod format;
mod opener;
mod predicate;
mod rule;
mod source;

use std::sync::Arc;

use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::prelude::SessionContext;
pub use qpl_rs::Path;

pub use codec::{decode_plan, encode_plan, QplPhysicalExtensionCodec};
pub use format::{register_parquet, QplParquetFormat};
pub use rule::QplScanRule;
pub use source::QplParquetSource;

/// Switches `ctx` over: every Parquet scan it plans from now on reads with this project's
/// reader on [`Path::Auto`] (the accelerator where usable, else the fallback). Tables and
/// settings are kept.
pub fn enable(ctx: &SessionContext) {
    enable_with_path(ctx, Path::Auto)
}

/// [`enable`], with the scans' decodes and filters on `path`.
pub fn enable_with_path(ctx: &SessionContext, path: Path) {
    let state = ctx.state_ref();
    let mut state = state.write();
    let builder = SessionStateBuilder::new_from_existing(state.clone());
    *state = with_qpl(builder, state.physical_optimizers(), path).build();
}

/// `builder` with [`QplScanRule`] on `path` first among `rules` (a state's physical
/// optimizer rules), for services that build their `SessionState` themselves.
pub fn with_qpl(
    builder: SessionStateBuilder,
    rules: &[Arc<dyn datafusion::physical_optimizer::PhysicalOptimizerRule + Send + Sync>],
    path: Path,
) -> SessionStateBuilder {
    let rule: Arc<dyn datafusion::physical_optimizer::PhysicalOptimizerRule + Send + Sync> =
        Arc::new(QplScanRule::new(path));
    let rules = std::iter::once(rule)
        .chain(rules.iter().filter(|r| r.name() != rule::NAME).cloned())
        .collect();
    builder.with_physical_optimizer_rules(rules)
}
