//! `job`: an arbitrary analytics job over arbitrary buffers through `qpl_fallback::execute`.
//!
//! Input layout (derived with `arbitrary`, see `JobInput`): eleven little-endian `u32` job
//! fields in `Job` order, then `dst_len: u16`, `src2_len: u16`, `has_src2: bool` (one byte,
//! bit 0), then the rest of the input: source-2 is its first `src2_len` bytes (clamped) when
//! `has_src2`, source-1 everything after. `fuzz/gen-seeds.py` writes seeds in this layout.
//!
//! Checks (the fallback's contract):
//! - `execute` never panics and never writes outside `dst` (0xA5 guard bytes before and after).
//! - `validate` returning `Err(s)` means `execute` returns `Err(s)` too; `Ok(None)` (D2's early
//!   return) means `execute` succeeds with nothing written; `execute` succeeding means
//!   `validate` accepted the job.
//! - An error is never `Status::OK`; a success reports `total_out <= dst.len()`,
//!   `last_bit_offset < 8` and the checksums of the whole source-1 (of the page it inflates
//!   to, for a decompress-enabled job: docs/decompress.md, DZ4).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use qpl_fallback::{
    checksums, execute, validate, Flags, Job, Operation, OutBitWidth, Parser, Status,
};

const GUARD: usize = 64;
const SENTINEL: u8 = 0xA5;

#[derive(Arbitrary, Debug)]
struct JobInput<'a> {
    /// Index into `Operation::ALL` (mod 11).
    operation: u32,
    /// 0..=3 (mod 4): the three parsers and one invalid value.
    parser: u32,
    src1_bit_width: u32,
    src2_bit_width: u32,
    num_input_elements: u32,
    param_low: u32,
    param_high: u32,
    flags: u32,
    /// 0..=4 (mod 5): nominal, 8, 16, 32 bits and one invalid value.
    out_bit_width: u32,
    drop_initial_bytes: u32,
    initial_output_index: u32,
    /// Destination size, 0..=65535.
    dst_len: u16,
    /// Bytes of `data` that form source-2 (when `has_src2`).
    src2_len: u16,
    has_src2: bool,
    /// Source-2 then source-1: the raw rest of the input (a borrowed slice, so `arbitrary`
    /// takes it as is; a `Vec<u8>` would interleave continuation bytes).
    data: &'a [u8],
}

fuzz_target!(|input: JobInput| {
    let job = Job {
        operation: Operation::ALL[(input.operation % 11) as usize],
        parser: Parser(input.parser % 4),
        src1_bit_width: input.src1_bit_width,
        src2_bit_width: input.src2_bit_width,
        num_input_elements: input.num_input_elements,
        param_low: input.param_low,
        param_high: input.param_high,
        flags: Flags(input.flags),
        out_bit_width: OutBitWidth(input.out_bit_width % 5),
        drop_initial_bytes: input.drop_initial_bytes,
        initial_output_index: input.initial_output_index,
    };
    let (src2, src1) = if input.has_src2 {
        let split = usize::from(input.src2_len).min(input.data.len());
        let (a, b) = input.data.split_at(split);
        (Some(a), b)
    } else {
        (None, input.data)
    };
    let dst_len = usize::from(input.dst_len);

    let checked = validate(&job, src1, src2, dst_len);

    let mut buf = vec![SENTINEL; dst_len + 2 * GUARD];
    let result = execute(&job, src1, src2, &mut buf[GUARD..GUARD + dst_len]);
    assert!(
        buf[..GUARD].iter().all(|&b| b == SENTINEL),
        "execute wrote before dst: {job:?}"
    );
    assert!(
        buf[GUARD + dst_len..].iter().all(|&b| b == SENTINEL),
        "execute wrote after dst: {job:?}"
    );
    let dst = &buf[GUARD..GUARD + dst_len];

    match (&checked, &result) {
        (Err(v), Err(e)) => assert_eq!(v, e, "validate and execute disagree: {job:?}"),
        (Err(v), Ok(_)) => panic!("validate said {v:?} but execute succeeded: {job:?}"),
        (Ok(None), Ok(done)) => {
            assert_eq!(done.total_out, 0, "D2 early return wrote: {job:?}");
            assert!(
                dst.iter().all(|&b| b == SENTINEL),
                "D2 early return wrote: {job:?}"
            );
        }
        (Ok(None), Err(e)) => panic!("validate said D2 early return but execute failed {e:?}"),
        (Ok(Some(_)), _) => {}
    }
    match result {
        Err(status) => assert_ne!(status, Status::OK, "Err(OK): {job:?}"),
        Ok(done) => {
            assert!(
                done.total_out as usize <= dst_len,
                "total_out past dst: {job:?}"
            );
            assert!(done.last_bit_offset < 8, "last_bit_offset: {done:?}");
            if checked != Ok(None) {
                let crc32c = job.flags.contains(Flags::CRC32C);
                let expected = if job.flags.contains(Flags::OMIT_CHECKSUMS) {
                    Some((0, 0))
                } else if job.flags.contains(Flags::DECOMPRESS_ENABLE) {
                    // DZ4: the checksums of the page source-1 inflates to; unchecked where
                    // the independent inflater cannot read the stream.
                    inflate_page(&job, src1).map(|page| checksums(&page, crc32c))
                } else {
                    Some(checksums(src1, crc32c))
                };
                if let Some(expected) = expected {
                    assert_eq!(
                        (done.crc, done.xor_checksum),
                        expected,
                        "checksums: {job:?}"
                    );
                }
            }
        }
    }
});

/// The whole page a decompress-enabled source-1 inflates to, by flate2 (independent of the
/// fallback's inflater), after the header the job's flags announce; `None` when the header
/// or the stream is bad or cut short. Bounded by deflate's ratio over `src1`.
fn inflate_page(job: &Job, src1: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let start = qpl_fallback::deflate_header_len(job.flags, src1).ok()?;
    let mut page = Vec::new();
    flate2::read::DeflateDecoder::new(&src1[start..])
        .take(src1.len() as u64 * 1032 + 64)
        .read_to_end(&mut page)
        .ok()?;
    Some(page)
}
