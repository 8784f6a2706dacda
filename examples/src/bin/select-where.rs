//! `select-where FILE A VALUE B [PATH]`: `SELECT B WHERE A = VALUE` on a Parquet file (A an
//! INT32 column): prints B in the matching rows, one line each, `null` for a null.
//!
//! The whole query in qpl-rs's query API: per row group, `filter` scans column A's dictionary
//! indices on the accelerator (PATH `auto`, the default, when there is one; `fallback`,
//! `software`, `hardware` to choose) without decoding A, giving the matching rows as a bitmap;
//! `gather` then decodes only the selected rows of B where its encoding allows it.

use std::{error::Error, fs::File};

use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_rs::parquet::query::{filter, gather, rows_text, ChunkPages, Predicate, Scalar};
use qpl_rs::{Executor, Path};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some([file, a, value, b]), None) = (args.get(..4), args.get(5)) else {
        println!("usage: select-where FILE A VALUE B [PATH]  (SELECT B WHERE A = VALUE)");
        return Ok(());
    };
    let path = args.get(4).map_or(Some(Path::Auto), |p| Path::from_name(p));
    let executor = Executor::new(path.ok_or("PATH is auto, hardware, software or fallback")?);
    let predicate = Predicate::Eq(Scalar::Int32(value.parse()?));
    let reader = SerializedFileReader::new(File::open(file)?)?;
    for rg in 0..reader.num_row_groups() {
        let row_group = reader.get_row_group(rg)?;
        let a = ChunkPages::read(row_group.as_ref(), a)?;
        let rows = filter(&a.chunk()?, &predicate, &executor)?.rows;
        let b = ChunkPages::read(row_group.as_ref(), b)?;
        for row in rows_text(&b.column, &gather(&b.chunk()?, rows.view(), &executor)?) {
            println!("{}", row.as_deref().unwrap_or("null"));
        }
    }
    Ok(())
}
