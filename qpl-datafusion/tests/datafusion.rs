//! DataFusion on qpl-rs against stock DataFusion: the same queries over the same files give
//! the same results; filters the scan takes leave no `FilterExec`, the others keep one; plans
//! survive datafusion-proto with the scan still this project's. One test binary (CI builds
//! DataFusion once for it).

use std::path::{Path as FilePath, PathBuf};
use std::process::Command;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    ListArray, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use datafusion::arrow::datatypes::Int32Type;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::{EnabledStatistics, WriterProperties};
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use qpl_datafusion::{QplParquetSource, QplPhysicalExtensionCodec};

/// Rows of the generated file.
const ROWS: usize = 20_000;

fn temp_dir(name: &str) -> PathBuf {
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A file of every common column kind, with nulls, dictionary and plain columns, several row
/// groups and pages (statistics on, so DataFusion prunes).
fn write_events(dir: &FilePath) -> PathBuf {
    let n = ROWS;
    let id: Int64Array = (0..n as i64).collect();
    let key: Int32Array = (0..n).map(|i| ((i * 7919) % 1000) as i32).collect();
    let nullable: Int32Array = (0..n)
        .map(|i| (i % 5 != 0).then_some((i % 300) as i32 - 150))
        .collect();
    let price = Decimal128Array::from_iter_values((0..n).map(|i| ((i * 37) % 100_000) as i128))
        .with_precision_and_scale(15, 2)
        .unwrap();
    let day = Date32Array::from_iter_values((0..n).map(|i| 9000 + (i % 2500) as i32));
    let names = ["MAIL", "SHIP", "AIR", "RAIL", "TRUCK", "FOB", "REG AIR"];
    let mode: StringArray = (0..n)
        .map(|i| Some(names[(i * 31) % names.len()]))
        .collect();
    let comment: StringArray = (0..n)
        .map(|i| (i % 11 != 0).then(|| format!("comment number {i} of the events file")))
        .collect();
    let flag: BooleanArray = (0..n).map(|i| (i % 7 != 0).then_some(i % 3 == 0)).collect();
    let score: Float64Array = (0..n).map(|i| Some(i as f64 * 0.25)).collect();
    let ts: TimestampMicrosecondArray = (0..n)
        .map(|i| Some(1_600_000_000_000_000 + i as i64 * 1_000_003))
        .collect::<TimestampMicrosecondArray>()
        .with_timezone("UTC");
    let tags = ListArray::from_iter_primitive::<Int32Type, _, _>((0..n).map(|i| {
        (i % 13 != 0).then(|| {
            (0..(i % 4))
                .map(|j| Some((i + j) as i32))
                .collect::<Vec<_>>()
        })
    }));
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(id) as ArrayRef),
        ("key", Arc::new(key)),
        ("nullable", Arc::new(nullable)),
        ("price", Arc::new(price)),
        ("day", Arc::new(day)),
        ("mode", Arc::new(mode)),
        ("comment", Arc::new(comment)),
        ("flag", Arc::new(flag)),
        ("score", Arc::new(score)),
        ("ts", Arc::new(ts)),
        ("tags", Arc::new(tags)),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(6_000))
        .set_data_page_row_count_limit(1_000)
        .set_write_batch_size(1_000)
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_column_dictionary_enabled("comment".into(), false)
        .build();
    let path = dir.join("events.parquet");
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(&path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

fn config(partitions: usize) -> SessionConfig {
    SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(4096)
}

/// A stock context and a switched one, each with `files` registered (table name: the stem).
async fn contexts(files: &[PathBuf], partitions: usize) -> (SessionContext, SessionContext) {
    contexts_with(files, config(partitions)).await
}

/// [`contexts`] with `config`.
async fn contexts_with(
    files: &[PathBuf],
    config: SessionConfig,
) -> (SessionContext, SessionContext) {
    let stock = SessionContext::new_with_config(config.clone());
    let ours = SessionContext::new_with_config(config);
    qpl_datafusion::enable(&ours);
    for file in files {
        let name = file
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        let path = file.to_str().unwrap();
        let options = ParquetReadOptions::default();
        stock
            .register_parquet(&name, path, options.clone())
            .await
            .unwrap();
        ours.register_parquet(&name, path, options).await.unwrap();
    }
    (stock, ours)
}

async fn plan(ctx: &SessionContext, sql: &str) -> Arc<dyn ExecutionPlan> {
    ctx.sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

fn plan_text(plan: &Arc<dyn ExecutionPlan>) -> String {
    displayable(plan.as_ref()).indent(true).to_string()
}

/// The query's result, rendered as a table (`sorted`: its rows sorted, for queries whose
/// order is not defined), or the error's text.
async fn run(ctx: &SessionContext, sql: &str, sorted: bool) -> Result<String, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    let text = pretty_format_batches(&batches)
        .map_err(|e| e.to_string())?
        .to_string();
    if !sorted {
        return Ok(text);
    }
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > 4 {
        let body = lines.len() - 1;
        lines[3..body].sort_unstable();
    }
    Ok(lines.join("\n"))
}

/// Asserts equal results, showing the first differing line only (results are long).
fn assert_same(got: &Result<String, String>, expected: &Result<String, String>, sql: &str) {
    if got == expected {
        return;
    }
    let (g, e) = match (got, expected) {
        (Ok(g), Ok(e)) => (g.as_str(), e.as_str()),
        _ => panic!("{sql}: got {:.2000?}, expected {:.2000?}", got, expected),
    };
    let (gl, el): (Vec<&str>, Vec<&str>) = (g.lines().collect(), e.lines().collect());
    let at = gl
        .iter()
        .zip(&el)
        .position(|(a, b)| a != b)
        .unwrap_or(gl.len().min(el.len()));
    panic!(
        "{sql}: results differ at line {at} of {}/{}:\n got: {:?}\nwant: {:?}\nheader: {:?}",
        gl.len(),
        el.len(),
        gl.get(at),
        el.get(at),
        el.get(1)
    );
}

/// Runs `sql` on both contexts and asserts equal results; returns the switched plan's text.
async fn same(stock: &SessionContext, ours: &SessionContext, sql: &str, sorted: bool) -> String {
    let expected = run(stock, sql, sorted).await;
    let got = run(ours, sql, sorted).await;
    assert_same(&got, &expected, sql);
    let plan = plan_text(&plan(ours, sql).await);
    assert!(
        plan.contains("reader=qpl-rs"),
        "{sql}: not our scan:\n{plan}"
    );
    plan
}

/// Filters of every pushed kind, and some that are not pushed.
const FILTERED: &[&str] = &[
    "SELECT id, mode FROM events WHERE key = 17",
    "SELECT id FROM events WHERE key <> 17 AND id < 3000",
    "SELECT id, price FROM events WHERE key IN (1, 2, 3, 999)",
    "SELECT id FROM events WHERE key NOT IN (1, 2, 3) AND id BETWEEN 100 AND 400",
    "SELECT id, nullable FROM events WHERE nullable = -150 OR nullable IS NULL",
    "SELECT id, nullable FROM events WHERE nullable <> 0",
    "SELECT id, nullable FROM events WHERE nullable > 140",
    "SELECT id, nullable FROM events WHERE nullable >= 140 AND nullable < 145",
    "SELECT id, price FROM events WHERE price BETWEEN 5.00 AND 7.00",
    "SELECT id, price FROM events WHERE price < 0.37",
    "SELECT id, day FROM events WHERE day = DATE '1995-03-15'",
    "SELECT count(*) FROM events WHERE day >= DATE '1994-01-01' AND day < DATE '1995-01-01'",
    "SELECT id FROM events WHERE mode = 'MAIL'",
    "SELECT id, mode FROM events WHERE mode IN ('MAIL', 'SHIP') AND key < 50",
    "SELECT id, mode FROM events WHERE mode <> 'AIR' AND id > 19000",
    "SELECT id, mode FROM events WHERE mode > 'RAIL'",
    "SELECT id, mode FROM events WHERE mode <= 'FOB'",
    "SELECT id, comment FROM events WHERE comment = 'comment number 12 of the events file'",
    "SELECT id, comment FROM events WHERE comment LIKE 'comment number 19%'",
    "SELECT id, flag FROM events WHERE flag = true AND id < 500",
    "SELECT id, flag FROM events WHERE flag <> false AND key = 3",
    "SELECT id FROM events WHERE score > 4000.5",
    "SELECT id, ts FROM events WHERE ts < TIMESTAMP '2020-09-13 12:30:00+00:00'",
    "SELECT id FROM events WHERE key = 5 OR mode = 'MAIL'",
    // ORs of one column: equalities (a short IN list), ranges joining into one or not.
    "SELECT id, mode FROM events WHERE mode = 'AIR' OR mode = 'REG AIR' OR mode = 'NONE'",
    "SELECT id, nullable FROM events WHERE nullable = 3 OR nullable = -150",
    "SELECT id, price FROM events WHERE price >= 1.00 AND price <= 11.00 OR price >= 10.00 AND price <= 20.00 OR price >= 20.00 AND price <= 30.00",
    "SELECT id, nullable FROM events WHERE nullable > 100 AND nullable < 120 OR nullable >= 120 AND nullable <= 125 OR nullable = 126",
    "SELECT id, nullable FROM events WHERE nullable < -140 OR nullable BETWEEN -145 AND 0",
    "SELECT id, nullable FROM events WHERE nullable > 10 OR nullable < 20",
    "SELECT id, nullable FROM events WHERE nullable > 10 AND nullable < 20 OR nullable = 20",
    "SELECT id, nullable FROM events WHERE nullable < 10 OR nullable > 20",
    "SELECT id, day FROM events WHERE day < DATE '1994-06-01' AND day > DATE '1994-01-01' OR day >= DATE '1994-05-31' AND day < DATE '1995-01-01'",
    "SELECT id, mode FROM events WHERE mode >= 'MAIL' AND mode <= 'RAIL' OR mode = 'AIR'",
    "SELECT id FROM events WHERE key >= 30 AND key <= 10 OR key >= 5 AND key <= 8",
    "SELECT id FROM events WHERE id = -1",
    "SELECT count(*) FROM (SELECT id FROM events WHERE key = 17 LIMIT 3)",
    "SELECT * FROM events WHERE id >= 17990 AND id <= 18010",
    "SELECT mode, count(*), sum(price), min(day), max(ts) FROM events WHERE key < 500 GROUP BY mode",
    "SELECT tags, nullable FROM events WHERE key = 7",
    // Dynamic filters: a TopK's threshold, a join's string keys.
    "SELECT id, key, mode FROM events ORDER BY key DESC, id LIMIT 7",
    "SELECT e.id, e.mode FROM events e JOIN (SELECT DISTINCT mode FROM events WHERE key < 3) m ON e.mode = m.mode WHERE e.id < 2000",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_equal_stock_datafusion() {
    let dir = temp_dir("queries_equal_stock");
    let file = write_events(&dir);
    for partitions in [1, 3] {
        let (stock, ours) = contexts(std::slice::from_ref(&file), partitions).await;
        // One partition: the scan's order is the file's, so order is compared too.
        let sorted = partitions > 1;
        same(&stock, &ours, "SELECT * FROM events", sorted).await;
        same(&stock, &ours, "SELECT comment, id FROM events", sorted).await;
        for sql in FILTERED {
            same(&stock, &ours, sql, sorted || sql.contains("LIMIT")).await;
        }
        // Both scans evaluating every filter they can (stock: as arrow-rs row filters).
        let pushdown =
            config(partitions).set_bool("datafusion.execution.parquet.pushdown_filters", true);
        let (stock, ours) = contexts_with(std::slice::from_ref(&file), pushdown).await;
        for sql in FILTERED {
            same(&stock, &ours, sql, sorted || sql.contains("LIMIT")).await;
        }
    }
}

/// With `pushdown_filters` on, the filters the query API cannot say (a `LIKE`, an `OR`, a
/// float's comparison) are evaluated by the scan too, on their own columns before the others
/// are decoded: no `FilterExec` is left, and the scan gives only the rows kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_pushdown_on_the_scan_evaluates_every_filter() {
    let dir = temp_dir("pushdown_on");
    let file = write_events(&dir);
    let pushdown = config(2).set_bool("datafusion.execution.parquet.pushdown_filters", true);
    let (stock, ours) = contexts_with(std::slice::from_ref(&file), pushdown).await;
    for sql in [
        "SELECT id FROM events WHERE key = 17 AND comment LIKE '%3 of%'",
        "SELECT id, mode FROM events WHERE score = 1.25 OR key = 2 OR mode = 'AIR'",
        "SELECT count(*) FROM events WHERE comment LIKE '%1 of%'",
    ] {
        same(&stock, &ours, sql, true).await;
        let physical = plan(&ours, sql).await;
        assert!(
            !plan_text(&physical).contains("FilterExec"),
            "{sql}: {}",
            plan_text(&physical)
        );
        let result = collect(Arc::clone(&physical), ours.task_ctx())
            .await
            .unwrap();
        let scanned = scan_output_rows(&physical, "events.parquet").unwrap();
        let rows: usize = if sql.contains("count(*)") {
            let counts = result[0]
                .column(0)
                .as_any()
                .downcast_ref::<datafusion::arrow::array::Int64Array>()
                .unwrap();
            counts.value(0) as usize
        } else {
            result.iter().map(RecordBatch::num_rows).sum()
        };
        assert!(rows > 0 && rows < ROWS / 4, "{sql}: {rows} rows");
        assert_eq!(scanned, rows, "{sql}: the scan gave rows its filters drop");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_takes_comparisons_and_leaves_the_rest() {
    let dir = temp_dir("pushdown_report");
    let file = write_events(&dir);
    let (_, ours) = contexts(std::slice::from_ref(&file), 1).await;
    let text = plan_text(
        &plan(
            &ours,
            "SELECT id FROM events WHERE key = 17 AND mode = 'MAIL'",
        )
        .await,
    );
    assert!(!text.contains("FilterExec"), "{text}");
    assert!(
        text.contains("scan_filters=[key@1 = 17, mode@5 = MAIL]"),
        "{text}"
    );

    let text = plan_text(
        &plan(
            &ours,
            "SELECT id FROM events WHERE key = 17 AND comment LIKE 'c%'",
        )
        .await,
    );
    assert!(text.contains("FilterExec: comment@"), "{text}");
    assert!(text.contains("scan_filters=[key@1 = 17]"), "{text}");

    // Floats, ORs across columns, and ORs of one column with a gap are not taken.
    for sql in [
        "SELECT id FROM events WHERE score = 1.25",
        "SELECT id FROM events WHERE key = 1 OR id = 2",
        "SELECT id FROM events WHERE key < 10 OR key > 20",
        "SELECT id FROM events WHERE key >= 1 AND key <= 5 OR key >= 7 AND key <= 9",
        "SELECT id FROM events WHERE key < 10 OR key >= 5",
    ] {
        let text = plan_text(&plan(&ours, sql).await);
        assert!(text.contains("FilterExec"), "{sql}: {text}");
        assert!(!text.contains("scan_filters"), "{sql}: {text}");
    }

    // ORs of one column that are an IN list, or ranges joining into one, are taken.
    for sql in [
        "SELECT id FROM events WHERE key = 1 OR key = 2",
        "SELECT id FROM events WHERE mode = 'AIR' OR mode = 'MAIL'",
        "SELECT id FROM events WHERE key >= 1 AND key <= 11 OR key >= 10 AND key <= 20",
        "SELECT id FROM events WHERE key < 10 OR key = 10",
    ] {
        let text = plan_text(&plan(&ours, sql).await);
        assert!(!text.contains("FilterExec"), "{sql}: {text}");
        assert!(text.contains("scan_filters=["), "{sql}: {text}");
    }
}

/// Rows the scan of `file_name` in `plan` gave, once the plan ran.
fn scan_output_rows(plan: &Arc<dyn ExecutionPlan>, file_name: &str) -> Option<usize> {
    let text = displayable(plan.as_ref()).one_line().to_string();
    if plan.name() == "DataSourceExec" && text.contains(file_name) {
        return plan.metrics().and_then(|m| m.output_rows());
    }
    plan.children()
        .into_iter()
        .find_map(|child| scan_output_rows(child, file_name))
}

/// `events` joined with a table `wanted` of `keys` (column `k`) in both contexts, checked
/// equal; then run in ours: the rows joined, the rows the `events` scan gave, and the plan.
async fn join_events_on_keys(
    stock: &SessionContext,
    ours: &SessionContext,
    keys: Int32Array,
) -> (usize, Option<usize>, String) {
    let keys = RecordBatch::try_from_iter([("k", Arc::new(keys) as ArrayRef)]).unwrap();
    for ctx in [stock, ours] {
        ctx.register_batch("wanted", keys.clone()).unwrap();
    }
    let sql = "SELECT e.id, e.mode, w.k FROM events e JOIN wanted w ON e.key = w.k";
    same(stock, ours, sql, true).await;
    let physical = plan(ours, sql).await;
    let joined: usize = collect(Arc::clone(&physical), ours.task_ctx())
        .await
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    let scanned = scan_output_rows(&physical, "events.parquet");
    (joined, scanned, plan_text(&physical))
}

/// A join's key list, pushed by DataFusion as a dynamic filter, drops the rows without a
/// match inside the scan (stock DataFusion uses it to prune, and decodes every row); the
/// results are stock's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_joins_dynamic_filter_drops_rows_in_the_scan() {
    let dir = temp_dir("dynamic_filter");
    let file = write_events(&dir);
    for partitions in [1, 2] {
        let (stock, ours) = contexts(std::slice::from_ref(&file), partitions).await;
        let keys = Int32Array::from(vec![17, 500, 999]);
        let (joined, scanned, plan) = join_events_on_keys(&stock, &ours, keys).await;
        assert_eq!(joined, 3 * ROWS / 1000, "{partitions} partitions");
        assert_eq!(
            scanned,
            Some(joined),
            "{partitions} partitions: the scan gave rows the join's keys exclude\n{plan}"
        );
    }
}

/// A join on more keys than DataFusion lists (150) pushes a hash-table lookup as its dynamic
/// filter: with `pushdown_filters` on, the scan evaluates it on the key column and gives only
/// the joining rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_joins_hash_table_lookup_drops_rows_in_the_scan() {
    let dir = temp_dir("dynamic_lookup");
    let file = write_events(&dir);
    for partitions in [1, 2] {
        let pushdown =
            config(partitions).set_bool("datafusion.execution.parquet.pushdown_filters", true);
        let (stock, ours) = contexts_with(std::slice::from_ref(&file), pushdown).await;
        // 200 of the 1000 keys, spread over the whole range (the bounds drop nothing).
        let keys = Int32Array::from_iter_values((0..200).map(|k| k * 5 + 2));
        let (joined, scanned, plan) = join_events_on_keys(&stock, &ours, keys).await;
        assert_eq!(joined, ROWS / 5, "{partitions} partitions");
        assert_eq!(
            scanned,
            Some(joined),
            "{partitions} partitions: the scan gave rows the join's hash table excludes\n{plan}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_round_trip_through_datafusion_proto() {
    let dir = temp_dir("proto_round_trip");
    let file = write_events(&dir);
    let codec = QplPhysicalExtensionCodec;
    // With pushdown on, the scan evaluates the LIKE (no FilterExec): the decoded scan must too.
    for pushdown in [false, true] {
        let config = config(2).set_bool("datafusion.execution.parquet.pushdown_filters", pushdown);
        let (stock, ours) = contexts_with(std::slice::from_ref(&file), config).await;
        for sql in [
        "SELECT mode, count(*), sum(price) FROM events WHERE key < 500 AND day >= DATE '1995-01-01' GROUP BY mode ORDER BY mode",
        "SELECT id, comment FROM events WHERE mode IN ('MAIL', 'AIR') AND comment LIKE '%9 of%' ORDER BY id",
    ] {
        let original = plan(&ours, sql).await;
        let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&original), &codec)
            .unwrap();
        let decoded =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ours.task_ctx(), &codec)
                .unwrap();
        assert_eq!(plan_text(&decoded), plan_text(&original), "{sql}");
        let mut found = false;
        datafusion::common::tree_node::TreeNode::apply(&decoded, |node| {
            if let Some(exec) = node.downcast_ref::<datafusion::datasource::source::DataSourceExec>() {
                found |= exec.downcast_to_file_source::<QplParquetSource>().is_some();
            }
            Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
        })
        .unwrap();
        assert!(found, "decoded plan lost the qpl-rs scan:\n{}", plan_text(&decoded));
        let expected = pretty_format_batches(&stock.sql(sql).await.unwrap().collect().await.unwrap())
            .unwrap()
            .to_string();
        let got = pretty_format_batches(&collect(decoded, ours.task_ctx()).await.unwrap())
            .unwrap()
            .to_string();
        assert_same(&Ok(got), &Ok(expected), sql);
    }
    }
    // Another codec's bytes are not ours.
    let ours = SessionContext::new();
    let err = physical_plan_from_bytes_with_extension_codec(b"\x01\x02", &ours.task_ctx(), &codec);
    assert!(err.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_named_explicitly_scans_with_qpl_rs() {
    let dir = temp_dir("explicit_table");
    let file = write_events(&dir);
    let stock = SessionContext::new_with_config(config(1));
    stock
        .register_parquet(
            "events",
            file.to_str().unwrap(),
            ParquetReadOptions::default(),
        )
        .await
        .unwrap();
    // Not switched: only the table registered with the crate's format scans with qpl-rs.
    let ours = SessionContext::new_with_config(config(1));
    qpl_datafusion::register_parquet(&ours, "events", file.to_str().unwrap())
        .await
        .unwrap();
    let sql = "SELECT id, mode, price FROM events WHERE mode = 'SHIP' AND key < 100";
    same(&stock, &ours, sql, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_through_create_external_table() {
    let dir = temp_dir("external_table");
    let file = write_events(&dir);
    let ours = SessionContext::new_with_config(config(2));
    qpl_datafusion::enable(&ours);
    let stock = SessionContext::new_with_config(config(2));
    for ctx in [&stock, &ours] {
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE events STORED AS PARQUET LOCATION '{}'",
            file.display()
        ))
        .await
        .unwrap();
    }
    same(
        &stock,
        &ours,
        "SELECT sum(id) FROM events WHERE key = 17",
        false,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_file_is_an_error_not_a_panic() {
    let dir = temp_dir("damaged");
    let file = write_events(&dir);
    let mut bytes = std::fs::read(&file).unwrap();
    // Garble the middle of the file (page data), keep the footer.
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 4096] {
        *b = b.wrapping_mul(31).wrapping_add(7);
    }
    let damaged = dir.join("damaged.parquet");
    std::fs::write(&damaged, &bytes).unwrap();
    let (stock, ours) = contexts(&[damaged], 1).await;
    let stock_result = run(&stock, "SELECT * FROM damaged", false).await;
    let ours_result = run(&ours, "SELECT * FROM damaged", false).await;
    assert!(ours_result.is_err(), "damaged pages read without an error");
    assert!(
        stock_result.is_err(),
        "arrow-rs read the damaged pages: the test data is not damaged enough"
    );
}

/// pyarrow's files (every logical type, nested columns, codecs, v1/v2 pages), when pyarrow is
/// installed: `SELECT *` equal to stock DataFusion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyarrow_files_select_star_equal_stock() {
    let has_pyarrow = Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyarrow {
        println!("pyarrow not installed: its files are skipped");
        return;
    }
    let dir = temp_dir("pyarrow_files");
    let script = FilePath::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/scripts/write_pyarrow_files.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files: Vec<PathBuf> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert!(files.len() > 20, "{files:?}");
    let (stock, ours) = contexts(&files, 1).await;
    let mut compared = 0;
    for file in &files {
        let name = file
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        let sql = format!("SELECT * FROM {name}");
        let expected = run(&stock, &sql, false).await;
        if expected.is_err() {
            // What stock DataFusion cannot read must be an error here too.
            assert!(run(&ours, &sql, false).await.is_err(), "{name}");
            continue;
        }
        same(&stock, &ours, &sql, false).await;
        compared += 1;
    }
    assert!(compared > 20, "only {compared} files compared");
}
