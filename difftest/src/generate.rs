//! Random jobs: [`gen_case`] builds a mostly valid job with its buffers from a source of
//! [`Choices`] — the seeded [`Rng`] of the differential test, or [`ByteChoices`] over a
//! fuzzer's input, so that the fuzzer steers the same generator.

use qpl_rs::{encode_parquet_rle, pack_be, pack_le, Flags, Job, Operation, OutBitWidth, Parser};

use crate::{push_varint, run_fallback, width_mask, Case};

/// Where [`gen_case`]'s decisions come from.
///
/// The generator asks for uniform numbers and coin flips; an implementation decides how they
/// are drawn. `word` and `byte` default to the low bits of [`Choices::bits`] (as [`Rng`] uses
/// them); a byte-driven source reads only as many bytes as it needs.
pub trait Choices {
    /// Any 64-bit value.
    fn bits(&mut self) -> u64;
    /// A value in `lo..=hi` (`lo` when `hi < lo`).
    fn range(&mut self, lo: u64, hi: u64) -> u64;
    /// True with a probability of `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool;
    /// Any 32-bit value.
    fn word(&mut self) -> u32 {
        self.bits() as u32
    }
    /// Any byte.
    fn byte(&mut self) -> u8 {
        self.bits() as u8
    }
    /// One of `items` (which must not be empty).
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        let last = items.len().saturating_sub(1) as u64;
        items[self.range(0, last) as usize]
    }
}

/// A seeded xorshift64* generator: the same seed gives the same cases, which is what makes
/// `DIFF_SEED` reproduce a failure.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl Choices for Rng {
    fn bits(&mut self) -> u64 {
        self.next_u64()
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        // Draws even for a single value (`lo == hi`), so every seed's sequence stays as the
        // test has always generated it.
        let span = hi.saturating_sub(lo).wrapping_add(1);
        let x = self.next_u64();
        if span == 0 {
            x
        } else {
            lo + x % span
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.next_u64() as usize % items.len()]
    }
}

/// Choices read from a byte string (a fuzzer's input), so that byte mutations steer the
/// generator. Each choice takes only the bytes it needs (a range of 256 values one byte, a
/// coin flip one byte); once the bytes run out every choice reads zeros, which give the
/// first, most common branch: `range` returns `lo`, `chance` false, `pick` the first item.
#[derive(Clone, Debug)]
pub struct ByteChoices<'a> {
    bytes: &'a [u8],
}

impl<'a> ByteChoices<'a> {
    /// Choices from `bytes`, front to back.
    pub fn new(bytes: &'a [u8]) -> ByteChoices<'a> {
        ByteChoices { bytes }
    }

    /// `N` bytes from the front, zeros past the end.
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        out
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> &'a [u8] {
        self.bytes
    }
}

impl Choices for ByteChoices<'_> {
    fn bits(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }

    fn word(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn byte(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        let span = hi.saturating_sub(lo);
        if span == 0 {
            return lo;
        }
        // As many bytes as the span needs, big-endian.
        let bytes = (64 - span.leading_zeros()).div_ceil(8) as usize;
        let mut raw = 0u64;
        for _ in 0..bytes {
            raw = (raw << 8) | u64::from(self.byte());
        }
        match span.checked_add(1) {
            Some(count) => lo + raw % count,
            None => raw,
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        // Byte 0 (and the end of the input) is "no" for any percent below 100.
        u64::from(self.byte()) % 100 >= 100 - percent.min(100)
    }
}

/// `n` values of `bw` bits: uniform, runs, a small alphabet, or constant.
fn gen_values(rng: &mut impl Choices, n: usize, bw: u32) -> Vec<u32> {
    let mask = width_mask(bw);
    let mut out = Vec::with_capacity(n);
    match rng.range(0, 4) {
        0 => out.extend((0..n).map(|_| rng.word() & mask)),
        1 => {
            while out.len() < n {
                let v = rng.word() & mask;
                let len = match rng.range(0, 3) {
                    0 => rng.range(1, 8),
                    1 => rng.range(8, 100),
                    2 => rng.range(100, 3000),
                    _ => rng.range(1, 20000),
                } as usize;
                out.extend(std::iter::repeat_n(v, len.min(n - out.len())));
            }
        }
        2 => {
            let alphabet: Vec<u32> = (0..4).map(|_| rng.word() & mask).collect();
            out.extend((0..n).map(|_| rng.pick(&alphabet)));
        }
        3 => {
            // Sparse: mostly 0 with a few others (scan aggregates at step boundaries).
            out.extend((0..n).map(|_| if rng.chance(1) { rng.word() & mask } else { 0 }));
        }
        _ => {
            let v = rng.word() & mask;
            out.resize(n, v);
        }
    }
    out
}

/// A hand-made Parquet stream of about `target` values of width `bw`: RLE and bit-packed
/// runs with zero-length runs, padded (up to 5-byte) varints, over-wide RLE values,
/// truncation and trailing junk now and then.
fn gen_parquet(rng: &mut impl Choices, target: u64, bw: u32) -> Vec<u8> {
    let mask = width_mask(bw);
    let value_bytes = bw.div_ceil(8) as usize;
    let mut out = vec![bw as u8];
    let mut produced = 0u64;
    let padded = rng.chance(20);
    let five = rng.chance(8);
    let overwide = rng.chance(10);
    let zero_runs = rng.chance(20);
    while produced < target {
        let min_len = if five && rng.chance(10) {
            5
        } else if padded && rng.chance(30) {
            rng.range(1, 4) as usize
        } else {
            1
        };
        if zero_runs && rng.chance(10) {
            if rng.chance(50) {
                push_varint(&mut out, 0, min_len);
                out.extend(std::iter::repeat_n(rng.byte(), value_bytes));
            } else {
                push_varint(&mut out, 1, min_len);
            }
            continue;
        }
        let left = target - produced;
        if rng.chance(50) {
            let count = match rng.range(0, 3) {
                0 => rng.range(1, 8),
                1 => rng.range(1, 300),
                2 => rng.range(1, left.max(1)),
                _ => left,
            };
            let mut value = rng.word() & mask;
            if overwide && rng.chance(30) {
                value = rng.word();
            }
            push_varint(&mut out, count << 1, min_len);
            out.extend_from_slice(&value.to_le_bytes()[..value_bytes]);
            produced += count;
        } else {
            let groups = match rng.range(0, 2) {
                0 => rng.range(1, 2),
                1 => rng.range(1, 40),
                _ => rng.range(1, left.div_ceil(8).max(1)),
            };
            push_varint(&mut out, (groups << 1) | 1, min_len);
            let values = gen_values(rng, groups as usize * 8, bw);
            out.extend(pack_le(&values, bw).expect("bit widths 1..=32 encode"));
            produced += groups * 8;
        }
    }
    if rng.chance(10) {
        let cut = rng.range(1, 6) as usize;
        out.truncate(out.len().saturating_sub(cut).max(1));
    }
    if rng.chance(10) {
        for _ in 0..rng.range(1, 4) {
            out.push(rng.byte());
        }
    }
    out
}

fn gen_n(rng: &mut impl Choices) -> u64 {
    match rng.range(0, 99) {
        0..=44 => rng.range(1, 64),
        45..=74 => rng.range(65, 3000),
        75..=89 => rng.range(3000, 16000),
        90..=94 => {
            let edge = rng.pick(&[4112u64, 8224, 16384, 16448, 16512, 32768, 32896]);
            (edge as i64 + rng.range(0, 130) as i64 - 65).max(1) as u64
        }
        _ => rng.range(16000, 40000),
    }
}

fn gen_mask(rng: &mut impl Choices, n: u64) -> Vec<u8> {
    let mut len = n.div_ceil(8) as usize;
    match rng.range(0, 9) {
        0 => len = len.saturating_sub(1),
        1 | 2 => len += rng.range(1, 300) as usize,
        _ => {}
    }
    let len = len.max(1);
    match rng.range(0, 5) {
        0 => vec![0xFF; len],
        1 => vec![0; len],
        2 => (0..len)
            .map(|_| if rng.chance(3) { rng.byte() } else { 0 })
            .collect(),
        3 => (0..len)
            .map(|_| if rng.chance(90) { 0xFF } else { rng.byte() })
            .collect(),
        _ => (0..len).map(|_| rng.byte()).collect(),
    }
}

fn gen_flags(rng: &mut impl Choices) -> Flags {
    let mut flags = Flags::NONE;
    for (flag, percent) in [
        (Flags::OUT_BE, 30),
        (Flags::SRC2_BE, 30),
        (Flags::CRC32C, 30),
        (Flags::OMIT_CHECKSUMS, 15),
        (Flags::OMIT_AGGREGATES, 15),
        (Flags::FORCE_ARRAY_OUTPUT, 5),
    ] {
        if rng.chance(percent) {
            flags |= flag;
        }
    }
    flags
}

/// A random job with its buffers. The destination length is chosen after a first run of
/// the fallback into a large buffer: exact, short or large.
pub fn gen_case(rng: &mut impl Choices) -> Case {
    let operation = rng.pick(&Operation::ALL);
    let parser = match rng.range(0, 9) {
        0..=3 => Parser::LE_PACKED,
        4..=5 => Parser::BE_PACKED,
        _ => Parser::PARQUET_RLE,
    };
    let bw = if rng.chance(30) {
        rng.pick(&[1u32, 2, 3, 7, 8, 9, 15, 16, 17, 24, 25, 31, 32])
    } else {
        rng.range(1, 32) as u32
    };
    let n = gen_n(rng);
    let mut job = Job {
        operation,
        parser,
        src1_bit_width: bw,
        src2_bit_width: if rng.chance(2) { 2 } else { 1 },
        num_input_elements: n as u32,
        flags: gen_flags(rng),
        out_bit_width: OutBitWidth(rng.range(0, 3) as u32),
        ..Job::new(operation)
    };
    if parser == Parser::PARQUET_RLE && rng.chance(20) {
        // The raw field is ignored by Parquet except in the index-overflow pre-checks.
        job.src1_bit_width = rng.pick(&[0u32, 1, 5, 40]);
    }
    // Parameters.
    let mask = width_mask(bw);
    if operation == Operation::Extract {
        let low = match rng.range(0, 4) {
            0 => 0,
            1 => rng.range(0, n + 10),
            _ => rng.range(0, n.saturating_sub(1)),
        };
        let high = match rng.range(0, 5) {
            0 => u32::MAX as u64,
            1 => n - 1,
            2 => rng.range(0, n + 10),
            _ => rng.range(low, n.max(low)),
        };
        job.param_low = low as u32;
        job.param_high = high as u32;
    } else {
        job.param_low = if rng.chance(10) {
            rng.word()
        } else {
            rng.word() & mask
        };
        job.param_high = if rng.chance(10) {
            rng.word()
        } else {
            rng.word() & mask
        };
    }
    // Index lists.
    if rng.chance(15) {
        job.initial_output_index = match rng.range(0, 2) {
            0 => rng.range(1, 100) as u32,
            1 => rng.pick(&[200u32, 255, 65000, 65535]),
            _ => rng.word(),
        };
    }
    // Source-1.
    let values_wanted = if operation == Operation::Expand {
        n.min(rng.range(0, n))
    } else {
        n
    };
    let mut src1 = if parser == Parser::PARQUET_RLE {
        let target = match rng.range(0, 9) {
            0 => values_wanted.saturating_sub(rng.range(1, 10)),
            1 => values_wanted + rng.range(1, 100),
            2 => n,
            _ => values_wanted,
        };
        if rng.chance(50) && target > 0 {
            let values = gen_values(rng, target as usize, bw);
            encode_parquet_rle(&values, bw).expect("bit widths 1..=32 encode")
        } else {
            gen_parquet(rng, target, bw)
        }
    } else {
        let count = match rng.range(0, 9) {
            0 => values_wanted.saturating_sub(rng.range(1, 10)),
            1 => values_wanted + rng.range(1, 100),
            _ => n,
        };
        let values = gen_values(rng, count as usize, bw);
        let mut bytes = if parser == Parser::LE_PACKED {
            pack_le(&values, bw).expect("bit widths 1..=32 encode")
        } else {
            pack_be(&values, bw).expect("bit widths 1..=32 encode")
        };
        if rng.chance(10) {
            bytes.pop();
        }
        bytes
    };
    if src1.is_empty() {
        src1.push(rng.byte());
    }
    if parser == Parser::PARQUET_RLE && rng.chance(3) {
        src1[0] = rng.pick(&[0u8, 33, 255]);
    }
    // Dropped bytes: a prologue inserted in front (after the Parquet bit-width byte).
    if rng.chance(if operation.uses_mask() { 2 } else { 15 }) {
        let drop = rng.range(1, 12) as usize;
        let at = usize::from(parser == Parser::PARQUET_RLE);
        let prologue: Vec<u8> = (0..drop).map(|_| rng.byte()).collect();
        src1.splice(at..at, prologue);
        job.drop_initial_bytes = drop as u32;
    }
    let src2 = if operation.uses_mask() || rng.chance(5) {
        Some(gen_mask(rng, n))
    } else {
        None
    };
    // Destination: sized from a first run into a large buffer.
    let big = (n.max(src2.as_ref().map_or(0, |m| m.len() as u64 * 8)) * 4 + 64) as usize;
    let probe = run_fallback(&job, &src1, src2.as_deref(), big);
    let total = probe.result.map_or(big as u64, |c| u64::from(c.total_out));
    let dst_len = match rng.range(0, 9) {
        0..=3 => total,
        4 => total.saturating_sub(1),
        5 => total / 2,
        6 => total + rng.range(1, 64),
        _ => big as u64,
    }
    .max(1) as usize;
    Case {
        job,
        src1,
        src2,
        dst_len,
    }
}

/// A random decompress-enabled job (`docs/decompress.md`): a [`gen_case`] job whose source-1
/// is deflate-compressed by flate2 at a random level (0–9), raw, gzip or zlib with the
/// matching flag (now and then a mismatched one), and now and then cut short, corrupted, or
/// followed by junk. The destination length is the uncompressed case's.
pub fn gen_decompress_case(rng: &mut impl Choices) -> Case {
    use std::io::Write;

    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use flate2::Compression;

    let mut case = gen_case(rng);
    let level = Compression::new(rng.range(0, 9) as u32);
    let framing = rng.range(0, 5);
    // flate2 writes into a Vec: these cannot fail.
    let compressed = match framing {
        0..=2 => {
            let mut e = DeflateEncoder::new(Vec::new(), level);
            let _ = e.write_all(&case.src1);
            e.finish().unwrap_or_default()
        }
        3 | 4 => {
            let mut e = GzEncoder::new(Vec::new(), level);
            let _ = e.write_all(&case.src1);
            e.finish().unwrap_or_default()
        }
        _ => {
            let mut e = ZlibEncoder::new(Vec::new(), level);
            let _ = e.write_all(&case.src1);
            e.finish().unwrap_or_default()
        }
    };
    let mut flags = case.job.flags | Flags::DECOMPRESS_ENABLE;
    let mut header = match framing {
        3 | 4 => Flags::GZIP_MODE,
        5 => Flags::ZLIB_MODE,
        _ => Flags::NONE,
    };
    if rng.chance(3) {
        header = rng.pick(&[Flags::NONE, Flags::GZIP_MODE, Flags::ZLIB_MODE]);
    }
    flags |= header;
    case.job.flags = flags;
    let mut src1 = compressed;
    // Zero choices (a fuzzer input's end) keep the stream whole.
    match rng.range(0, 19) {
        17 => {
            let cut = rng.range(1, 8) as usize;
            src1.truncate(src1.len().saturating_sub(cut).max(1));
        }
        18 if !src1.is_empty() => {
            let at = rng.range(0, src1.len() as u64 - 1) as usize;
            src1[at] ^= rng.byte() | 1;
        }
        19 => {
            for _ in 0..rng.range(1, 16) {
                src1.push(rng.byte());
            }
        }
        _ => {}
    }
    case.src1 = src1;
    case
}
