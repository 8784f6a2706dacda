//! `qpl-parquet sql`: with the `sql` feature, a query over small files written here prints
//! the expected table and the path line, and a bad query or file exits 2; without it, the
//! command says to rebuild with `--features sql` and exits 2.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `qpl-parquet sql args`: (exit code, stdout, stderr).
fn sql(args: &[&str]) -> (i32, String, String) {
    sql_with(args, None)
}

/// [`sql`] with DataFusion's pushdown option set to `pushdown` in the environment (`None`:
/// unset).
fn sql_with(args: &[&str], pushdown: Option<&str>) -> (i32, String, String) {
    const PUSHDOWN: &str = "DATAFUSION_EXECUTION_PARQUET_PUSHDOWN_FILTERS";
    let mut command = Command::new(env!("CARGO_BIN_EXE_qpl-parquet"));
    command.arg("sql").args(args).env_remove(PUSHDOWN);
    if let Some(value) = pushdown {
        command.env(PUSHDOWN, value);
    }
    let output = command.output().expect("qpl-parquet starts");
    (
        output
            .status
            .code()
            .expect("exited, not killed by a signal"),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Writes a small file at `dir/name` with arrow-rs's writer: `id` (Int64), `city` (strings,
/// dictionary-encoded), `amount` (nullable Int32).
fn write_file(dir: &Path, name: &str) -> PathBuf {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;

    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
        ),
        (
            "city",
            Arc::new(StringArray::from(vec![
                "Paris", "Oslo", "Paris", "Lima", "Oslo",
            ])),
        ),
        (
            "amount",
            Arc::new(Int32Array::from(vec![
                Some(10),
                None,
                Some(30),
                Some(40),
                Some(50),
            ])),
        ),
    ])
    .unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

/// A directory of the test `name` (tests run in parallel: each writes its own files).
fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("parquet_sql")
        .join(name)
}

#[cfg(feature = "sql")]
#[test]
fn query_prints_a_table_and_the_path() {
    let file = write_file(&dir("query_prints_a_table_and_the_path"), "trips.parquet");
    let (code, stdout, stderr) = sql(&[
        "-e",
        "SELECT city, count(*) AS n, sum(amount) AS total FROM Trips WHERE id > 1 \
         GROUP BY city ORDER BY city",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "\
+-------+---+-------+
| city  | n | total |
+-------+---+-------+
| Lima  | 1 | 40    |
| Oslo  | 2 | 50    |
| Paris | 1 | 30    |
+-------+---+-------+
"
    );
    assert!(
        stderr.starts_with("scans decoded by qpl-rs on path: "),
        "{stderr}"
    );
    let path = if qpl_rs::Path::Hardware.availability().is_ok() {
        "hardware"
    } else {
        "fallback"
    };
    assert!(stderr.contains(&format!("path: {path} (")), "{stderr}");
}

#[cfg(feature = "sql")]
#[test]
fn two_files_a_quoted_name_and_an_empty_result() {
    let a = write_file(
        &dir("two_files_a_quoted_name_and_an_empty_result"),
        "trips.parquet",
    );
    let b = write_file(
        &dir("two_files_a_quoted_name_and_an_empty_result"),
        "more-trips.parquet",
    );
    let (code, stdout, stderr) = sql(&[
        "--execute",
        "SELECT t.id, m.city FROM trips t JOIN \"more-trips\" m ON t.id = m.id \
         WHERE m.amount IS NULL",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| 2  | Oslo |"), "{stdout}");
    let (code, stdout, stderr) = sql(&[
        "-e",
        "SELECT id FROM trips WHERE city = 'Rome'",
        a.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "+----+\n| id |\n+----+\n+----+\n");
}

#[cfg(feature = "sql")]
#[test]
fn errors_exit_2() {
    let file = write_file(&dir("errors_exit_2"), "trips.parquet");
    let file = file.to_str().unwrap();
    let missing = dir("errors_exit_2").join("missing.parquet");
    let text = dir("errors_exit_2").join("text.parquet");
    std::fs::write(&text, "not parquet").unwrap();
    for (args, message) in [
        (vec!["-e", "SELECT nope FROM trips", file], "nope"),
        (vec!["-e", "SELEC 1", file], "SELEC"),
        (vec!["-e", "SELECT * FROM other", file], "other"),
        (
            vec!["-e", "SELECT 1", missing.to_str().unwrap()],
            "cannot register it as table missing",
        ),
        (
            vec!["-e", "SELECT 1", text.to_str().unwrap()],
            "cannot register it as table text",
        ),
        (
            vec!["-e", "SELECT 1", file, file],
            "would both be table trips",
        ),
    ] {
        let (code, stdout, stderr) = sql(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(
            stderr.starts_with("qpl-parquet sql: ") && stderr.contains(message),
            "{args:?}: {stderr}"
        );
    }
}

/// DataFusion's environment variables set the session's options: with pushdown on, the scan
/// evaluates a `LIKE` itself and no `FilterExec` is left; a value no option takes exits 2.
#[cfg(feature = "sql")]
#[test]
fn datafusion_environment_variables_set_its_options() {
    let file = write_file(&dir("datafusion_environment"), "trips.parquet");
    let explain = "EXPLAIN SELECT id FROM trips WHERE city LIKE 'O%'";
    let args = ["-e", explain, file.to_str().unwrap()];
    let (code, off, stderr) = sql_with(&args, None);
    assert_eq!(code, 0, "{stderr}");
    assert!(off.contains("FilterExec"), "{off}");
    let (code, on, stderr) = sql_with(&args, Some("true"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !on.contains("FilterExec") && on.contains("reader=qpl-rs"),
        "{on}"
    );
    let (code, stdout, stderr) = sql_with(&args, Some("sometimes"));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.starts_with("qpl-parquet sql: a DATAFUSION_* environment variable"),
        "{stderr}"
    );
}

#[cfg(not(feature = "sql"))]
#[test]
fn without_the_feature_says_to_rebuild() {
    let file = write_file(&dir("without_the_feature_says_to_rebuild"), "trips.parquet");
    let (code, stdout, stderr) = sql(&["-e", "SELECT 1", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("--features sql"), "{stderr}");
}

#[test]
fn arguments_are_required() {
    let (code, _, stderr) = sql(&["-e", "SELECT 1"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = sql(&["x.parquet"]);
    assert_eq!(code, 2, "{stderr}");
}
