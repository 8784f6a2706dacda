//! `qpl-parquet`: Parquet files decoded by qpl-rs's page layer — `verify` (against the
//! `parquet` crate), `read`, `bench`, `filter` and `sql` (DataFusion on qpl-rs). See
//! `qpl_examples::parquet_tool`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser as _;
use qpl_examples::parquet_tool::{bench, files, filter, read, sql, verify};
use qpl_examples::ExecPath;

const LONG_ABOUT: &str = "\
Decodes Parquet files with qpl-rs's own page layer (levels, dictionary indices and RLE booleans \
on the chosen path: the IAA accelerator, QPL's software path or the pure-Rust fallback; every \
other encoding on the CPU codecs) and checks, benchmarks or filters them, or runs SQL over them \
in DataFusion (sql, with the sql feature).

The parquet crate reads the file structure (footer, page headers, decompression) and is the \
reference decoder; it decodes nothing on qpl-rs's own path.";

const VERIFY_ABOUT: &str = "\
Decodes every column chunk of every row group of each FILE (dictionary pages, data pages v1 and \
v2, any compression, nested and nullable columns) with qpl-rs and compares definition levels, \
repetition levels and values with the parquet crate's reading (floats by bit pattern).

With no FILE: writes a demo file with every encoding to the temporary directory
(qpl-parquet-demo.parquet, kept for bench and filter) and verifies it.

Output: one JSON line per column chunk on stdout, with the keys
  file, row_group, column (dotted path), physical_type,
  encodings (distinct page-header encodings in first-seen order: per page the dictionary
    page's encoding, or the value encoding then the repetition- and definition-level
    encodings of the levels the column has),
  values (levels in the chunk: one per value slot, nulls and empty lists included),
  result (ok, mismatch or error), detail (\"\" when ok, else the first difference or the error),
  path (the path that decoded levels/indices/booleans: hardware or software if any page used
    it, else fallback; null when the chunk has none of these parts, e.g. a required PLAIN
    column, or nothing was decoded).
A file that cannot be opened or parsed (or a --path that cannot run here) gives one error line
for the file, with row_group, column and physical_type null.
A summary goes to stderr.

Exit status: 0 when every chunk is ok, 1 when any is a mismatch, 2 when any is an error (or the \
path cannot run here).";

const BENCH_ABOUT: &str = "\
Throughput of qpl-rs's decoding of FILE against the parquet crate's: one table, per column \
chunk, of both decoders on the same decompressed pages in memory (best of a few runs).

For a file with GZIP column chunks, a second table follows: per GZIP chunk, its pages as \
stored (compressed) decoded by qpl-rs in one decompress-enabled job per page where the \
encoding allows it (dictionary indices, PLAIN booleans) and, for comparison, inflated on the \
CPU then decoded. Columns: one-job pages (pages decoded in one job / data pages), one-job ms, \
inflate+decode ms, gain (inflate+decode time / one-job time), ran on; then a total line.

Last, the Arrow readers: FILE (in memory) read to RecordBatches of 8192 rows by qpl-rs's \
ParquetRecordBatchReaderBuilder and by arrow-rs's, the whole file then each top-level column \
alone: rows, batches, MB (uncompressed size of the chunks read), both times, both MB/s and the \
speedup (arrow-rs time / qpl-rs time); then a total line.";

const READ_ABOUT: &str = "\
Reads each FILE to Arrow RecordBatches with qpl-rs's reader \
(qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder) and, unless --no-check, compares every \
column of every batch with arrow-rs's ParquetRecordBatchReaderBuilder given the same options \
(projection, batch size, filter). arrow-rs's read is timed in the same run, also with --no-check.

--columns: top-level columns by name (a struct or list brings all its leaves). --filter COL=VALUE: \
rows whose leaf COL (dotted path) equals VALUE, parsed as the column's physical type reads it \
(as filter's --eq); qpl-rs gets a RowFilter of Predicate::Eq, arrow-rs an ArrowPredicateFn \
computing the same equality (nulls never match, floats compare as numbers). --path and \
--threads apply to qpl-rs's reader only.

Output: one JSON line per file on stdout, with the keys
  file, rows (rows qpl-rs's reader gave), batches, columns (top-level columns of the batches),
  result (ok, mismatch or error), detail (\"\" when ok, else the first difference, e.g.
    \"batch 3, column b, row 17: expected 5, got 6\", or the error),
  ms (qpl-rs's read: footer, build and every batch), arrow_rs_ms (arrow-rs's read of the same
    file with the same options).
rows, batches, columns and the times are null on an error line.

Exit status: 0 when every file is ok, 1 when any is a mismatch, 2 when any is an error.";

const SQL_ABOUT: &str = "\
Runs QUERY in DataFusion over the FILEs, whose scans qpl-rs decodes (qpl_datafusion: pages \
decoded and filters evaluated on the auto path, the IAA accelerator where usable, else the \
pure-Rust fallback), and prints the result as a table on stdout, then on stderr the path that \
decoded the scans.

Each FILE is a table named after its file stem: data/trips.parquet is trips. A stem that is a \
plain identifier (letters, digits, _) is matched in any case, as an unquoted SQL name; any \
other stem is named exactly, in double quotes: SELECT count(*) FROM \"my-trips\".

DataFusion's own environment variables set its options, as in qpl-tpch: \
DATAFUSION_EXECUTION_PARQUET_PUSHDOWN_FILTERS=true has the scans evaluate every filter they \
can (EXPLAIN ANALYZE then shows what they kept).

Needs a build with the sql feature (cargo build -p qpl-examples --features sql); without it \
the command says so and exits 2.

Exit status: 0, or 2 when a DATAFUSION_* variable is not a valid option, a file cannot be \
registered or the query fails.";

/// Command line of `qpl-parquet`.
#[derive(clap::Parser)]
#[command(
    name = "qpl-parquet",
    version,
    about = "Decode Parquet files with qpl-rs: verify against the parquet crate, read to Arrow, bench, filter, SQL",
    long_about = LONG_ABOUT
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Decode every column chunk and compare with the parquet crate (JSON lines on stdout).
    #[command(long_about = VERIFY_ABOUT)]
    Verify {
        /// Where levels, dictionary indices and RLE booleans are decoded.
        #[arg(long, value_enum, default_value_t = ExecPath::Auto)]
        path: ExecPath,
        /// Parquet files (none: write a demo file with every encoding and verify it).
        files: Vec<PathBuf>,
    },
    /// Throughput of qpl-rs's decoding of FILE against the parquet crate's.
    #[command(long_about = BENCH_ABOUT)]
    Bench {
        /// Where qpl-rs's levels, dictionary indices and RLE booleans are decoded.
        #[arg(long, value_enum, default_value_t = ExecPath::Auto)]
        path: ExecPath,
        /// A Parquet file.
        file: PathBuf,
    },
    /// Read FILEs to Arrow batches with qpl-rs's reader and compare with arrow-rs's (JSON
    /// lines on stdout).
    #[command(long_about = READ_ABOUT)]
    Read {
        /// Top-level columns to read, comma-separated (default: all).
        #[arg(long, value_name = "A,B", value_delimiter = ',')]
        columns: Option<Vec<String>>,
        /// Rows per batch.
        #[arg(long, value_name = "N", default_value_t = read::DEFAULT_BATCH_SIZE, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        batch_size: usize,
        /// Where qpl-rs's reader decodes levels, dictionary indices and RLE booleans.
        #[arg(long, value_enum, default_value_t = ExecPath::Auto)]
        path: ExecPath,
        /// Threads decoding a row group's columns in qpl-rs's reader.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        threads: usize,
        /// Keep only the rows whose leaf column COL equals VALUE.
        #[arg(long, value_name = "COL=VALUE", value_parser = parse_filter)]
        filter: Option<(String, String)>,
        /// Only read and time both readers; compare nothing.
        #[arg(long)]
        no_check: bool,
        /// Parquet files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Rows of FILE whose COLUMN equals VALUE (a dictionary column is filtered by scanning its
    /// indices, without decoding values).
    Filter {
        /// A Parquet file.
        file: PathBuf,
        /// The column to compare (dotted path).
        #[arg(long, value_name = "NAME")]
        column: String,
        /// The value to match, written as the column's type reads it.
        #[arg(long, value_name = "VALUE")]
        eq: String,
        /// Also print the values of this column in the matching rows (without it, only the count).
        #[arg(long, value_name = "COLUMN")]
        select: Option<String>,
        /// Where the scans run.
        #[arg(long, value_enum, default_value_t = ExecPath::Auto)]
        path: ExecPath,
    },
    /// Run a SQL query over FILEs (each a table named after its file stem) in DataFusion,
    /// the scans decoded by qpl-rs; prints the result as a table.
    #[command(long_about = SQL_ABOUT)]
    Sql {
        /// The SQL statement to run.
        #[arg(short = 'e', long = "execute", value_name = "QUERY")]
        query: String,
        /// Parquet files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Verify { path, files } if files.is_empty() => demo(path.to_qpl()),
        Command::Verify { path, files } => verify::run(&files, path.to_qpl()),
        Command::Bench { path, file } => bench::run(&file, path.to_qpl()),
        Command::Filter {
            file,
            column,
            eq,
            select,
            path,
        } => filter::run(&file, &column, &eq, select.as_deref(), path.to_qpl()),
        Command::Sql { query, files } => sql::run(&query, &files),
        Command::Read {
            columns,
            batch_size,
            path,
            threads,
            filter,
            no_check,
            files,
        } => read::run(
            &files,
            &read::Options {
                columns,
                batch_size,
                path: path.to_qpl(),
                threads,
                filter,
                check: !no_check,
            },
        ),
    }
}

/// `--filter COL=VALUE`, split at the first `=`.
fn parse_filter(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((column, value)) if !column.is_empty() => Ok((column.to_string(), value.to_string())),
        _ => Err(format!("expected COL=VALUE, got {text:?}")),
    }
}

/// Writes the demo file (every encoding) to the temporary directory as
/// `qpl-parquet-demo.parquet` and verifies it. The file stays, for `bench` and `filter`; it is
/// written under a name of this process and renamed, so concurrent runs never read a
/// half-written file.
fn demo(path: qpl_rs::Path) -> ExitCode {
    let dir = std::env::temp_dir();
    let file = dir.join("qpl-parquet-demo.parquet");
    let partial = dir.join(format!("qpl-parquet-demo.{}.partial", std::process::id()));
    let written = files::write_demo_file(&partial)
        .map_err(|e| e.to_string())
        .and_then(|()| std::fs::rename(&partial, &file).map_err(|e| e.to_string()));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        eprintln!(
            "qpl-parquet: cannot write the demo file {}: {e}",
            file.display()
        );
        return ExitCode::from(2);
    }
    eprintln!(
        "wrote the demo file {} (every encoding; try `qpl-parquet filter {} --column a --eq \
         Paris`); verifying it on the {path} path",
        file.display(),
        file.display()
    );
    verify::run(std::slice::from_ref(&file), path)
}
