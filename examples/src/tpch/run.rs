//! `qpl-tpch`'s runs: each query in stock DataFusion and in DataFusion on qpl-rs, timed and
//! compared.
//!
//! How results are compared (both engines' results collected in full):
//! - **Schema**: the executed plans' output schemas, field by field (name, type,
//!   nullability), and every batch's column types against its plan's schema.
//! - **Rows, as a multiset**: each row rendered to text by arrow's display (`ArrayFormatter`;
//!   a null is kept apart from every string), both results' rows sorted, then compared
//!   exactly (same count, same rows). The money columns are Decimal128 and the aggregates of
//!   these queries decimal or integer, so the text is exact: no float tolerance is needed.
//! - **Order, for queries with an `ORDER BY`**: the results' sequences of `ORDER BY` keys
//!   (the key columns of each row, rendered) must be the same. Rows whose keys tie may come
//!   in any order (the queries do not order them, and parallel plans do not either), so only
//!   a difference in the keys themselves is reported. With the same multiset of rows, equal
//!   key sequences mean both results are sorted the same way.
//!
//! A known limit: a `LIMIT` query whose last kept rows tie on the `ORDER BY` keys with a row
//! left out may keep different rows, legitimately; with the validation parameters the keys
//! of Q2 and Q21 are unique, and Q3, Q10 and Q18 rank by revenue or price, where such ties
//! are unlikely.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path as FilePath, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::physical_plan::collect;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use serde::Serialize;

use super::data;
use super::queries::{Query, QUERIES, TABLES};

/// What `qpl-tpch` runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The scale factor of the tables written when absent.
    pub sf: f64,
    /// Where the tables are (`<table>.parquet`).
    pub dir: PathBuf,
    /// One run per engine and query.
    pub check: bool,
    /// Runs per engine and query (the times printed are their medians); 1 with `check`.
    pub runs: usize,
    /// The queries to run (1 to 22), in this order.
    pub queries: Vec<u8>,
}

/// One output line.
#[derive(Serialize, Debug)]
pub struct Line {
    /// 1 to 22.
    pub query: u8,
    /// Rows of stock DataFusion's result (of qpl-rs's when stock failed; null when both did).
    pub rows: Option<usize>,
    /// `ok`, `mismatch` or `error`.
    pub result: &'static str,
    /// `""` when ok, else the first difference or the error.
    pub detail: String,
    /// Stock DataFusion's median time over the runs, in ms (null when it failed).
    pub stock_ms: Option<f64>,
    /// DataFusion on qpl-rs: median time over the runs, in ms (null when it failed).
    pub qpl_ms: Option<f64>,
}

/// A query's result in one engine.
struct Output {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl Output {
    fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// One engine: its session, and the tables that failed to register (with the error).
struct Engine {
    name: &'static str,
    ctx: SessionContext,
    failed: HashMap<&'static str, String>,
}

impl Engine {
    /// A session with `config`, switched over to qpl-rs when `qpl`, with the tables of `dir`.
    async fn new(qpl: bool, config: SessionConfig, dir: &FilePath) -> Engine {
        let ctx = SessionContext::new_with_config(config);
        if qpl {
            qpl_datafusion::enable(&ctx);
        }
        let mut failed = HashMap::new();
        for table in TABLES {
            let file = data::table_file(dir, table);
            let registered = match file.to_str() {
                None => Err(format!("{} is not UTF-8", file.display())),
                Some(path) if qpl => qpl_datafusion::register_parquet(&ctx, table, path)
                    .await
                    .map_err(|e| e.to_string()),
                Some(path) => ctx
                    .register_parquet(table, path, ParquetReadOptions::default())
                    .await
                    .map_err(|e| e.to_string()),
            };
            if let Err(e) = registered {
                failed.insert(table, e);
            }
        }
        Engine {
            name: if qpl { "qpl-rs" } else { "stock" },
            ctx,
            failed,
        }
    }

    /// Plans and runs `query` once, collecting the whole result: the result and its time in ms.
    async fn run(&self, query: &Query) -> Result<(Output, f64), String> {
        if let Some(table) = query.tables.iter().find(|t| self.failed.contains_key(*t)) {
            return Err(format!(
                "{}: registering {table}: {}",
                self.name, self.failed[table]
            ));
        }
        let start = Instant::now();
        let result = async {
            let plan = self
                .ctx
                .sql(query.sql)
                .await?
                .create_physical_plan()
                .await?;
            let batches = collect(Arc::clone(&plan), self.ctx.task_ctx()).await?;
            Ok::<_, datafusion::error::DataFusionError>(Output {
                schema: plan.schema(),
                batches,
            })
        }
        .await;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        result
            .map(|output| (output, ms))
            .map_err(|e| format!("{}: {e}", self.name))
    }
}

/// Writes the missing tables, runs the queries and prints one JSON line per query on stdout.
/// Exit status: 0 when every query is ok, 1 when any is a mismatch, 2 when any is an error
/// (or the tables cannot be written).
pub fn run(options: &Options) -> ExitCode {
    let missing = data::missing_tables(&options.dir);
    if !missing.is_empty() {
        eprintln!(
            "qpl-tpch: writing {} to {} (scale factor {})",
            missing.join(", "),
            options.dir.display(),
            options.sf
        );
    }
    let start = Instant::now();
    match data::ensure_tables(&options.dir, options.sf) {
        Ok(written) if !written.is_empty() => eprintln!(
            "qpl-tpch: wrote {} tables in {:.1} s",
            written.len(),
            start.elapsed().as_secs_f64()
        ),
        Ok(_) => {}
        Err(e) => {
            eprintln!("qpl-tpch: {e}");
            return ExitCode::from(2);
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("qpl-tpch: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // DataFusion's own environment variables set options of both engines alike (for
    // example DATAFUSION_EXECUTION_PARQUET_PUSHDOWN_FILTERS=true); the partitions are the CPUs.
    let config = match SessionConfig::from_env() {
        Ok(config) => config.with_target_partitions(cpus),
        Err(e) => {
            eprintln!("qpl-tpch: a DATAFUSION_* environment variable: {e}");
            return ExitCode::from(2);
        }
    };
    let runs = if options.check {
        1
    } else {
        options.runs.max(1)
    };
    let (mut ok, mut mismatches, mut errors) = (0, 0, 0);
    runtime.block_on(async {
        let stock = Engine::new(false, config.clone(), &options.dir).await;
        let qpl = Engine::new(true, config, &options.dir).await;
        for &number in &options.queries {
            let query = &QUERIES[usize::from(number) - 1];
            let line = run_query(query, &stock, &qpl, runs).await;
            match line.result {
                "ok" => ok += 1,
                "mismatch" => mismatches += 1,
                _ => errors += 1,
            }
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(
                stdout,
                "{}",
                serde_json::to_string(&line).expect("a line serializes")
            );
            let _ = stdout.flush();
        }
    });
    eprintln!(
        "qpl-tpch: {} queries: {ok} ok, {mismatches} mismatch, {errors} error; {} ({} target \
         partitions)",
        options.queries.len(),
        crate::parquet_tool::sql::path_line(),
        cpus
    );
    if errors > 0 {
        ExitCode::from(2)
    } else if mismatches > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `query` `runs` times in each engine, alternating, and compares the first results.
async fn run_query(query: &Query, stock: &Engine, qpl: &Engine, runs: usize) -> Line {
    let mut results: [Option<Result<Output, String>>; 2] = [None, None];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (i, engine) in [stock, qpl].into_iter().enumerate() {
            if matches!(results[i], Some(Err(_))) {
                continue;
            }
            match engine.run(query).await {
                Ok((output, ms)) => {
                    times[i].push(ms);
                    results[i].get_or_insert(Ok(output));
                }
                Err(e) => results[i] = Some(Err(e)),
            }
        }
    }
    let [stock_result, qpl_result] = results.map(|r| r.expect("at least one run"));
    let rows = match (&stock_result, &qpl_result) {
        (Ok(output), _) | (Err(_), Ok(output)) => Some(output.rows()),
        _ => None,
    };
    let (result, detail) = match (&stock_result, &qpl_result) {
        (Ok(stock), Ok(qpl)) => match compare(query, stock, qpl) {
            Ok(()) => ("ok", String::new()),
            Err(difference) => ("mismatch", difference),
        },
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => ("error", e.clone()),
        (Err(a), Err(b)) => ("error", format!("{a}; {b}")),
    };
    let ms = |i: usize, result: &Result<Output, String>| result.is_ok().then(|| median(&times[i]));
    Line {
        query: query.number,
        rows,
        result,
        detail,
        stock_ms: ms(0, &stock_result),
        qpl_ms: ms(1, &qpl_result),
    }
}

/// The median of `times` (the mean of the middle two for an even count), to the microsecond.
fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    (median * 1e3).round() / 1e3
}

/// A row rendered by arrow's display, a null as `None`.
type Row = Vec<Option<String>>;

/// Compares two results of `query` (see the module docs): `Err` with the first difference.
pub(crate) fn compare_batches(
    order_by: &[&str],
    stock: (&SchemaRef, &[RecordBatch]),
    qpl: (&SchemaRef, &[RecordBatch]),
) -> Result<(), String> {
    let (stock_schema, qpl_schema) = (stock.0, qpl.0);
    if stock_schema.fields().len() != qpl_schema.fields().len() {
        return Err(format!(
            "schema: stock has {} columns, qpl-rs {}",
            stock_schema.fields().len(),
            qpl_schema.fields().len()
        ));
    }
    for (i, (a, b)) in stock_schema
        .fields()
        .iter()
        .zip(qpl_schema.fields())
        .enumerate()
    {
        if a.name() != b.name()
            || a.data_type() != b.data_type()
            || a.is_nullable() != b.is_nullable()
        {
            return Err(format!(
                "schema, column {i}: stock {}, qpl-rs {}",
                describe(a),
                describe(b)
            ));
        }
    }
    for (engine, (schema, batches)) in [("stock", stock), ("qpl-rs", qpl)] {
        for (k, batch) in batches.iter().enumerate() {
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                if column.data_type() != field.data_type() {
                    return Err(format!(
                        "{engine}: batch {k}, column {} is {}, its plan says {}",
                        field.name(),
                        column.data_type(),
                        field.data_type()
                    ));
                }
            }
        }
    }
    let stock_rows = render(stock.1)?;
    let qpl_rows = render(qpl.1)?;
    if stock_rows.len() != qpl_rows.len() {
        return Err(format!(
            "rows: stock {}, qpl-rs {}",
            stock_rows.len(),
            qpl_rows.len()
        ));
    }
    let mut stock_sorted = stock_rows.clone();
    let mut qpl_sorted = qpl_rows.clone();
    stock_sorted.sort_unstable();
    qpl_sorted.sort_unstable();
    if let Some(i) = (0..stock_sorted.len()).find(|&i| stock_sorted[i] != qpl_sorted[i]) {
        return Err(format!(
            "row {i} of the sorted rows: stock {}, qpl-rs {}",
            show(&stock_sorted[i]),
            show(&qpl_sorted[i])
        ));
    }
    let keys = order_by
        .iter()
        .map(|name| {
            stock_schema
                .index_of(name)
                .map_err(|_| format!("ORDER BY column {name} is not in the result"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let project = |row: &Row| -> Row { keys.iter().map(|&k| row[k].clone()).collect() };
    if let Some(i) =
        (0..stock_rows.len()).find(|&i| project(&stock_rows[i]) != project(&qpl_rows[i]))
    {
        return Err(format!(
            "row {i}: ORDER BY keys ({}): stock {}, qpl-rs {}",
            order_by.join(", "),
            show(&project(&stock_rows[i])),
            show(&project(&qpl_rows[i]))
        ));
    }
    Ok(())
}

fn compare(query: &Query, stock: &Output, qpl: &Output) -> Result<(), String> {
    compare_batches(
        query.order_by,
        (&stock.schema, &stock.batches),
        (&qpl.schema, &qpl.batches),
    )
}

/// `name Type` and ` not null` when it is not nullable.
fn describe(field: &datafusion::arrow::datatypes::Field) -> String {
    let nullable = if field.is_nullable() { "" } else { " not null" };
    format!("{} {}{nullable}", field.name(), field.data_type())
}

/// `(a, b, NULL)`.
fn show(row: &Row) -> String {
    let values: Vec<&str> = row.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("({})", values.join(", "))
}

/// Every row of `batches`, in order, rendered by arrow's display.
fn render(batches: &[RecordBatch]) -> Result<Vec<Row>, String> {
    let options = FormatOptions::default();
    let mut rows = Vec::new();
    for batch in batches {
        let formatters = batch
            .columns()
            .iter()
            .map(|column| ArrayFormatter::try_new(column.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("cannot display a column: {e}"))?;
        for row in 0..batch.num_rows() {
            rows.push(
                batch
                    .columns()
                    .iter()
                    .zip(&formatters)
                    .map(|(column, f)| (!column.is_null(row)).then(|| f.value(row).to_string()))
                    .collect(),
            );
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    fn batch(keys: &[i64], names: &[Option<&str>]) -> (SchemaRef, Vec<RecordBatch>) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(keys.to_vec())),
            Arc::new(StringArray::from(names.to_vec())),
        ];
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
        (schema, vec![batch])
    }

    fn cmp(
        order_by: &[&str],
        a: &(SchemaRef, Vec<RecordBatch>),
        b: &(SchemaRef, Vec<RecordBatch>),
    ) -> Result<(), String> {
        compare_batches(order_by, (&a.0, &a.1), (&b.0, &b.1))
    }

    #[test]
    fn ties_may_come_in_any_order() {
        let a = batch(&[1, 2, 2], &[Some("x"), Some("y"), Some("z")]);
        let b = batch(&[1, 2, 2], &[Some("x"), Some("z"), Some("y")]);
        assert_eq!(cmp(&["k"], &a, &b), Ok(()));
    }

    #[test]
    fn order_differences_in_the_keys_are_reported() {
        let a = batch(&[1, 2, 3], &[Some("x"), Some("y"), Some("z")]);
        let b = batch(&[2, 1, 3], &[Some("y"), Some("x"), Some("z")]);
        assert_eq!(cmp(&[], &a, &b), Ok(()));
        assert_eq!(
            cmp(&["k"], &a, &b),
            Err("row 0: ORDER BY keys (k): stock (1), qpl-rs (2)".to_string())
        );
    }

    #[test]
    fn values_rows_and_nulls_are_compared() {
        let a = batch(&[1, 2], &[Some("x"), None]);
        let b = batch(&[1, 2], &[Some("x"), Some("")]);
        assert_eq!(
            cmp(&[], &a, &b),
            Err("row 1 of the sorted rows: stock (2, NULL), qpl-rs (2, )".to_string())
        );
        let c = batch(&[1], &[Some("x")]);
        assert_eq!(cmp(&[], &a, &c), Err("rows: stock 2, qpl-rs 1".to_string()));
    }

    #[test]
    fn schemas_are_compared() {
        let a = batch(&[1], &[Some("x")]);
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let b = (schema, a.1.clone());
        assert_eq!(
            cmp(&[], &a, &b),
            Err("schema, column 0: stock k Int64 not null, qpl-rs k Int64".to_string())
        );
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[1.23456]), 1.235);
    }
}
