//! `qpl-parquet`: Parquet files decoded by qpl-rs's page layer ([`qpl_rs::parquet`]) and
//! checked against the `parquet` crate.
//!
//! - [`verify`]: every column chunk of a file decoded by this project — definition levels,
//!   repetition levels and values — and compared with what the `parquet` crate reads (one JSON
//!   line per chunk).
//! - [`files`]: the demo file (every encoding) and the test files.
//! - [`bench`](mod@bench): throughput of this project's decoding against the `parquet` crate's.
//! - [`filter`]: `--column NAME --eq VALUE [--select COLUMN]`, by dictionary-index scans where
//!   the column allows.
//! - [`read`]: files to Arrow `RecordBatch`es with the library's reader
//!   (`qpl_rs::parquet::arrow`), compared with arrow-rs's reader and timed against it.
//! - [`sql`]: a SQL query over files in DataFusion, the scans decoded by qpl-rs
//!   (`qpl_datafusion`; feature `sql`).
//!
//! The entry points the binary (`src/bin/qpl-parquet.rs`) calls, agreed between the modules:
//!
//! ```text
//! verify::run(files: &[std::path::PathBuf], path: qpl_rs::Path) -> ExitCode
//! files::write_demo_file(path: &std::path::Path) -> parquet::errors::Result<()>
//! bench::run(file: &std::path::Path, path: qpl_rs::Path) -> ExitCode
//! read::run(files: &[std::path::PathBuf], options: &read::Options) -> ExitCode
//! filter::run(file: &std::path::Path, column: &str, eq: &str, select: Option<&str>,
//!             path: qpl_rs::Path) -> ExitCode
//! sql::run(query: &str, files: &[std::path::PathBuf]) -> ExitCode
//! ```

pub mod bench;
pub mod files;
pub mod filter;
pub mod read;
pub mod sql;
pub mod verify;
