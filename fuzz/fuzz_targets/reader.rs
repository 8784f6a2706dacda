//! `reader`: `qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder` on arbitrary file bytes.
//!
//! Input: the whole input is the Parquet file. Its length picks the batch size (`len % 3`:
//! 1024, 7 or 8192), so that mutations try small and large batches.
//!
//! Checks: the builder and the reader never panic and end (libFuzzer's `-timeout`), and never
//! allocate by a count from the file (`-rss_limit_mb`, `-malloc_limit_mb`): the footer may be
//! refused, any batch may be an error, every batch is dropped. Decoding runs on the fallback
//! path with `max_output_bytes` of 1 MiB, so a page that claims more values than that is
//! refused by the executor rather than trusted.
//!
//! While `build()` hands the read to arrow-rs (issue 30), this fuzzes arrow-rs's reader; its
//! page-header reader can loop on a damaged header (`hang-page-header-skip.parquet`, not a
//! seed here), which the reader's own pages avoid by reading through
//! `qpl_rs::parquet::query::chunk_page_reader`.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder;
use qpl_rs::{Config, Executor, Path};

fuzz_target!(|data: &[u8]| {
    let batch_size = [1024, 7, 8192][data.len() % 3];
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(data)) else {
        return;
    };
    let executor = Executor::with_config(Config {
        path: Path::Fallback,
        max_output_bytes: 1 << 20,
        ..Config::default()
    });
    let Ok(reader) = builder
        .with_batch_size(batch_size)
        .with_executor(executor)
        .build()
    else {
        return;
    };
    for batch in reader {
        if batch.is_err() {
            break;
        }
    }
});
