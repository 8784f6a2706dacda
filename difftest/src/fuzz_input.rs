//! A fuzzer's input read as a [`Case`], in one of two modes chosen by its first byte.

use qpl_rs::{Flags, Job, Operation, OutBitWidth, Parser};

use crate::{gen_case, gen_decompress_case, ByteChoices, Case};

/// First byte of a structured input (any even byte): the rest drives [`gen_case`] through
/// [`ByteChoices`], so mutations explore mostly valid jobs with the generator's shapes
/// (step boundaries, Parquet run mixes, short and long buffers).
pub const FUZZ_MODE_STRUCTURED: u8 = 0;

/// First byte of a raw input (any odd byte): the rest is the `job` fuzz target's layout (see
/// [`Case::from_raw_job_bytes`]), so the job fields are arbitrary and invalid jobs, odd
/// flags and parameters reach both paths too.
pub const FUZZ_MODE_RAW: u8 = 1;

/// First byte of a structured decompress-enabled input (any byte ≡ 2 mod 4): the rest
/// drives [`gen_decompress_case`] (source-1 deflate-compressed, `docs/decompress.md`).
pub const FUZZ_MODE_DECOMPRESS: u8 = 2;

/// Bytes of the raw layout before the buffers: eleven `u32` fields, `dst_len: u16`,
/// `src2_len: u16`, `has_src2: u8`.
pub const RAW_HEADER_LEN: usize = 11 * 4 + 2 + 2 + 1;

/// Reads little-endian fields from the front of a byte string, zeros past its end (as the
/// `arbitrary` crate reads the `job` target's input).
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        out
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
}

impl Case {
    /// The case a fuzzer's input describes: a first byte ≡ 0 mod 4 (or an empty input)
    /// selects [`FUZZ_MODE_STRUCTURED`], ≡ 2 mod 4 [`FUZZ_MODE_DECOMPRESS`], an odd one
    /// [`FUZZ_MODE_RAW`]; the rest is read as that mode says. Every byte string gives a case.
    pub fn from_fuzz_input(data: &[u8]) -> Case {
        match data.split_first() {
            Some((mode, rest)) if mode & 1 == FUZZ_MODE_RAW => Case::from_raw_job_bytes(rest),
            Some((mode, rest)) if mode & 3 == FUZZ_MODE_DECOMPRESS => {
                gen_decompress_case(&mut ByteChoices::new(rest))
            }
            Some((_, rest)) => gen_case(&mut ByteChoices::new(rest)),
            None => gen_case(&mut ByteChoices::new(&[])),
        }
    }

    /// A case from the `job` fuzz target's input layout (`fuzz/fuzz_targets/job.rs`, written
    /// by `fuzz/gen-seeds.py`): eleven little-endian `u32` fields in `Job` order (operation
    /// index mod 11, parser mod 4 — the three parsers and one invalid value —, then the raw
    /// `src1_bit_width`, `src2_bit_width`, `num_input_elements`, `param_low`, `param_high`,
    /// `flags`, `out_bit_width` mod 5 — four widths and one invalid value —,
    /// `drop_initial_bytes`, `initial_output_index`), `dst_len: u16`, `src2_len: u16`,
    /// `has_src2` (bit 0 of one byte), then the buffers: source-2 is the first `src2_len`
    /// bytes (fewer if the input ends) when `has_src2`, source-1 the rest. Missing header
    /// bytes read as zeros.
    pub fn from_raw_job_bytes(data: &[u8]) -> Case {
        let mut fields = Fields(data);
        let job = Job {
            operation: Operation::ALL[(fields.u32() % 11) as usize],
            parser: Parser(fields.u32() % 4),
            src1_bit_width: fields.u32(),
            src2_bit_width: fields.u32(),
            num_input_elements: fields.u32(),
            param_low: fields.u32(),
            param_high: fields.u32(),
            flags: Flags(fields.u32()),
            out_bit_width: OutBitWidth(fields.u32() % 5),
            drop_initial_bytes: fields.u32(),
            initial_output_index: fields.u32(),
        };
        let dst_len = usize::from(fields.u16());
        let src2_len = usize::from(fields.u16());
        let has_src2 = fields.u8() & 1 == 1;
        let buffers = fields.0;
        let (src2, src1) = if has_src2 {
            let (a, b) = buffers.split_at(src2_len.min(buffers.len()));
            (Some(a.to_vec()), b)
        } else {
            (None, buffers)
        };
        Case {
            job,
            src1: src1.to_vec(),
            src2,
            dst_len,
        }
    }
}
