//! Placeholder until h4's `qpl-parquet` lands (replaced by its mod.rs on merge).

pub mod bench;
pub mod files;
pub mod filter;
