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
//! Columns the reader hands to arrow-rs's reader (lists of nested structs, lists of three
//! levels) are read by it; a panic there, or in the parquet crate's page reader, is caught by
//! the reader and is an error, which this target accepts. A panic located in this project's
//! code aborts (a crash), although the reader would have caught it too.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder;
use qpl_rs::{Config, Executor, Path};

fuzz_target!(|data: &[u8]| {
    // The reader catches panics and returns them as errors: arrow-rs's reader unwraps on some
    // damaged files (its map reader), the parquet crate's page reader on some malformed
    // headers. Those are upstream's and accepted. A panic raised in this project's own code
    // is a bug even though the reader would catch it: the hook aborts on it, so libFuzzer
    // reports it as a crash. Upstream code comes from cargo's registry (or git checkouts), the standard library
    // from /rustc/; everything else is this workspace (path dependencies).
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let ours = info.location().is_some_and(|at| {
                let file = at.file();
                !(file.contains("/registry/src/")
                    || file.contains("/git/checkouts/")
                    || file.starts_with("/rustc/"))
            });
            if ours {
                eprintln!("panic in this project's code: {info}");
                std::process::abort();
            }
        }))
    });
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
