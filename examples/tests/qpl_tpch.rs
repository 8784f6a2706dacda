//! Runs the built `qpl-tpch` binary at scale factor 0.01: the tables are written, all 22
//! queries agree between stock DataFusion and DataFusion on qpl-rs (exit 0); a truncated
//! table makes the queries that read it error lines (exit 2) and leaves the others ok.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Runs `qpl-tpch args`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_qpl-tpch"))
        .args(args)
        .output()
        .expect("qpl-tpch starts");
    (
        output
            .status
            .code()
            .expect("exited, not killed by a signal"),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Parses the JSON lines, checking each has exactly the documented keys, in order.
fn json_lines(stdout: &str) -> Vec<serde_json::Map<String, Value>> {
    stdout
        .lines()
        .map(|line| {
            let Value::Object(map) = serde_json::from_str(line).expect("a JSON line") else {
                panic!("not an object: {line}")
            };
            let keys = ["query", "rows", "result", "detail", "stock_ms", "qpl_ms"];
            assert_eq!(map.len(), keys.len(), "{line}");
            let at: Vec<usize> = keys
                .iter()
                .map(|k| line.find(&format!("\"{k}\":")).expect(k))
                .collect();
            assert!(at.is_sorted(), "keys in order: {line}");
            map
        })
        .collect()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn sf_001_check_then_a_truncated_table() {
    let dir = fresh_dir("qpl_tpch_sf001");
    let dir_arg = dir.to_str().unwrap();
    let (code, stdout, stderr) = run(&["--sf", "0.01", "--dir", dir_arg, "--check"]);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 22, "{stdout}\n{stderr}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["query"], i + 1);
        assert_eq!(line["result"], "ok", "{line:?}");
        assert_eq!(line["detail"], "");
        assert!(
            line["rows"].as_u64().is_some_and(|rows| rows > 0),
            "{line:?}"
        );
        assert!(line["stock_ms"].is_number() && line["qpl_ms"].is_number());
    }
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr
            .contains("22 queries: 22 ok, 0 mismatch, 0 error; scans decoded by qpl-rs on path: "),
        "{stderr}"
    );
    // Every table, and nothing half-written.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
            .map(|t| format!("{t}.parquet"))
    );

    // A truncated lineitem is used as it is (not rewritten): Q1 and Q6 read it, Q13 does not.
    let lineitem = dir.join("lineitem.parquet");
    let len = std::fs::metadata(&lineitem).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lineitem)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let (code, stdout, stderr) = run(&[
        "--sf",
        "0.01",
        "--dir",
        dir_arg,
        "--check",
        "--queries",
        "1,13,6",
    ]);
    let lines = json_lines(&stdout);
    let results: Vec<(u64, &str)> = lines
        .iter()
        .map(|l| (l["query"].as_u64().unwrap(), l["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        [(1, "error"), (13, "ok"), (6, "error")],
        "{stdout}"
    );
    for line in [&lines[0], &lines[2]] {
        let detail = line["detail"].as_str().unwrap();
        assert!(
            detail.contains("stock: registering lineitem: ")
                && detail.contains("qpl-rs: registering lineitem: "),
            "{detail}"
        );
        assert!(line["rows"].is_null() && line["stock_ms"].is_null() && line["qpl_ms"].is_null());
    }
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::metadata(&lineitem).unwrap().len(), len / 2);
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["--sf", "0", "--dir", "x"][..],
        &["--sf", "0.01", "--dir", "x", "--queries", "23"],
        &["--sf", "0.01", "--dir", "x", "--runs", "0"],
        &["--sf", "0.01"],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty());
    }
}

#[test]
fn unwritable_dir_exits_2() {
    let dir = fresh_dir("qpl_tpch_not_a_dir");
    std::fs::write(&dir, b"a file").unwrap();
    let (code, stdout, stderr) = run(&["--sf", "0.01", "--dir", dir.to_str().unwrap(), "--check"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("\nqpl-tpch: cannot create "), "{stderr}");
    std::fs::remove_file(&dir).unwrap();
}

#[test]
fn help_prints_the_usage() {
    let (code, stdout, _) = run(&["--help"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("Usage: qpl-tpch [OPTIONS] --sf <F> --dir <DIR>"),
        "{stdout}"
    );
}

/// Every TPC-H query's physical plan on qpl-rs, encoded with datafusion-proto and the crate's
/// codec, decodes to the same plan (its scans still qpl-rs's) and runs to stock DataFusion's
/// result (rows compared as sorted lines: ties may come in any order).
#[test]
fn every_query_plan_round_trips_through_the_codec() {
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::physical_plan::{collect, displayable};
    use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
    use qpl_examples::tpch::{data, queries};

    fn sorted_lines(batches: &[datafusion::arrow::array::RecordBatch]) -> Vec<String> {
        let text = pretty_format_batches(batches).unwrap().to_string();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort_unstable();
        lines
    }

    let dir = fresh_dir("qpl_tpch_round_trip");
    data::ensure_tables(&dir, 0.01).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(2);
        let stock = SessionContext::new_with_config(config.clone());
        let ours = SessionContext::new_with_config(config);
        qpl_datafusion::enable(&ours);
        for table in queries::TABLES {
            let file = data::table_file(&dir, table);
            for ctx in [&stock, &ours] {
                ctx.register_parquet(table, file.to_str().unwrap(), ParquetReadOptions::default())
                    .await
                    .unwrap();
            }
        }
        for query in &queries::QUERIES {
            let plan = ours.sql(query.sql).await.unwrap();
            let plan = plan.create_physical_plan().await.unwrap();
            let bytes = qpl_datafusion::encode_plan(plan.clone()).unwrap();
            let decoded = qpl_datafusion::decode_plan(&bytes, &ours.task_ctx()).unwrap();
            let text = displayable(decoded.as_ref()).indent(true).to_string();
            assert_eq!(
                text,
                displayable(plan.as_ref()).indent(true).to_string(),
                "Q{}",
                query.number
            );
            assert!(text.contains("reader=qpl-rs"), "Q{}: {text}", query.number);
            let got = collect(decoded, ours.task_ctx()).await.unwrap();
            let want = stock.sql(query.sql).await.unwrap().collect().await.unwrap();
            assert_eq!(sorted_lines(&got), sorted_lines(&want), "Q{}", query.number);
        }
    });
}
