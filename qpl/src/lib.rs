//! Safe Rust API for Intel QPL's analytics operations — decode (extract), filter (the eight
//! scans), select and expand over bit-packed and Parquet RLE integer streams — on the Intel
//! In-Memory Analytics Accelerator (IAA) when the host has one, and with the same results
//! everywhere else through a pure-Rust fallback.
//!
//! - [`Path`] chooses where a job runs: `Hardware` (IAA through QPL), `Software` (QPL's CPU
//!   code, kept for comparison), `Fallback` (pure Rust), or `Auto` (the accelerator when it is
//!   usable, else the fallback). Every [`Output`] says which path really ran.
//! - [`Executor::run`] runs one job over caller buffers; [`Executor::submit`] starts one that
//!   owns its buffers and returns a [`Pending`] handle. [`decode`], [`scan`], [`select`] and
//!   [`expand`] cover the common cases.
//! - A job is checked once, by the same rules on every path, so bad input gets the same
//!   [`Error`] everywhere; QPL never sees a job it would run out of bounds.
//!
//! ```
//! use qpl_rs::{scan, Path, Comparison, Stream};
//!
//! let values = [1u32, 5, 3, 5, 7, 5, 0, 5];
//! let encoded = qpl_rs::encode_parquet_rle(&values, 3).unwrap();
//! let stream = Stream::parquet_rle(&encoded);
//! let (bits, output) = scan(Path::Auto, &stream, 8, Comparison::Eq(5)).unwrap();
//! assert_eq!(bits, [0b1010_1010]);
//! assert_eq!(output.completion.sum_value, 4);
//! ```

mod api;
mod bitmap;
mod chunk;
mod error;
mod executor;
#[cfg(qpl_linked)]
mod ffi;
mod gaps;
mod hardware;
pub mod parquet;
mod path;
mod pending;
mod slot;
#[cfg(test)]
mod tests;
mod typed;

pub use api::{
    decode, expand, expand_bitmap, scan, scan_bitmap, scan_indices, select, select_bitmap,
    Comparison, Element, Stream,
};
pub use bitmap::{Bitmap, BitmapRef};
pub use error::{status_name, Error, Stage};
pub use executor::{pooled_jobs, Config, Executor, Output, DEFAULT_MAX_OUTPUT_BYTES};
pub use hardware::{hardware_info, HardwareInfo, Unavailable, DEFAULT_MAX_TRANSFER_SIZE};
pub use path::{Path, QPL_LINKED};
pub use pending::{Buffers, Finished, Pending};
pub use qpl_fallback::{
    encode_hybrid, encode_parquet_rle, pack_be, pack_le, Completion, Flags, Job, Operation,
    OutBitWidth, Parser, Status, StatusKind,
};
pub use slot::RetryPolicy;
pub use typed::{decode_into, Integer};

// For `qpl-difftest`, which compares QPL's result on the stand-in stream with the fallback's.
#[doc(hidden)]
pub use gaps::width_zero_stand_in;
