//! Prints the results of `cargo bench -p qpl-benches` as a markdown table.
//!
//! ```text
//! cargo run -p qpl-benches --bin bench-table [-- CRITERION_DIR]
//! ```
//!
//! Reads every `<group>/<id>/<param>/new/benchmark.json` (group, function id, parameter and
//! throughput) and the `estimates.json` beside it (median time per iteration) under
//! `CRITERION_DIR` (default: `$CARGO_TARGET_DIR/criterion`, else the workspace's
//! `target/criterion`). One row per (group, bit width); one column per function id, in
//! billions of values per second (elements / median time); then the ratios
//! fallback/qpl_sw and fallback/arrow_rs (above 1: the fallback is faster), and
//! fallback/memory (near 1: as fast as a plain loop that only moves the decode's bytes). A
//! ratio column is shown when its denominator was measured; a missing measurement prints "—".
//!
//! The Parquet encodings' groups (`parquet/<case>`, from `benches/parquet.rs`) follow in a
//! second table: one row per case, in the suite's order; the columns fallback, arrow_rs and
//! memory in billions of values per second, then fallback/arrow_rs and fallback/memory.
//!
//! The decompress suite's groups (`decompress_extract/<case>`, `decompress_scan/<case>`, from
//! `benches/decompress.rs`) follow in a third table: one row per (group, bit width); the
//! columns fallback, qpl_sw, iaa, inflate_then_arrow_rs and zlib_rs_then_arrow_rs, then
//! fallback/inflate_then_arrow_rs, fallback/zlib_rs_then_arrow_rs and fallback/qpl_sw.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

/// Function ids in column order; ids not listed here follow, sorted. The first four are
/// always shown (a missing `iaa` column says the accelerator was absent), the others only
/// when measured.
const KNOWN_IDS: [&str; 8] = [
    "fallback",
    "qpl_sw",
    "iaa",
    "arrow_rs",
    "memory",
    "qpl_sw_raw",
    "fallback+checks",
    "qpl_sw+checks",
];
const ALWAYS_SHOWN: usize = 4;

/// Ratio columns: (numerator id, denominator id), shown when the denominator was measured.
const RATIOS: [(&str, &str); 4] = [
    ("fallback", "qpl_sw"),
    ("fallback", "arrow_rs"),
    ("fallback", "memory"),
    ("fallback+checks", "qpl_sw+checks"),
];

/// The group-name prefix of the Parquet encodings' cases.
const PARQUET_PREFIX: &str = "parquet/";

/// Columns of the Parquet table, and its ratio columns (numerator, denominator).
const PARQUET_IDS: [&str; 3] = ["fallback", "arrow_rs", "memory"];
const PARQUET_RATIOS: [(&str, &str); 2] = [("fallback", "arrow_rs"), ("fallback", "memory")];

/// The group-name prefix of the decompress suite's groups.
const DECOMPRESS_PREFIX: &str = "decompress_";

/// Columns of the decompress table (the first three always shown, the others when
/// measured), and its ratio columns (numerator, denominator), shown when both were measured.
const DECOMPRESS_IDS: [&str; 5] = [
    "fallback",
    "qpl_sw",
    "iaa",
    "inflate_then_arrow_rs",
    "zlib_rs_then_arrow_rs",
];
const DECOMPRESS_RATIOS: [(&str, &str); 3] = [
    ("fallback", "inflate_then_arrow_rs"),
    ("fallback", "zlib_rs_then_arrow_rs"),
    ("fallback", "qpl_sw"),
];

/// One measurement: billions of values per second at the median time.
struct Measurement {
    group: String,
    id: String,
    param: String,
    /// Elements per job (the run's `QPL_BENCH_ELEMENTS`), as criterion recorded it.
    elements: u64,
    rate: f64,
}

/// What `--help` prints.
const USAGE: &str = "\
Usage: bench-table [CRITERION_DIR]

Prints the results of `cargo bench -p qpl-benches` as a markdown table: one row per (group, bit
width), one column per function id in billions of values per second, then the ratios
fallback/qpl_sw, fallback/arrow_rs, fallback/memory and fallback+checks/qpl_sw+checks (above 1:
the fallback is faster). The parquet/<case> groups and the decompress_* groups follow in
tables of their own. CRITERION_DIR defaults to $CARGO_TARGET_DIR/criterion, else the
workspace's target/criterion.";

fn main() -> ExitCode {
    let first = std::env::args_os().nth(1);
    if first.as_deref().is_some_and(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let dir = match first {
        Some(dir) => PathBuf::from(dir),
        None => default_dir(),
    };
    let mut files = Vec::new();
    if let Err(e) = find_benchmarks(&dir, &mut files) {
        eprintln!("bench-table: cannot read {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let mut measurements = Vec::new();
    for file in &files {
        match read_measurement(file) {
            Ok(Some(m)) => measurements.push(m),
            Ok(None) => {}
            Err(e) => eprintln!("bench-table: skipping {}: {e}", file.display()),
        }
    }
    if measurements.is_empty() {
        eprintln!(
            "bench-table: no criterion results under {} (run `cargo bench -p qpl-benches`)",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    // Each rate uses its own benchmark's element count, so any size reads right; say which
    // it was, and warn when the directory mixes runs of different sizes.
    let sizes: BTreeSet<u64> = measurements.iter().map(|m| m.elements).collect();
    let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
    if sizes.len() == 1 {
        eprintln!("bench-table: {} elements per job", sizes[0]);
    } else {
        eprintln!(
            "bench-table: warning: results of runs with different element counts ({}); \
             each cell is its own run's rate",
            sizes.join(", ")
        );
    }
    let (decompress, measurements): (Vec<Measurement>, Vec<Measurement>) = measurements
        .into_iter()
        .partition(|m| m.group.starts_with(DECOMPRESS_PREFIX));
    let (parquet, analytics): (Vec<Measurement>, Vec<Measurement>) = measurements
        .into_iter()
        .partition(|m| m.group.starts_with(PARQUET_PREFIX));
    let mut tables = Vec::new();
    if !analytics.is_empty() {
        tables.push(table(&analytics));
    }
    if !parquet.is_empty() {
        tables.push(parquet_table(&parquet));
    }
    if !decompress.is_empty() {
        tables.push(decompress_table(&decompress));
    }
    print!("{}", tables.join("\n"));
    ExitCode::SUCCESS
}

/// `$CARGO_TARGET_DIR/criterion`, else `target/criterion` in the workspace.
fn default_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(target) => PathBuf::from(target).join("criterion"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"),
    }
}

/// Collects every `new/benchmark.json` below `dir`.
fn find_benchmarks(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            find_benchmarks(&path, out)?;
        } else if path.file_name().is_some_and(|n| n == "benchmark.json")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "new")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads one benchmark's ids, throughput and median; `None` for a benchmark without an
/// element throughput (not one of this suite's).
fn read_measurement(file: &Path) -> Result<Option<Measurement>, String> {
    let benchmark = read_json(file)?;
    let text = |key: &str| {
        benchmark
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("no {key}"))
    };
    let group = text("group_id")?;
    let id = text("function_id")?;
    // Groups without a parameter (the Parquet cases) record a null one.
    let param = benchmark
        .get("value_str")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let throughput = benchmark.get("throughput").unwrap_or(&Value::Null);
    let elements = throughput
        .get("Elements")
        .or_else(|| throughput.pointer("/ElementsAndBytes/elements"))
        .and_then(Value::as_f64);
    let Some(elements) = elements else {
        return Ok(None);
    };
    let estimates = read_json(&file.with_file_name("estimates.json"))?;
    let median_ns = estimates
        .pointer("/median/point_estimate")
        .and_then(Value::as_f64)
        .filter(|&ns| ns > 0.0)
        .ok_or("no median estimate")?;
    Ok(Some(Measurement {
        group,
        id,
        param,
        elements: elements as u64,
        rate: elements / median_ns,
    }))
}

fn read_json(file: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))
}

/// Row order: the suite's groups first, then any others by name; widths numerically.
fn row_key(group: &str, param: &str) -> (usize, String, u64, String) {
    let rank = qpl_benches::GROUPS
        .iter()
        .position(|g| g.name() == group)
        .unwrap_or(usize::MAX);
    (
        rank,
        group.to_owned(),
        param.parse().unwrap_or(u64::MAX),
        param.to_owned(),
    )
}

/// The markdown table of `measurements`.
fn table(measurements: &[Measurement]) -> String {
    let found: BTreeSet<&str> = measurements.iter().map(|m| m.id.as_str()).collect();
    let mut ids: Vec<&str> = KNOWN_IDS
        .iter()
        .enumerate()
        .filter(|&(i, id)| i < ALWAYS_SHOWN || found.contains(id))
        .map(|(_, id)| *id)
        .collect();
    ids.extend(found.iter().filter(|id| !KNOWN_IDS.contains(id)));
    let ratios: Vec<(&str, &str)> = RATIOS
        .iter()
        .filter(|(_, b)| found.contains(b))
        .copied()
        .collect();

    let mut rows: BTreeMap<(usize, String, u64, String), BTreeMap<&str, f64>> = BTreeMap::new();
    for m in measurements {
        rows.entry(row_key(&m.group, &m.param))
            .or_default()
            .insert(m.id.as_str(), m.rate);
    }

    markdown(
        &["group", "width"],
        &ids,
        &ratios,
        rows.iter()
            .map(|((_, group, _, param), rates)| (vec![group.clone(), param.clone()], rates)),
    )
}

/// The markdown table of the Parquet cases: one row per case (the suite's order, then any
/// others by name), rates then ratios; "—" where a measurement is missing (GroupVarInt has
/// no arrow_rs).
fn parquet_table(measurements: &[Measurement]) -> String {
    let mut rows: BTreeMap<(usize, &str), BTreeMap<&str, f64>> = BTreeMap::new();
    for m in measurements {
        let case = m.group.strip_prefix(PARQUET_PREFIX).unwrap_or(&m.group);
        let rank = qpl_benches::PARQUET_CASES
            .iter()
            .position(|&c| c == case)
            .unwrap_or(usize::MAX);
        rows.entry((rank, case))
            .or_default()
            .insert(m.id.as_str(), m.rate);
    }
    markdown(
        &["parquet case"],
        &PARQUET_IDS,
        &PARQUET_RATIOS,
        rows.iter()
            .map(|((_, case), rates)| (vec![case.to_string()], rates)),
    )
}

/// The markdown table of the decompress suite: one row per (group, bit width), groups in
/// name order (extract before scan, level 1 before level 6), widths numerically.
fn decompress_table(measurements: &[Measurement]) -> String {
    let found: BTreeSet<&str> = measurements.iter().map(|m| m.id.as_str()).collect();
    let ids: Vec<&str> = DECOMPRESS_IDS
        .iter()
        .enumerate()
        .filter(|&(i, id)| i < 3 || found.contains(id))
        .map(|(_, id)| *id)
        .collect();
    let ratios: Vec<(&str, &str)> = DECOMPRESS_RATIOS
        .iter()
        .filter(|(a, b)| found.contains(a) && found.contains(b))
        .copied()
        .collect();
    let mut rows: BTreeMap<(&str, u64, &str), BTreeMap<&str, f64>> = BTreeMap::new();
    for m in measurements {
        let width = m.param.parse().unwrap_or(u64::MAX);
        rows.entry((m.group.as_str(), width, m.param.as_str()))
            .or_default()
            .insert(m.id.as_str(), m.rate);
    }
    markdown(
        &["group", "width"],
        &ids,
        &ratios,
        rows.iter()
            .map(|((group, _, param), rates)| (vec![group.to_string(), param.to_string()], rates)),
    )
}

/// A markdown table: the row's leading cells (`first` names them), each id's rate (3
/// decimals), each ratio a/b of two ids' rates (2 decimals); "—" where a rate is missing.
fn markdown<'a>(
    first: &[&str],
    ids: &[&str],
    ratios: &[(&str, &str)],
    rows: impl Iterator<Item = (Vec<String>, &'a BTreeMap<&'a str, f64>)>,
) -> String {
    let mut header: Vec<String> = first.iter().map(|h| h.to_string()).collect();
    header.extend(ids.iter().map(|id| id.to_string()));
    header.extend(ratios.iter().map(|(a, b)| format!("{a}/{b}")));
    let mut out = format!("| {} |\n", header.join(" | "));
    let align: Vec<&str> = (0..header.len())
        .map(|i| if i == 0 { "---" } else { "---:" })
        .collect();
    out += &format!("|{}|\n", align.join("|"));
    for (mut cells, rates) in rows {
        cells.extend(ids.iter().map(|id| match rates.get(id) {
            Some(rate) => format!("{rate:.3}"),
            None => "—".to_owned(),
        }));
        cells.extend(
            ratios
                .iter()
                .map(|(a, b)| match (rates.get(a), rates.get(b)) {
                    (Some(a), Some(b)) => format!("{:.2}", a / b),
                    _ => "—".to_owned(),
                }),
        );
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}
