//! `qpl-parquet sql -e QUERY FILE...`: SQL over Parquet files in DataFusion, the scans decoded
//! by qpl-rs (`qpl_datafusion`). Needs the `sql` feature; without it the command says how to
//! rebuild and exits 2.
//!
//! Each FILE is a table named after its file stem (`data/trips.parquet` is `trips`). A stem
//! that is a plain SQL identifier (letters, digits, `_`, not starting with a digit) is
//! registered as that identifier, so it matches whatever case the query writes it in, as any
//! unquoted name; any other stem (`my-trips`, `Trips 2024`) is registered exactly and the
//! query names it in double quotes (`"my-trips"`).

use std::path::PathBuf;
use std::process::ExitCode;

use qpl_rs::Path;

/// The path [`Path::Auto`] resolves to on this host, as `qpl-parquet sql` and `qpl-tpch`
/// report it: `scans decoded by qpl-rs on path: hardware (IAA)`, or
/// `… on path: fallback (<why the accelerator cannot run>)`.
pub fn path_line() -> String {
    match Path::Hardware.availability() {
        Ok(()) => format!("scans decoded by qpl-rs on path: {} (IAA)", Path::Hardware),
        Err(why) => format!(
            "scans decoded by qpl-rs on path: {} ({why})",
            Path::Fallback
        ),
    }
}

/// The table name `file` is registered under (see the module docs), as DataFusion parses a
/// table reference: a plain identifier as it is, anything else double-quoted (with `"`
/// doubled) so that it stays one exact name.
pub fn table_name(file: &std::path::Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    let plain = stem
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    Some(if plain {
        stem.to_string()
    } else {
        format!("\"{}\"", stem.replace('"', "\"\""))
    })
}

/// Runs `query` over `files` and prints the result as a table on stdout, then
/// [`path_line`] on stderr. DataFusion's options are read from its `DATAFUSION_*` environment
/// variables. Exit status 0, or 2 with a message on stderr when such a variable is not a valid
/// option, a file cannot be registered or the query fails (or this build has no `sql` feature).
pub fn run(query: &str, files: &[PathBuf]) -> ExitCode {
    match imp::run(query, files) {
        Ok(table) => {
            println!("{table}");
            eprintln!("{}", path_line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("qpl-parquet sql: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(not(feature = "sql"))]
mod imp {
    use std::path::PathBuf;

    pub fn run(_query: &str, _files: &[PathBuf]) -> Result<String, String> {
        Err(
            "this build has no SQL engine: rebuild with `--features sql` \
             (cargo build -p qpl-examples --features sql)"
                .to_string(),
        )
    }
}

#[cfg(feature = "sql")]
mod imp {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use datafusion::arrow::util::pretty::pretty_format_batches_with_schema;
    use datafusion::prelude::{SessionConfig, SessionContext};

    use super::table_name;

    pub fn run(query: &str, files: &[PathBuf]) -> Result<String, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the async runtime: {e}"))?;
        runtime.block_on(async {
            // DataFusion's environment variables set its options, as in qpl-tpch.
            let config = SessionConfig::from_env()
                .map_err(|e| format!("a DATAFUSION_* environment variable: {e}"))?;
            let ctx = SessionContext::new_with_config(config);
            qpl_datafusion::enable(&ctx);
            let mut names: HashMap<String, &PathBuf> = HashMap::new();
            for file in files {
                let name = table_name(file).ok_or_else(|| {
                    format!("{}: no UTF-8 file stem to name its table", file.display())
                })?;
                let path = file
                    .to_str()
                    .ok_or_else(|| format!("{}: the path is not UTF-8", file.display()))?;
                if let Some(other) = names.insert(name.clone(), file) {
                    return Err(format!(
                        "{} and {} would both be table {name}",
                        other.display(),
                        file.display()
                    ));
                }
                qpl_datafusion::register_parquet(&ctx, &name, path)
                    .await
                    .map_err(|e| {
                        format!(
                            "{}: cannot register it as table {name}: {e}",
                            file.display()
                        )
                    })?;
            }
            let frame = ctx.sql(query).await.map_err(|e| e.to_string())?;
            let schema = frame.schema().inner().clone();
            let batches = frame.collect().await.map_err(|e| e.to_string())?;
            pretty_format_batches_with_schema(schema, &batches)
                .map(|table| table.to_string())
                .map_err(|e| format!("cannot print the result: {e}"))
        })
    }
}
