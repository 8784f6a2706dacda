//! `Flags::DECOMPRESS_ENABLE`: source-1 is a deflate stream (raw, or behind a gzip or zlib
//! header), inflated with zlib-rs and then parsed as an uncompressed source-1
//! (`docs/decompress.md`, DZ1–DZ12).
//!
//! Only the inflated bytes the operation consumes are kept ([`Inflated::data`]): for packed
//! sources `drop_initial_bytes` + ⌈n·width/8⌉, for Parquet RLE up to the run that completes the
//! n-th value. The rest of the stream is inflated through a fixed scratch buffer only when the
//! job reports checksums (they cover the whole inflated page, DZ4), and never held.
//!
//! Each thread keeps its zlib-rs inflater (about 40 KiB: state and window) and its inflate
//! buffer from one job to the next, so a job on a small page (a Parquet data page holds a
//! few thousand values) pays neither an allocation nor the zero-filling of its buffer: a
//! page of 4096 one-byte indices inflates to 4 KiB, under a tenth of what a new buffer's
//! first step cleared. The buffer is kept only up to [`KEPT_BUFFER`] bytes.

use std::cell::RefCell;

use zlib_rs::{Inflate, InflateError, InflateFlush, Status as ZStatus};
use zune_inflate::{DeflateDecoder, DeflateOptions};

use crate::job::{Flags, Job};
use crate::status::Status;

/// `QPL_FLAG_GZIP_MODE`: the stream starts with a gzip (RFC 1952) header.
pub(crate) const GZIP_MODE: u32 = 0x0008;
/// `QPL_FLAG_ZLIB_MODE`: the stream starts with a zlib (RFC 1950) header.
pub(crate) const ZLIB_MODE: u32 = 0x0008_0000;

/// Inflated bytes produced per call while growing the kept prefix: the first step; later
/// steps double with the data held (so a Parquet stream's completeness check runs O(log n)
/// times), never beyond what the stream really inflates to.
const FIRST_STEP: usize = 64 * 1024;

/// Scratch for the part of the stream only the checksums read.
const SCRATCH: usize = 32 * 1024;

/// The largest inflate buffer a thread keeps for its next job: larger ones (pages of
/// millions of values) are freed after their job, as the memory of one job is bounded
/// (DZ9) and should not stay held by an idle thread.
const KEPT_BUFFER: usize = 4 << 20;

/// The largest deflate input (after any gzip or zlib header) tried on the small-page fast path
/// (DZ15): a Parquet data page of a few thousand dictionary indices compresses to a few KiB.
const FAST_INPUT: usize = 16 * 1024;

/// The output limit given to zune-inflate on the fast path (DZ15): a page that inflates to
/// more goes to zlib-rs, whose work the fast path then only added to.
const FAST_LIMIT: usize = 128 * 1024;

/// Room past the inflated page zune-inflate wants for its unchecked copies (its fast loop
/// grows the buffer when fewer than 6 + 258 + 32 bytes are left).
const FAST_SLACK: usize = 512;

/// A thread's inflater and buffer, reused by its next decompress job.
#[derive(Default)]
struct Reused {
    inflate: Option<Inflate>,
    /// Initialised bytes (zeros, or an earlier job's data): the job inflates into them
    /// without clearing them first.
    buffer: Vec<u8>,
}

thread_local! {
    static REUSED: RefCell<Reused> = RefCell::default();
}

/// The inflated prefix of source-1 a job needs, and the checksums of the whole page.
#[derive(Debug)]
pub(crate) struct Inflated<'a> {
    /// The first inflated bytes: at least what the operation consumes, when the stream has
    /// them.
    pub(crate) data: &'a [u8],
    /// `(crc, xor_checksum)` of every inflated byte of the stream, when the job reports them.
    pub(crate) checksums: Option<(u32, u32)>,
}

/// Bytes of the gzip or zlib header in front of the deflate data (0 for raw deflate).
/// A malformed header is `ARCHIVE_HEADER_ERR` (104), a method other than deflate
/// `ARCHIVE_UNSUP_METHOD_ERR` (105), a header cut short `SRC_IS_SHORT_ERR` (232) (DZ2).
pub(crate) fn header_len(flags: Flags, src: &[u8]) -> Result<usize, Status> {
    if flags.0 & GZIP_MODE != 0 {
        gzip_header_len(src)
    } else if flags.0 & ZLIB_MODE != 0 {
        let [cmf, flg] = src
            .get(..2)
            .and_then(|h| <[u8; 2]>::try_from(h).ok())
            .ok_or(Status::SRC_IS_SHORT_ERR)?;
        if (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 || cmf >> 4 > 7 {
            return Err(Status::ARCHIVE_HEADER_ERR);
        }
        if cmf & 0x0F != 8 {
            return Err(Status::ARCHIVE_UNSUP_METHOD_ERR);
        }
        if flg & 0x20 != 0 {
            // A preset dictionary: the job has no way to give one.
            return Err(Status::INFLATE_NEED_DICT_ERR);
        }
        Ok(2)
    } else {
        Ok(0)
    }
}

fn gzip_header_len(src: &[u8]) -> Result<usize, Status> {
    let short = Status::SRC_IS_SHORT_ERR;
    let fixed = src.get(..10).ok_or(short)?;
    if fixed[0] != 0x1F || fixed[1] != 0x8B {
        return Err(Status::ARCHIVE_HEADER_ERR);
    }
    if fixed[2] != 8 {
        return Err(Status::ARCHIVE_UNSUP_METHOD_ERR);
    }
    let flg = fixed[3];
    let mut at = 10usize;
    if flg & 0x04 != 0 {
        // FEXTRA: a 2-byte length and that many bytes.
        let len = src.get(at..at + 2).ok_or(short)?;
        at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    for bit in [0x08u8, 0x10] {
        // FNAME, FCOMMENT: zero-terminated strings.
        if flg & bit != 0 {
            let rest = src.get(at..).ok_or(short)?;
            at += rest.iter().position(|&b| b == 0).ok_or(short)? + 1;
        }
    }
    if flg & 0x02 != 0 {
        at += 2; // FHCRC
    }
    if at > src.len() {
        return Err(short);
    }
    Ok(at)
}

/// QPL's status for a stream zlib-rs rejects, from zlib's message (DZ6): the IAA
/// completion-record codes 202–218 where one names the fault, `INVALID_DEFLATE_DATA_ERR`
/// otherwise.
fn data_error(message: Option<&str>) -> Status {
    match message.unwrap_or("") {
        "invalid block type" => Status::INVALID_BLOCK_TYPE,
        "invalid stored block lengths" => Status::INVALID_STORED_LEN_ERR,
        "invalid code lengths set" => Status::BAD_CL_CODE_LEN_ERR,
        "invalid bit length repeat" => Status::FIRST_LL_CODE_16_ERR,
        "invalid code -- missing end-of-block" => Status::NO_LL_CODE_ERR,
        "too many length or distance symbols" => Status::WRONG_NUM_LL_CODES_ERR,
        "invalid literal/lengths set" => Status::BAD_LL_CODE_LEN_ERR,
        "invalid distances set" => Status::BAD_DIST_CODE_LEN_ERR,
        "invalid literal/length code" => Status::BAD_LL_CODE_ERR,
        "invalid distance code" => Status::BAD_D_CODE_ERR,
        "invalid distance too far back" => Status::REF_BEFORE_START_ERR,
        _ => Status::INVALID_DEFLATE_DATA_ERR,
    }
}

/// Streaming inflate over source-1.
struct Stream<'a> {
    inflate: &'a mut Inflate,
    input: &'a [u8],
    /// The final block has ended: nothing more comes (bytes after it are ignored, DZ5).
    ended: bool,
    /// The input ran out before the final block ended (DZ7); `ended` is set too.
    cut: bool,
}

impl Stream<'_> {
    /// Inflates into `out`; returns the bytes written. `out` is filled unless the stream ends
    /// (or is cut short).
    fn fill(&mut self, out: &mut [u8]) -> Result<usize, Status> {
        let mut written = 0;
        while written < out.len() && !self.ended {
            let (before_in, before_out) = (self.inflate.total_in(), self.inflate.total_out());
            // `Finish`: a stream that ends within this call is not copied into the
            // inflater's window (zlib's rule), which a small page would otherwise pay for
            // every byte; a stream that does not continues exactly as with `NoFlush`.
            let result =
                self.inflate
                    .decompress(self.input, &mut out[written..], InflateFlush::Finish);
            let used = (self.inflate.total_in() - before_in) as usize;
            let made = (self.inflate.total_out() - before_out) as usize;
            self.input = &self.input[used.min(self.input.len())..];
            written += made;
            match result {
                Ok(ZStatus::StreamEnd) => self.ended = true,
                Ok(_) if used == 0 && made == 0 => {
                    // No progress with output room left: the input ran out before the final
                    // block ended (DZ7).
                    self.ended = true;
                    self.cut = true;
                }
                Ok(_) => {}
                Err(InflateError::DataError) => {
                    return Err(data_error(self.inflate.error_message()))
                }
                Err(InflateError::MemError) => return Err(Status::NO_MEM_ERR),
                Err(_) => return Err(Status::INVALID_DEFLATE_DATA_ERR),
            }
        }
        Ok(written)
    }
}

/// Inflates source-1 of a decompress-enabled `job` and calls `then` with the result: keeps
/// the first inflated bytes until `enough(data)` says the operation has all it consumes (or
/// `limit` bytes are held, or the stream ends), then, unless checksums are omitted, runs the
/// rest of the stream through the checksums. `limit` bounds the allocation: no more than
/// `limit` bytes plus one step. The thread's inflater and buffer are reused (and a call from
/// within `then` gets fresh ones).
///
/// A small stream that zune-inflate and zlib-rs are known to treat alike (one final block:
/// stored, or dynamic with zlib's strict header rules, [`zune_agrees_with_zlib`]) is first
/// inflated whole by zune-inflate, at most [`FAST_LIMIT`] bytes; `then` gets the same prefix
/// and checksums as from zlib-rs. On any zune-inflate error the job runs through zlib-rs from
/// the start, so statuses, cut streams and bounds are zlib-rs's (DZ15).
pub(crate) fn with_inflated_source<T>(
    job: &Job,
    src1: &[u8],
    limit: usize,
    enough: impl FnMut(&[u8]) -> bool,
    then: impl FnOnce(Inflated<'_>) -> Result<T, Status>,
) -> Result<T, Status> {
    inflate_job(job, src1, limit, enough, then, true)
}

/// [`with_inflated_source`], with the fast path or (`fast` false, for tests) without it.
fn inflate_job<T>(
    job: &Job,
    src1: &[u8],
    limit: usize,
    mut enough: impl FnMut(&[u8]) -> bool,
    then: impl FnOnce(Inflated<'_>) -> Result<T, Status>,
    fast: bool,
) -> Result<T, Status> {
    let start = header_len(job.flags, src1)?;
    let checksummed = !job.flags.contains(Flags::OMIT_CHECKSUMS);
    if let Some(page) = fast
        .then(|| fast_inflate(&src1[start..], limit, checksummed))
        .flatten()
    {
        let held = held_prefix(&page, limit, &mut enough);
        let checksums = checksummed.then(|| {
            let mut digest = Digest::new(job.flags.contains(Flags::CRC32C));
            digest.update(&page);
            digest.finish()
        });
        return then(Inflated {
            data: &page[..held],
            checksums,
        });
    }
    let mut reused = REUSED.with(|r| r.take());
    let mut inflate = match reused.inflate.take() {
        Some(mut inflate) => {
            inflate.reset(false);
            inflate
        }
        None => Inflate::new(false, 15),
    };
    let result = inflate_source(
        job,
        &src1[start..],
        limit,
        &mut enough,
        &mut inflate,
        &mut reused,
    )
    .and_then(|(len, checksums)| {
        then(Inflated {
            data: &reused.buffer[..len],
            checksums,
        })
    });
    reused.inflate = Some(inflate);
    if reused.buffer.len() > KEPT_BUFFER {
        reused.buffer = Vec::new();
    }
    REUSED.with(|r| r.replace(reused));
    result
}

/// [`with_inflated_source`]'s work on the deflate data `input`: returns the bytes held at
/// the start of `reused.buffer` and the checksums.
fn inflate_source(
    job: &Job,
    input: &[u8],
    limit: usize,
    enough: &mut impl FnMut(&[u8]) -> bool,
    inflate: &mut Inflate,
    reused: &mut Reused,
) -> Result<(usize, Option<(u32, u32)>), Status> {
    let mut stream = Stream {
        inflate,
        input,
        ended: false,
        cut: false,
    };
    let checksummed = !job.flags.contains(Flags::OMIT_CHECKSUMS);
    let mut digest = checksummed.then(|| Digest::new(job.flags.contains(Flags::CRC32C)));
    let data = &mut reused.buffer;
    let mut held = 0;
    while !stream.ended && held < limit && !enough(&data[..held]) {
        let step = held.max(FIRST_STEP).min(limit - held);
        if data.len() < held + step {
            // Zeros only past what an earlier job initialised.
            data.resize(held + step, 0);
        }
        held += stream.fill(&mut data[held..held + step])?;
    }
    let checksums = match digest.as_mut() {
        Some(d) => {
            d.update(&data[..held]);
            let mut scratch = vec![0u8; SCRATCH];
            while !stream.ended {
                let made = stream.fill(&mut scratch)?;
                d.update(&scratch[..made]);
            }
            if stream.cut {
                // The page's checksums cannot be had from part of it.
                return Err(Status::SRC_IS_SHORT_ERR);
            }
            Some(d.finish())
        }
        None => None,
    };
    Ok((held, checksums))
}

/// The whole page inflated by zune-inflate, when `input` is a stream it inflates exactly as
/// zlib-rs does ([`zune_agrees_with_zlib`]), no longer than [`FAST_INPUT`], that inflates
/// without error within the bound: [`FAST_LIMIT`], or the job's `limit` when only the prefix
/// is read (no checksums). `None`: the job goes to zlib-rs.
fn fast_inflate(input: &[u8], limit: usize, checksummed: bool) -> Option<Vec<u8>> {
    if input.len() > FAST_INPUT || !zune_agrees_with_zlib(input) {
        return None;
    }
    let bound = if checksummed {
        FAST_LIMIT
    } else {
        limit.min(FAST_LIMIT)
    };
    // zune-inflate zero-fills its buffer up front: sized for a page compressed up to 4:1
    // (dictionary indices compress far less), grown by doubling past that.
    let hint = bound.min(input.len().max(1024).saturating_mul(4)) + FAST_SLACK;
    let options = DeflateOptions::default()
        .set_limit(bound)
        .set_size_hint(hint);
    DeflateDecoder::new_with_options(input, options)
        .decode_deflate()
        .ok()
}

/// The prefix of the whole inflated `page` that zlib-rs's doubling steps would hold
/// ([`inflate_source`]): the same `held`, so `then` sees the same bytes whichever inflater ran.
fn held_prefix(page: &[u8], limit: usize, enough: &mut impl FnMut(&[u8]) -> bool) -> usize {
    let mut held = 0;
    while held < page.len() && held < limit && !enough(&page[..held]) {
        let step = held.max(FIRST_STEP).min(limit - held);
        held = (held + step).min(page.len());
    }
    held
}

/// Deflate's code-length alphabet order (RFC 1951 3.2.7).
const PRECODE_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Whether zune-inflate's result on the raw deflate stream `input` is known to be zlib-rs's,
/// when zune-inflate succeeds: the first block is the final one, and it is stored, or dynamic
/// with a header zlib accepts and complete codes. zune-inflate (libdeflate's rules) accepts
/// streams zlib rejects: more than 286 literal/length or 30 distance codes, a code-length
/// repeat past the last code, incomplete codes of one 1-bit code, an empty distance code used
/// by a match, and in fixed blocks the literal/length symbols 286–287 and distance symbols
/// 30–31; with this header no such symbol exists and every code is complete, so both decode
/// every bit alike. Anything else (several blocks, a fixed block, a header zlib refuses, a cut
/// header) is `false` and goes to zlib-rs.
fn zune_agrees_with_zlib(input: &[u8]) -> bool {
    let mut bits = Bits { input, at: 0 };
    match bits.take(3) {
        Some(0b001) => true, // final, stored
        Some(0b101) => strict_dynamic_header(&mut bits),
        _ => false,
    }
}

/// A dynamic block header (after BFINAL and BTYPE) that zlib accepts, with complete codes.
fn strict_dynamic_header(bits: &mut Bits<'_>) -> bool {
    let (Some(hlit), Some(hdist), Some(hclen)) = (bits.take(5), bits.take(5), bits.take(4)) else {
        return false;
    };
    let (nlit, ndist) = (257 + hlit as usize, 1 + hdist as usize);
    if nlit > 286 || ndist > 30 {
        return false;
    }
    let mut precode = [0u8; 19];
    for &symbol in &PRECODE_ORDER[..4 + hclen as usize] {
        let Some(len) = bits.take(3) else {
            return false;
        };
        precode[symbol] = len as u8;
    }
    if !complete(&precode) {
        return false;
    }
    // (symbol, length) by the next 7 bits; every entry filled, as the code is complete.
    let mut table = [(0u8, 0u8); 128];
    let codes = canonical_codes(&precode);
    for (symbol, (&len, &code)) in precode.iter().zip(&codes).enumerate() {
        if len == 0 {
            continue;
        }
        let reversed = (code.reverse_bits() >> (16 - u32::from(len))) as usize;
        for fill in 0..1usize << (7 - len) {
            table[reversed | fill << len] = (symbol as u8, len);
        }
    }
    let mut lens = [0u8; 286 + 30];
    let total = nlit + ndist;
    let mut i = 0;
    while i < total {
        let Some(peek) = bits.peek(7) else {
            return false;
        };
        let (symbol, len) = table[peek as usize];
        if bits.take(u32::from(len)).is_none() {
            return false;
        }
        let (value, repeat) = match symbol {
            0..=15 => (symbol, Some(1)),
            16 if i == 0 => return false,
            16 => (lens[i - 1], bits.take(2).map(|r| 3 + r as usize)),
            17 => (0, bits.take(3).map(|r| 3 + r as usize)),
            _ => (0, bits.take(7).map(|r| 11 + r as usize)),
        };
        let Some(repeat) = repeat.filter(|&r| i + r <= total) else {
            return false;
        };
        lens[i..i + repeat].fill(value);
        i += repeat;
    }
    let (litlen, dist) = lens[..total].split_at(nlit);
    litlen[256] != 0 && complete(litlen) && complete(dist)
}

/// Whether the code lengths `lens` (0: unused) fill the code space exactly.
fn complete(lens: &[u8]) -> bool {
    let mut count = [0i32; 16];
    for &len in lens {
        count[usize::from(len)] += 1;
    }
    let mut left = 1i32;
    for &n in &count[1..] {
        left = 2 * left - n;
        if left < 0 {
            return false;
        }
    }
    left == 0
}

/// The canonical (RFC 1951 3.2.2) code of each symbol of `lens`, most significant bit first.
fn canonical_codes(lens: &[u8; 19]) -> [u16; 19] {
    let mut count = [0u16; 16];
    for &len in lens {
        count[usize::from(len)] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    for len in 1..16 {
        next[len] = (next[len - 1] + count[len - 1]) << 1;
    }
    let mut codes = [0u16; 19];
    for (code, &len) in codes.iter_mut().zip(lens) {
        if len != 0 {
            *code = next[usize::from(len)];
            next[usize::from(len)] += 1;
        }
    }
    codes
}

/// Deflate's bits, least significant first.
struct Bits<'a> {
    input: &'a [u8],
    /// Bits read.
    at: usize,
}

impl Bits<'_> {
    /// The next `n` ≤ 16 bits without reading them, zeros past the input's end (a code at
    /// the end may be shorter than `n`: `take` checks its length); `None` at the end.
    fn peek(&self, n: u32) -> Option<u32> {
        if self.at >= self.input.len() * 8 {
            return None;
        }
        let byte = self.at / 8;
        let mut word = [0u8; 4];
        let have = (self.input.len() - byte).min(4);
        word[..have].copy_from_slice(&self.input[byte..byte + have]);
        Some((u32::from_le_bytes(word) >> (self.at % 8)) & ((1 << n) - 1))
    }

    /// Reads `n` ≤ 16 bits; `None` past the input's end.
    fn take(&mut self, n: u32) -> Option<u32> {
        if self.at + n as usize > self.input.len() * 8 {
            return None;
        }
        let value = self.peek(n)?;
        self.at += n as usize;
        Some(value)
    }
}

/// CRC and XOR over bytes arriving in pieces of any length.
struct Digest {
    crc: crc_fast::Digest,
    xor: u32,
    /// Bytes seen so far is odd: the next byte is a word's high byte.
    odd: bool,
}

impl Digest {
    fn new(castagnoli: bool) -> Digest {
        Digest {
            crc: crc_fast::Digest::new(if castagnoli {
                crc_fast::CrcAlgorithm::Crc32Iscsi
            } else {
                crc_fast::CrcAlgorithm::Crc32IsoHdlc
            }),
            xor: 0,
            odd: false,
        }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.crc.update(bytes);
        if self.odd {
            if let Some((&first, rest)) = bytes.split_first() {
                self.xor ^= u32::from(first) << 8;
                bytes = rest;
                self.odd = false;
            }
        }
        self.xor ^= crate::checksum::xor16(bytes);
        if bytes.len() % 2 == 1 {
            self.odd = true;
        }
    }

    fn finish(&self) -> (u32, u32) {
        (self.crc.clone().finalize() as u32, self.xor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_in_pieces_equals_digest_at_once() {
        let data: Vec<u8> = (0..1001u32).map(|i| (i * 7 + i / 5) as u8).collect();
        for cut in [0usize, 1, 2, 3, 500, 999, 1000, 1001] {
            for castagnoli in [false, true] {
                let mut d = Digest::new(castagnoli);
                d.update(&data[..cut]);
                d.update(&data[cut..cut.max(cut + 3).min(data.len())]);
                d.update(&data[(cut + 3).min(data.len())..]);
                assert_eq!(
                    d.finish(),
                    crate::checksum::checksums(&data, castagnoli),
                    "cut {cut}"
                );
            }
        }
    }

    /// A thread's reused buffer still holds an earlier job's inflated bytes: a later job whose
    /// stream is cut short must not read them as its own (nor an earlier job's Parquet page
    /// complete a shorter one's), whatever order the jobs come in.
    #[test]
    fn a_reused_buffer_never_lends_an_earlier_jobs_bytes() {
        use std::io::Write;
        let deflate = |data: &[u8]| {
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let page: Vec<u8> = (0..100_000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        let whole = deflate(&page);
        let cut = &whole[..whole.len() / 2];
        let job = |n: u32| Job {
            operation: crate::Operation::Extract,
            src1_bit_width: 8,
            num_input_elements: n,
            param_low: 0,
            param_high: n - 1,
            flags: Flags::DECOMPRESS_ENABLE | Flags::OMIT_CHECKSUMS,
            ..Job::default()
        };
        let mut dst = vec![0u8; page.len()];
        for _ in 0..2 {
            let done = crate::execute(&job(100_000), &whole, None, &mut dst).unwrap();
            assert_eq!((done.total_out, &dst[..]), (100_000, &page[..]));
            assert_eq!(
                crate::execute(&job(100_000), cut, None, &mut dst),
                Err(Status::SRC_IS_SHORT_ERR)
            );
            let small = deflate(&page[..10]);
            assert_eq!(
                crate::execute(&job(11), &small, None, &mut dst),
                Err(Status::SRC_IS_SHORT_ERR)
            );
        }
    }

    /// Deflate bits, least significant first, for hand-made streams.
    pub(crate) struct BitWriter {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }

    impl BitWriter {
        pub(crate) fn new() -> BitWriter {
            BitWriter {
                out: Vec::new(),
                acc: 0,
                n: 0,
            }
        }

        pub(crate) fn put(&mut self, value: u32, n: u32) {
            self.acc |= u64::from(value) << self.n;
            self.n += n;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }

        /// A Huffman code: most significant bit first.
        pub(crate) fn code(&mut self, code: u32, len: u8) {
            for i in (0..u32::from(len)).rev() {
                self.put((code >> i) & 1, 1);
            }
        }

        pub(crate) fn finish(mut self) -> Vec<u8> {
            if self.n > 0 {
                self.out.push(self.acc as u8);
            }
            self.out
        }
    }

    fn codes_of(lens: &[u8]) -> Vec<u32> {
        let mut count = [0u32; 16];
        for &l in lens {
            count[usize::from(l)] += 1;
        }
        count[0] = 0;
        let mut next = [0u32; 16];
        for b in 1..16 {
            next[b] = (next[b - 1] + count[b - 1]) << 1;
        }
        lens.iter()
            .map(|&l| {
                let c = next[usize::from(l)];
                next[usize::from(l)] += u32::from(l != 0);
                c
            })
            .collect()
    }

    /// A dynamic block header: `nlit`, `ndist` codes, then the code-length sequence as
    /// (precode symbol, extra bits, extra bit count) under the precode lengths `pre`.
    fn dynamic_header(
        w: &mut BitWriter,
        last: bool,
        (nlit, ndist): (usize, usize),
        pre: &[u8; 19],
        sequence: &[(usize, u32, u32)],
    ) {
        w.put(u32::from(last), 1);
        w.put(2, 2);
        w.put((nlit - 257) as u32, 5);
        w.put((ndist - 1) as u32, 5);
        w.put(15, 4);
        for &s in &PRECODE_ORDER {
            w.put(u32::from(pre[s]), 3);
        }
        let codes = codes_of(pre);
        for &(s, extra, n) in sequence {
            w.code(codes[s], pre[s]);
            w.put(extra, n);
        }
    }

    /// `lens` written one by one under a precode giving 0..=15 four bits each.
    fn plain_lengths(lens: &[u8]) -> ([u8; 19], Vec<(usize, u32, u32)>) {
        let mut pre = [0u8; 19];
        pre[..16].fill(4);
        (pre, lens.iter().map(|&l| (usize::from(l), 0, 0)).collect())
    }

    /// A final dynamic block with `lens` (literal/length then distance), then `body`
    /// written with its codes: (symbol, is a distance symbol) or raw bits.
    fn dynamic_block(nlit: usize, lens: &[u8], body: &[Body]) -> Vec<u8> {
        let (pre, seq) = plain_lengths(lens);
        let mut w = BitWriter::new();
        dynamic_header(&mut w, true, (nlit, lens.len() - nlit), &pre, &seq);
        let (lit, dist) = lens.split_at(nlit);
        let (lit_codes, dist_codes) = (codes_of(lit), codes_of(dist));
        for b in body {
            match *b {
                Body::Lit(s) => w.code(lit_codes[s], lit[s]),
                Body::Dist(s) => w.code(dist_codes[s], dist[s]),
                Body::Bits(v, n) => w.put(v, n),
            }
        }
        w.finish()
    }

    enum Body {
        Lit(usize),
        Dist(usize),
        Bits(u32, u32),
    }

    /// Streams zune-inflate 0.2.54 accepts and zlib-rs refuses (each checked to differ when
    /// the fast path was written), streams both refuse, and valid ones.
    fn edge_streams() -> Vec<(&'static str, Vec<u8>)> {
        use Body::*;
        let mut cases = Vec::new();
        let mut l = vec![0u8; 289];
        (l[97], l[256], l[286], l[287], l[288]) = (1, 2, 2, 1, 1);
        cases.push((
            "287 literal/length codes",
            dynamic_block(287, &l, &[Lit(97), Lit(97), Lit(256)]),
        ));
        let mut l = vec![0u8; 257 + 31];
        (l[97], l[256], l[257], l[258]) = (1, 1, 1, 1);
        cases.push((
            "31 distance codes",
            dynamic_block(257, &l, &[Lit(97), Lit(97), Lit(256)]),
        ));
        {
            let mut pre = [0u8; 19];
            (pre[0], pre[1], pre[16], pre[18]) = (2, 2, 2, 2);
            let seq = [
                (18, 86, 7),
                (1, 0, 0),
                (18, 127, 7),
                (18, 9, 7),
                (1, 0, 0),
                (1, 0, 0),
                (16, 0, 2),
            ];
            let mut w = BitWriter::new();
            dynamic_header(&mut w, true, (257, 2), &pre, &seq);
            w.put(0, 1); // 'a' (code 0), then end of block (code 1)
            w.put(1, 1);
            cases.push(("a code-length repeat past the last code", w.finish()));
        }
        let mut l = vec![0u8; 259];
        (l[97], l[98], l[256], l[257]) = (2, 2, 2, 2);
        cases.push((
            "a match under an empty distance code",
            dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(0, 1), Lit(256)]),
        ));
        l[258] = 1;
        cases.push((
            "the unused half of a one-code distance code",
            dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(1, 1), Lit(256)]),
        ));
        cases.push((
            "the used half of a one-code distance code (valid)",
            dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(0, 1), Lit(256)]),
        ));
        let mut l = vec![0u8; 258];
        (l[256], l[257]) = (1, 1);
        cases.push((
            "the unused half of an end-of-block-only code",
            dynamic_block(257, &l, &[Bits(1, 1)]),
        ));
        {
            let mut pre = [0u8; 19];
            pre[8] = 1;
            let mut w = BitWriter::new();
            dynamic_header(&mut w, true, (257, 1), &pre, &[(8, 0, 0); 258]);
            w.put(0, 8);
            cases.push(("a one-code precode", w.finish()));
        }
        let fixed = |body: &dyn Fn(&mut BitWriter)| {
            let mut w = BitWriter::new();
            w.put(1, 1);
            w.put(1, 2);
            body(&mut w);
            w.finish()
        };
        cases.push((
            "fixed literal/length symbol 286",
            fixed(&|w| {
                w.code(0x30 + 97, 8);
                w.code(0xC0 + 6, 8);
                w.code(0, 5);
                w.code(0, 7);
            }),
        ));
        cases.push((
            "fixed distance symbol 30",
            fixed(&|w| {
                w.code(0x30 + 97, 8);
                for _ in 0..100 {
                    w.code(0xC0 + 5, 8);
                    w.code(0, 5);
                }
                w.code(1, 7);
                w.code(30, 5);
                w.put(0, 13);
                w.code(0, 7);
            }),
        ));
        cases.push((
            "fixed distance too far back",
            fixed(&|w| {
                w.code(0x30 + 97, 8);
                w.code(1, 7);
                w.code(1, 5);
                w.code(0, 7);
            }),
        ));
        let stored = |len: u32, nlen: u32, data: &[u8], last: u32| {
            let mut w = BitWriter::new();
            w.put(last, 1);
            w.put(0, 2);
            w.put(0, 5);
            w.put(len, 16);
            w.put(nlen, 16);
            for &b in data {
                w.put(u32::from(b), 8);
            }
            w.finish()
        };
        cases.push(("stored, wrong NLEN", stored(3, 0xFFFB, b"abc", 1)));
        cases.push(("stored (valid)", stored(3, 0xFFFC, b"abc", 1)));
        cases.push(("stored, cut", stored(5, 0xFFFA, b"abc", 1)));
        cases.push((
            "stored, not final, then nothing",
            stored(3, 0xFFFC, b"abc", 0),
        ));
        let mut trailing = stored(3, 0xFFFC, b"abc", 1);
        trailing.extend_from_slice(&[0xFF; 9]);
        cases.push(("stored, then bytes after the final block", trailing));
        cases.push(("empty final fixed block", fixed(&|w| w.code(0, 7))));
        cases.push(("reserved block type", vec![0b111, 0, 0]));
        cases.push(("nothing", vec![]));
        cases
    }

    fn packed_job(n: u32, flags: Flags) -> Job {
        Job {
            operation: crate::Operation::Extract,
            src1_bit_width: 8,
            num_input_elements: n,
            param_low: 0,
            param_high: n.max(1) - 1,
            flags: flags | Flags::DECOMPRESS_ENABLE,
            ..Job::default()
        }
    }

    /// What `then` got (the held prefix and checksums), or the status, with or without the
    /// fast path.
    type Seen = Result<(Vec<u8>, Option<(u32, u32)>), Status>;

    fn seen(job: &Job, src: &[u8], limit: usize, parquet_needs: Option<u64>, fast: bool) -> Seen {
        // As a Parquet job's check: true once the prefix holds enough of something.
        let enough = |data: &[u8]| match parquet_needs {
            Some(n) => data.iter().filter(|&&b| b == 7).count() as u64 >= n,
            None => false,
        };
        inflate_job(
            job,
            src,
            limit,
            enough,
            |i| Ok((i.data.to_vec(), i.checksums)),
            fast,
        )
    }

    /// Every way of running a stream gives the same result with the fast path as without.
    fn assert_same(name: &str, src: &[u8]) {
        for flags in [Flags(0), Flags::OMIT_CHECKSUMS, Flags::CRC32C] {
            for limit in [0usize, 1, 3, 64, 4096, 1 << 20] {
                for parquet in [None, Some(1), Some(1000)] {
                    let job = packed_job(4, flags);
                    assert_eq!(
                        seen(&job, src, limit, parquet, true),
                        seen(&job, src, limit, parquet, false),
                        "{name}: flags {flags:?} limit {limit} parquet {parquet:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn streams_zune_and_zlib_treat_differently_get_zlibs_result() {
        for (name, stream) in edge_streams() {
            assert_same(name, &stream);
            for cut in 0..stream.len() {
                assert_same(name, &stream[..cut]);
            }
        }
        // The refused ones are refused with zlib's status, not zune-inflate's acceptance.
        let status = |name: &str| {
            let (_, s) = edge_streams().into_iter().find(|c| c.0 == name).unwrap();
            seen(&packed_job(4, Flags(0)), &s, 1 << 20, None, true).map(|_| ())
        };
        assert_eq!(
            status("287 literal/length codes"),
            Err(Status::WRONG_NUM_LL_CODES_ERR)
        );
        assert_eq!(
            status("a match under an empty distance code"),
            Err(Status::BAD_D_CODE_ERR)
        );
        assert_eq!(
            status("fixed literal/length symbol 286"),
            Err(Status::BAD_LL_CODE_ERR)
        );
        assert_eq!(
            status("fixed distance too far back"),
            Err(Status::REF_BEFORE_START_ERR)
        );
        assert_eq!(
            status("a code-length repeat past the last code"),
            Err(Status::FIRST_LL_CODE_16_ERR)
        );
    }

    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Pages like the benchmarks' (packed indices with runs), a Parquet RLE page, and pages
    /// past the fast path's limits.
    fn sample_pages() -> Vec<Vec<u8>> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut pages = Vec::new();
        for len in [0usize, 1, 100, 3000, 20_000] {
            let page: Vec<u8> = (0..len)
                .map(|i| {
                    if (i / 16) % 3 == 0 {
                        7
                    } else {
                        next() as u8 & 0x3F
                    }
                })
                .collect();
            pages.push(page);
        }
        pages.push(vec![0u8; 300_000]); // inflates past FAST_LIMIT from a small input
        let mut parquet = vec![4u8]; // width 4; runs of 8 bit-packed values
        for _ in 0..200 {
            parquet.push(3);
            parquet.extend((0..4).map(|_| next() as u8));
        }
        pages.push(parquet);
        pages
    }

    #[test]
    fn valid_pages_and_their_mutations_give_the_same_result_either_way() {
        let mut x = 12345u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for page in sample_pages() {
            for level in [0, 1, 6, 9] {
                let stream = deflate(&page, level);
                assert_same("valid", &stream);
                let rounds = if page.len() <= 3000 { 40 } else { 0 };
                for _ in 0..rounds {
                    let mut bad = stream.clone();
                    if bad.is_empty() {
                        break;
                    }
                    for _ in 0..1 + next() % 3 {
                        let at = (next() % bad.len() as u64) as usize;
                        // Flips in the header are the interesting ones.
                        let at = if next() % 2 == 0 {
                            at % bad.len().min(40)
                        } else {
                            at
                        };
                        bad[at] ^= 1 << (next() % 8);
                    }
                    assert_same("mutated", &bad);
                }
            }
        }
    }

    #[test]
    fn the_fast_path_runs_on_small_pages_only() {
        let small = deflate(&sample_pages()[3], 6);
        assert!(zune_agrees_with_zlib(&small));
        assert_eq!(
            fast_inflate(&small, 1 << 20, true).map(|p| p.len()),
            Some(3000)
        );
        // Its bound: the job's `limit` when only the prefix is read (checked after a match:
        // the page's runs of 7 are matches every 48 bytes), FAST_LIMIT with checksums.
        assert_eq!(fast_inflate(&small, 100, false), None);
        assert_eq!(fast_inflate(&small, 100, true).map(|p| p.len()), Some(3000));
        // A page inflating past FAST_LIMIT from a small input, with matches (DZ15).
        let long = matches_then_literals(1200, 0);
        assert!(long.len() < 1000 && zune_agrees_with_zlib(&long));
        assert_eq!(fast_inflate(&long, 1 << 20, true), None);
        assert_same("past the limit", &long);
        // Inputs past FAST_INPUT, several blocks, fixed blocks: zlib-rs.
        let big = deflate(&sample_pages()[4], 0);
        assert!(big.len() > FAST_INPUT);
        assert_eq!(fast_inflate(&big, 1 << 20, true), None);
        assert!(!zune_agrees_with_zlib(&deflate(b"ab", 6))); // a fixed block
    }

    /// A final dynamic block: literal 0, `matches` matches of 258 bytes at distance 1 (three
    /// bits each), `literals` zero literals (one bit each), end of block.
    fn matches_then_literals(matches: usize, literals: usize) -> Vec<u8> {
        use Body::*;
        // Literal 0: one bit; length 258 (symbol 285) and end of block: two; distances: one.
        let mut l = vec![0u8; 288];
        (l[0], l[256], l[285], l[286], l[287]) = (1, 2, 2, 1, 1);
        let mut body = vec![Lit(0)];
        for _ in 0..matches {
            body.extend([Lit(285), Dist(0)]);
        }
        body.extend((0..literals).map(|_| Lit(0)));
        body.push(Lit(256));
        dynamic_block(286, &l, &body)
    }

    /// DZ15's memory bound: zune-inflate checks its limit after each match (and before each
    /// stored block), so a run of literals (one bit each at best) passes it by up to eight
    /// bytes per input byte: the fast path's page is at most FAST_LIMIT + 8·FAST_INPUT plus
    /// a match and its slack, whatever the stream.
    #[test]
    fn the_fast_paths_memory_is_bounded_by_constants() {
        // 507 matches to just under the limit, checked after each, then as many one-bit
        // zero literals as fit in FAST_INPUT: never checked.
        let header = matches_then_literals(0, 0).len();
        let matches = (FAST_LIMIT - 1) / 258;
        let literals = (FAST_INPUT - header - 1 - matches * 3 / 8 - 1) * 8;
        let stream = matches_then_literals(matches, literals);
        assert!(stream.len() <= FAST_INPUT && zune_agrees_with_zlib(&stream));
        let page = fast_inflate(&stream, usize::MAX, true).expect("no limit check after literals");
        assert_eq!(page.len(), 1 + matches * 258 + literals);
        assert!(page.len() > FAST_LIMIT + 8 * (FAST_INPUT - 1024));
        let bound = FAST_LIMIT + 8 * FAST_INPUT + 258 + 4096 + 296 + FAST_SLACK;
        assert!(page.len() <= bound && page.capacity() <= 2 * bound);
        // And the job's result is zlib-rs's.
        assert_same("literals past the limit", &stream);
    }

    #[test]
    fn headers() {
        let flags = |f| Flags(f);
        assert_eq!(header_len(flags(0), &[]), Ok(0));
        assert_eq!(header_len(flags(ZLIB_MODE), &[0x78, 0x9C, 0]), Ok(2));
        assert_eq!(
            header_len(flags(ZLIB_MODE), &[0x78, 0x9D]),
            Err(Status::ARCHIVE_HEADER_ERR)
        );
        assert_eq!(
            header_len(flags(ZLIB_MODE), &[0x78]),
            Err(Status::SRC_IS_SHORT_ERR)
        );
        let gzip = [0x1F, 0x8B, 8, 0x08, 0, 0, 0, 0, 0, 3, b'a', 0, 0xAA];
        assert_eq!(header_len(flags(GZIP_MODE), &gzip), Ok(12));
        assert_eq!(
            header_len(flags(GZIP_MODE), &gzip[..11]),
            Err(Status::SRC_IS_SHORT_ERR)
        );
        assert_eq!(
            header_len(flags(GZIP_MODE), &[0x1F, 0x8C, 8, 0, 0, 0, 0, 0, 0, 3]),
            Err(Status::ARCHIVE_HEADER_ERR)
        );
    }
}
