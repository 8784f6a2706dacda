//! The TPC-H tables as Parquet files: generated in process by `tpchgen-arrow` and written by
//! arrow-rs's `ArrowWriter` (snappy, dictionary encoding on, row groups of up to 1M rows), one
//! file per table named `<table>.parquet`.

use std::fs::File;
use std::path::{Path as FilePath, PathBuf};

use datafusion::arrow::record_batch::RecordBatchReader;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};
use tpchgen_arrow::{
    CustomerArrow, LineItemArrow, NationArrow, OrderArrow, PartArrow, PartSuppArrow, RegionArrow,
    SupplierArrow,
};

use super::queries::TABLES;

/// Rows per row group of the written files (the last one of a file has fewer).
pub const ROW_GROUP_ROWS: usize = 1_000_000;

/// The file of `table` in `dir`.
pub fn table_file(dir: &FilePath, table: &str) -> PathBuf {
    dir.join(format!("{table}.parquet"))
}

/// The TPC-H tables that have no file in `dir`.
pub fn missing_tables(dir: &FilePath) -> Vec<&'static str> {
    TABLES
        .into_iter()
        .filter(|t| !table_file(dir, t).exists())
        .collect()
}

/// Writes every TPC-H table at scale factor `sf` that has no file in `dir` yet (creating
/// `dir`), one thread per table; returns the tables written. A file that exists is kept as it
/// is, whatever its scale factor. Each file is written under a temporary name of this process
/// and renamed when complete, so an interrupted run leaves no partial `<table>.parquet`.
pub fn ensure_tables(dir: &FilePath, sf: f64) -> Result<Vec<&'static str>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let missing = missing_tables(dir);
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = missing
            .iter()
            .map(|&table| scope.spawn(move || write_table(dir, table, sf)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the writer panicked".to_string()))
            })
            .collect()
    });
    for (table, result) in missing.iter().zip(results) {
        result.map_err(|e| format!("cannot write {}: {e}", table_file(dir, table).display()))?;
    }
    Ok(missing)
}

/// The generator of `table` at scale factor `sf`, as one part (`part` 1 of 1).
fn generator(table: &str, sf: f64) -> Box<dyn RecordBatchReader + Send> {
    match table {
        "region" => Box::new(RegionArrow::new(RegionGenerator::new(sf, 1, 1))),
        "nation" => Box::new(NationArrow::new(NationGenerator::new(sf, 1, 1))),
        "supplier" => Box::new(SupplierArrow::new(SupplierGenerator::new(sf, 1, 1))),
        "customer" => Box::new(CustomerArrow::new(CustomerGenerator::new(sf, 1, 1))),
        "part" => Box::new(PartArrow::new(PartGenerator::new(sf, 1, 1))),
        "partsupp" => Box::new(PartSuppArrow::new(PartSuppGenerator::new(sf, 1, 1))),
        "orders" => Box::new(OrderArrow::new(OrderGenerator::new(sf, 1, 1))),
        "lineitem" => Box::new(LineItemArrow::new(LineItemGenerator::new(sf, 1, 1))),
        _ => unreachable!("not a TPC-H table: {table}"),
    }
}

/// Writes `table` to `dir` (see [`ensure_tables`]).
fn write_table(dir: &FilePath, table: &str, sf: f64) -> Result<(), String> {
    let file = table_file(dir, table);
    let partial = dir.join(format!(".{table}.parquet.{}.partial", std::process::id()));
    let written = write_parquet(&partial, generator(table, sf))
        .and_then(|()| std::fs::rename(&partial, &file).map_err(|e| e.to_string()));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

/// Writes `batches` to a new file at `path`: snappy, dictionary encoding on, row groups of
/// [`ROW_GROUP_ROWS`].
fn write_parquet(
    path: &FilePath,
    batches: Box<dyn RecordBatchReader + Send>,
) -> Result<(), String> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(true)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build();
    let file = File::create(path).map_err(|e| e.to_string())?;
    let mut writer =
        ArrowWriter::try_new(file, batches.schema(), Some(props)).map_err(|e| e.to_string())?;
    for batch in batches {
        writer
            .write(&batch.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    writer.close().map_err(|e| e.to_string())?;
    Ok(())
}
