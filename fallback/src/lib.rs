//! Pure-Rust implementation of Intel QPL's analytics operations — scan, extract, select and
//! expand over little-/big-endian bit-packed arrays and Parquet's RLE/bit-packing hybrid — with
//! the semantics of the IAA accelerator (see `docs/semantics.md` in the repository).
//!
//! This crate is the semantic model of qpl-rs: the job types here are the ones the safe
//! `qpl-rs` crate re-exports, and it is the CPU path that answers when no accelerator is there.
//! It depends on no C library and runs on every target.
//!
//! ```
//! use qpl_fallback::{execute, pack_le, Job, Operation, Parser};
//!
//! let values = [1, 5, 3, 5, 7, 5, 0, 5];
//! let packed = pack_le(&values, 3).unwrap();
//! let job = Job {
//!     parser: Parser::LE_PACKED,
//!     src1_bit_width: 3,
//!     num_input_elements: 8,
//!     param_low: 5,
//!     ..Job::new(Operation::ScanEq)
//! };
//! let mut bits = [0u8; 1];
//! let done = execute(&job, &packed, None, &mut bits).unwrap();
//! assert_eq!(bits, [0b1010_1010]);
//! assert_eq!(done.sum_value, 4); // four matches
//! ```

mod checksum;
mod encode;
mod execute;
mod inflate;
mod job;
mod kernels;
mod lane;
mod output;
pub mod parquet;
mod source;
mod status;
mod unpack;

pub use checksum::{checksums, xor16};
pub use encode::{
    encode_hybrid, encode_parquet_rle, pack_be, pack_le, write_run_header, EncodeError,
    MAX_RUN_LENGTH,
};
pub use execute::{
    execute, mask_ones, nominal_output_elements, source_values_needed, validate, Shape,
};
pub use job::{Completion, Flags, Job, Operation, OutBitWidth, Parser};

/// Bytes of the gzip (`Flags::GZIP_MODE`) or zlib (`Flags::ZLIB_MODE`) header in front of the
/// deflate data of a decompress-enabled source-1, 0 without either flag; the status a job
/// gets for a malformed header (`docs/decompress.md`, DZ2).
pub fn deflate_header_len(flags: Flags, src1: &[u8]) -> Result<usize, Status> {
    inflate::header_len(flags, src1)
}
pub use kernels::runs::read_run_header;
pub use kernels::{kernel_tier, Tier, TierError};
pub use status::{Status, StatusKind};

/// Decodes the first `out.len()` values of an RLE/bit-packed hybrid stream without a bit-width
/// byte — Parquet's definition and repetition levels, whose width (0..=32) the schema gives.
///
/// Same rules as the `parquet_rle` parser: 232 when the stream holds fewer values, 220 for a
/// run header longer than 4 bytes, 231 for a width above 32. Width 0 decodes all zeros.
pub fn decode_hybrid(data: &[u8], bit_width: u32, out: &mut [u32]) -> Result<(), Status> {
    if bit_width > 32 {
        return Err(Status::BIT_WIDTH_ERR);
    }
    let mut sink = SliceSink { out, filled: 0 };
    source::decode_hybrid(data, bit_width, sink.out.len() as u64, &mut sink)
}

/// Checks that an RLE/bit-packed hybrid stream (without its bit-width byte) of `bit_width`
/// (0..=32) holds at least `count` values, with the same errors as [`decode_hybrid`], without
/// writing them anywhere: its memory use does not depend on `count`.
pub fn check_hybrid(data: &[u8], bit_width: u32, count: u64) -> Result<(), Status> {
    if bit_width > 32 {
        return Err(Status::BIT_WIDTH_ERR);
    }
    source::decode_hybrid(data, bit_width, count, &mut Discard)
}

/// Accepts and forgets values.
struct Discard;

impl source::Consumer for Discard {
    fn values(&mut self, _: &[u32]) -> Result<(), Status> {
        Ok(())
    }

    fn run(&mut self, _: u32, _: u64) -> Result<(), Status> {
        Ok(())
    }
}

/// Writes decoded values into a slice the decoder never overfills (it asks for `len` values).
struct SliceSink<'a> {
    out: &'a mut [u32],
    filled: usize,
}

impl source::Consumer for SliceSink<'_> {
    fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        self.out[self.filled..self.filled + values.len()].copy_from_slice(values);
        self.filled += values.len();
        Ok(())
    }

    fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        let count = count as usize;
        self.out[self.filled..self.filled + count].fill(value);
        self.filled += count;
        Ok(())
    }
}
