//! Scratch probe (not committed): many reads of one small file, ours or arrow-rs.
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder as A;
use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder as Q;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = Bytes::from(std::fs::read(&args[1]).unwrap());
    let which = args[2].clone();
    let reps: usize = args[3].parse().unwrap();
    let t = Instant::now();
    let mut n = 0;
    for _ in 0..reps {
        if which == "ours" {
            for b in Q::try_new(file.clone())
                .unwrap()
                .with_batch_size(8192)
                .build()
                .unwrap()
            {
                n += b.unwrap().num_rows();
            }
        } else {
            for b in A::try_new(file.clone())
                .unwrap()
                .with_batch_size(8192)
                .build()
                .unwrap()
            {
                n += b.unwrap().num_rows();
            }
        }
    }
    println!(
        "{which}: {:.2} us/read ({n})",
        t.elapsed().as_secs_f64() * 1e6 / reps as f64
    );
}
