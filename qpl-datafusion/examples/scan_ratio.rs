//! Times SQL statements in stock DataFusion and in DataFusion on qpl-rs, alternated in one
//! process: the scans' own ratio beside `qpl-tpch`'s whole queries.
//!
//! `cargo run --release -p qpl-datafusion --example scan_ratio -- DIR RUNS [SQL...]`: registers
//! every `DIR/*.parquet` (table name: the file stem), runs each SQL (default: the lineitem
//! scans of TPC-H's scan-heavy queries) RUNS times per engine and prints one line per
//! statement: the medians and their ratio (stock / qpl-rs; above 1 means qpl-rs is faster).

use std::time::Instant;

use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

/// The lineitem scans (with their filters) of Q1, Q6, Q12, Q14 and Q19, and a full scan.
const SCANS: &[&str] = &[
    "SELECT sum(l_quantity), sum(l_extendedprice), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02'",
    "SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    "SELECT count(*), max(l_orderkey) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'",
    "SELECT sum(l_extendedprice), max(l_partkey) FROM lineitem WHERE l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1995-10-01'",
    "SELECT sum(l_extendedprice), max(l_partkey), min(l_quantity) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON'",
    "SELECT count(*), max(l_comment), max(l_shipmode), sum(l_tax) FROM lineitem",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main]
async fn main() -> datafusion::common::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, runs) = match &args[..] {
        [dir, runs, ..] => (dir.clone(), runs.parse::<usize>().unwrap_or(5).max(1)),
        _ => {
            eprintln!("usage: scan_ratio DIR RUNS [SQL...]");
            std::process::exit(2);
        }
    };
    let sqls: Vec<String> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        SCANS.iter().map(|s| s.to_string()).collect()
    };
    let partitions = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config = SessionConfig::new().with_target_partitions(partitions);
    let stock = SessionContext::new_with_config(config.clone());
    let ours = SessionContext::new_with_config(config);
    qpl_datafusion::enable(&ours);
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "parquet") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let path = path.to_string_lossy().into_owned();
            for ctx in [&stock, &ours] {
                ctx.register_parquet(&name, &path, ParquetReadOptions::default())
                    .await?;
            }
        }
    }
    for sql in &sqls {
        let (mut s, mut q) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            for (ctx, times) in [(&stock, &mut s), (&ours, &mut q)] {
                let start = Instant::now();
                ctx.sql(sql).await?.collect().await?;
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let (s, q) = (median(s), median(q));
        println!(
            "stock {s:8.2} ms  qpl-rs {q:8.2} ms  ratio {:.2}x  {sql}",
            s / q
        );
    }
    Ok(())
}
