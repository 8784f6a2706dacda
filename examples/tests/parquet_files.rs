//! The test files of `qpl_examples::parquet_tool::files`.

use bytes::Bytes;
use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::files;

#[test]
fn dump() {
    for (name, bytes) in files::test_files().unwrap() {
        let reader = SerializedFileReader::new(Bytes::from(bytes.clone())).unwrap();
        let md = reader.metadata();
        println!(
            "{name}: {} bytes, {} row groups",
            bytes.len(),
            md.num_row_groups()
        );
        if name.starts_with("encodings_v1_unc")
            || name.starts_with("encodings_v2_unc")
            || name.starts_with("edge")
        {
            for c in md.row_group(0).columns() {
                let mut pages = 0;
                let rg = reader.get_row_group(0).unwrap();
                let idx = md
                    .row_group(0)
                    .columns()
                    .iter()
                    .position(|x| x.column_path() == c.column_path())
                    .unwrap();
                let mut pr = rg.get_column_page_reader(idx).unwrap();
                while let Some(_p) = pr.get_next_page().unwrap() {
                    pages += 1;
                }
                println!(
                    "  {} {:?} {:?} pages={pages}",
                    c.column_path(),
                    c.column_type(),
                    c.encodings().collect::<Vec<_>>()
                );
            }
        }
        let rows = reader.get_row_iter(None).unwrap().count();
        println!("  rows {rows}");
    }
}
