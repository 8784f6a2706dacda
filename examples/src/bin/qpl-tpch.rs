//! `qpl-tpch --sf F --dir DIR [--check] [--runs N] [--queries 1,6,…]`: the 22 TPC-H queries in
//! stock DataFusion and in DataFusion on qpl-rs, results compared, times measured. See
//! `qpl_examples::tpch`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser as _;
use qpl_examples::tpch::run::{self, Options};

const LONG_ABOUT: &str = "\
Runs the 22 TPC-H queries (written from the TPC-H specification, with its validation \
parameters) in stock DataFusion and in DataFusion scanning Parquet through qpl-rs \
(qpl_datafusion::enable), compares the results and times both.

The tables: DIR/<table>.parquet for the eight TPC-H tables. Those absent are generated at scale \
factor F (tpchgen-arrow) and written with arrow-rs's ArrowWriter: snappy, dictionary encoding, \
row groups of 1M rows (to a temporary name, then renamed). Files already there are used as they \
are, whatever their scale factor.

Both engines: their own SessionContext with the same configuration (target_partitions = the CPU \
count; other options from DataFusion's DATAFUSION_* environment variables, e.g. \
DATAFUSION_EXECUTION_PARQUET_PUSHDOWN_FILTERS=true), every table registered from its file. Each run plans the query and collects its whole \
result; the engines alternate.

Results are equal when they have the same schema (names, types, nullability) and the same rows, \
compared as sorted lists of rows rendered by arrow's display (rows whose ORDER BY keys tie may \
come in any order); for queries with an ORDER BY, the sequences of ORDER BY keys must also be \
the same.

Output: one JSON line per query on stdout, with the keys
  query (1-22), rows (rows of stock DataFusion's result; qpl-rs's when stock failed),
  result (ok, mismatch or error), detail (\"\" when ok, else the first difference or the error),
  stock_ms, qpl_ms (median time of the runs, in ms; null for an engine that failed).
A summary goes to stderr.

Exit status: 0 when every query is ok, 1 when any is a mismatch, 2 when any is an error (or the \
tables cannot be written).";

/// Command line of `qpl-tpch`.
#[derive(clap::Parser)]
#[command(
    name = "qpl-tpch",
    version,
    about = "TPC-H in stock DataFusion and in DataFusion on qpl-rs: results compared, times measured",
    long_about = LONG_ABOUT
)]
struct Cli {
    /// Scale factor of the tables written when absent (1 = the 1 GB database).
    #[arg(long, value_name = "F", value_parser = parse_sf)]
    sf: f64,
    /// Directory of the tables' Parquet files (created when absent).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Run each query once per engine and compare (no repeated runs).
    #[arg(long)]
    check: bool,
    /// Runs per query and engine; the times printed are their medians.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    runs: usize,
    /// The queries to run, comma-separated (default: 1 to 22).
    #[arg(long, value_name = "1,6,…", value_delimiter = ',', value_parser = clap::value_parser!(u8).range(1..=22))]
    queries: Option<Vec<u8>>,
}

/// A positive, finite scale factor.
fn parse_sf(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(sf) if sf > 0.0 && sf.is_finite() => Ok(sf),
        _ => Err(format!("expected a positive number, got {text:?}")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    run::run(&Options {
        sf: cli.sf,
        dir: cli.dir,
        check: cli.check,
        runs: cli.runs,
        queries: cli.queries.unwrap_or_else(|| (1..=22).collect()),
    })
}
