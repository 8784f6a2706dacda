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
pub(crate) fn with_inflated_source<T>(
    job: &Job,
    src1: &[u8],
    limit: usize,
    enough: impl FnMut(&[u8]) -> bool,
    then: impl FnOnce(Inflated<'_>) -> Result<T, Status>,
) -> Result<T, Status> {
    let start = header_len(job.flags, src1)?;
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
        enough,
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
    mut enough: impl FnMut(&[u8]) -> bool,
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
