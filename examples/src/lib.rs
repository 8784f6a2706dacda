//! Support code for the qpl-rs example programs.
//!
//! - [`path`]: the execution paths (`fallback` today; `software`, `hardware` and `auto` once
//!   the safe `qpl_rs` crate provides them) and the one function that dispatches a job to them.
//! - [`replay`]: the JSON Lines format of `qpl-replay` — parse a job line, run it, format the
//!   result line. Kept here, not in the binary, so it is unit-tested and a fuzz target can call
//!   [`parse_job_line`] and [`run_line`] directly.
//! - [`parquet_tool`]: `qpl-parquet` — Parquet files decoded by `qpl_rs::parquet` and verified
//!   against the `parquet` crate, benchmarked, filtered, queried with SQL; the demo and test
//!   files.
//! - [`tpch`]: `qpl-tpch` — the TPC-H queries in stock DataFusion and in DataFusion on qpl-rs,
//!   compared and timed (the engines behind the `sql` feature).
//!
//! The binaries are `qpl-demo` (`src/main.rs`: encode, decode, scan, select and expand a
//! million values, check them and print throughput), `qpl-replay` (`src/bin/qpl-replay.rs`)
//! and `qpl-parquet` (`src/bin/qpl-parquet.rs`); with the `sql` feature, `qpl-tpch`
//! (`src/bin/qpl-tpch.rs`).

pub mod parquet_tool;
pub mod path;
pub mod replay;
pub mod tpch;

pub use path::ExecPath;
pub use replay::{parse_job_line, run_line, ReplayJob};
