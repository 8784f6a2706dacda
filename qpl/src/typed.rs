//! Decoding into a caller's slice of any integer type: [`Executor::decode_into`].
//!
//! (The rules are on [`Executor::decode_into`].)

use std::cell::RefCell;

use qpl_fallback::{Flags, Job, Operation, OutBitWidth, Parser, Status};

use crate::api::Stream;
use crate::error::{Error, Stage};
use crate::executor::{Executor, Output};
use crate::path::Path;

/// Integer types [`Executor::decode_into`] writes. Sealed: the eight primitive integers of 8 to
/// 64 bits.
pub trait Integer: Copy + Default + sealed::Sealed {
    /// The job's output format (the unsigned type of the same size; `u32` for 64-bit types).
    #[doc(hidden)]
    const OUT_BIT_WIDTH: OutBitWidth;
    /// The largest decoded value this type holds.
    #[doc(hidden)]
    const MAX_VALUE: u32;
    /// The type's name, for error messages.
    #[doc(hidden)]
    const NAME: &'static str;
    /// `value` as this type (it is at most `MAX_VALUE`).
    #[doc(hidden)]
    fn from_u32(value: u32) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! integer {
    ($($t:ty => $out:ident, $max:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Integer for $t {
            const OUT_BIT_WIDTH: OutBitWidth = OutBitWidth::$out;
            const MAX_VALUE: u32 = $max;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn from_u32(value: u32) -> $t {
                // Lossless: `value` is at most MAX_VALUE, which the type holds.
                value as $t
            }
        }
    )*};
}

integer! {
    u8 => W8, u8::MAX as u32;
    u16 => W16, u16::MAX as u32;
    u32 => W32, u32::MAX;
    u64 => W32, u32::MAX;
    i8 => W8, i8::MAX as u32;
    i16 => W16, i16::MAX as u32;
    i32 => W32, i32::MAX as u32;
    i64 => W32, u32::MAX;
}

thread_local! {
    /// The bytes jobs of [`Executor::decode_into`] write on this thread, reused by every call.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Bytes per element of an output format.
fn element_bytes(out: OutBitWidth) -> usize {
    match out {
        OutBitWidth::W8 => 1,
        OutBitWidth::W16 => 2,
        _ => 4,
    }
}

impl Executor {
    /// Decodes the first `out.len()` values of `stream` into `out`, without allocating.
    ///
    /// - **Types.** `u8`, `u16`, `u32`, `u64` and `i8`, `i16`, `i32`, `i64` ([`Integer`], sealed).
    ///   The job writes the unsigned type of the same size (`u64`/`i64` are written as `u32` and
    ///   widened). As for QPL's own output formats, the type must be at least as wide as the
    ///   stream's bit width (`u8` from a 9-bit stream is 72 `OUT_FORMAT_ERR`, whatever the
    ///   values). Signed types take the values as they are, not as two's complement of the bit
    ///   width (the streams hold unsigned values: dictionary ids, levels): a value above `T::MAX`
    ///   (e.g. 200 into `i8`) is 72 `OUT_FORMAT_ERR` too, naming the first such value and its
    ///   index; `out` then holds the values converted so far and is otherwise unspecified.
    /// - **No allocation per call.** The job writes into a byte buffer kept per thread and reused
    ///   (it grows to the largest output the thread has decoded, and is never shrunk), then the
    ///   values are converted into `out` in one pass. `out` is the caller's and is only written.
    /// - **Empty requests.** `out` of length 0 decodes to nothing on every path (so do the other
    ///   high-level calls, [`Executor::decode`], [`Executor::scan`], [`Executor::scan_indices`],
    ///   [`Executor::select`], [`Executor::expand`] and their `_bitmap` forms, for `n = 0`; the raw
    ///   [`Executor::run`] keeps QPL's 57 `SIZE_ERR` for `num_input_elements = 0`); only the
    ///   bit width is checked (packed: 0..=32, Parquet: the width byte, if present, 0..=32).
    /// - **Width 0.** A packed stream of bit width 0 holds only zeros and needs no bytes, as a
    ///   Parquet stream of width 0 does (see "Width 0" in `docs/semantics.md`): it decodes to zeros on
    ///   the requested path (the job runs over a 1-bit stream of zeros in its place). The other
    ///   high-level calls take it the same way: scans compare 0 with their comparison, `select`
    ///   gives a 0 per selected element, `expand` zeros.
    ///
    /// ```
    /// use qpl_rs::{Executor, Path, Stream};
    ///
    /// let encoded = qpl_rs::encode_parquet_rle(&[7, 0, 3, 7], 3).unwrap();
    /// let executor = Executor::new(Path::Auto);
    /// let mut values = [0i64; 4];
    /// executor.decode_into(&Stream::parquet_rle(&encoded), &mut values).unwrap();
    /// assert_eq!(values, [7, 0, 3, 7]);
    /// // The same buffer again, for the next page: nothing is allocated.
    /// executor.decode_into(&Stream::parquet_rle(&encoded), &mut values[..2]).unwrap();
    /// ```
    pub fn decode_into<T: Integer>(
        &self,
        stream: &Stream<'_>,
        out: &mut [T],
    ) -> Result<Output, Error> {
        let requested = self.config().path;
        let operation = Operation::Extract;
        let checked = |status, message: String| Error {
            operation,
            status,
            requested,
            path: Path::Fallback,
            stage: Stage::Check,
            message,
        };
        let n = u32::try_from(out.len()).map_err(|_| {
            checked(
                Status::BUFFER_TOO_LARGE_ERR,
                format!(
                    "{} values asked for; a job holds at most {}",
                    out.len(),
                    u32::MAX
                ),
            )
        })?;
        if n == 0 {
            return empty_output(self, stream, operation);
        }
        let zero_width = is_zero_width_packed(stream);
        if !zero_width {
            stream.check_holds(requested, operation, n)?;
        }
        let size = element_bytes(T::OUT_BIT_WIDTH);
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let zeros_len = if zero_width { out.len().div_ceil(8) } else { 0 };
            let needed = zeros_len + out.len() * size;
            if scratch.len() < needed {
                scratch.resize(needed, 0);
            }
            let (zeros, dst) = scratch[..needed].split_at_mut(zeros_len);
            let (parser, bit_width, src1): (Parser, u32, &[u8]) = if zero_width {
                // A 1-bit stream of zeros in the place of the 0-bit one (which holds nothing).
                zeros.fill(0);
                (Parser::LE_PACKED, 1, zeros)
            } else {
                (stream.parser, stream.bit_width, stream.bytes)
            };
            let job = Job {
                parser,
                src1_bit_width: bit_width,
                num_input_elements: n,
                param_low: 0,
                param_high: n - 1,
                out_bit_width: T::OUT_BIT_WIDTH,
                // Values, also for 1-bit streams (whose widened output would be an index list).
                flags: Flags::OMIT_CHECKSUMS | Flags::FORCE_ARRAY_OUTPUT,
                ..Job::new(operation)
            };
            let output = self.run(&job, src1, None, dst)?;
            let written = (output.completion.total_out as usize).min(dst.len());
            let widest = match size {
                1 => convert::<T, 1>(&dst[..written], out),
                2 => convert::<T, 2>(&dst[..written], out),
                _ => convert::<T, 4>(&dst[..written], out),
            };
            if widest > T::MAX_VALUE {
                let (index, value) = first_above(&dst[..written], size, T::MAX_VALUE);
                return Err(Error {
                    operation,
                    status: Status::OUT_FORMAT_ERR,
                    requested,
                    path: output.path,
                    stage: Stage::Run,
                    message: format!(
                        "value {value} at index {index} does not fit {} (at most {})",
                        T::NAME,
                        T::MAX_VALUE
                    ),
                });
            }
            Ok(output)
        })
    }
}

/// The answer to an empty request (`n = 0`) of the high-level calls: nothing, with a zero
/// [`Completion`](crate::Completion) and the path the request was routed to. Only the bit width
/// is checked (packed: 0..=32; Parquet: the width byte, if there is one, 0..=32: an empty page
/// may have an empty values section).
pub(crate) fn empty_output(
    executor: &Executor,
    stream: &Stream<'_>,
    operation: Operation,
) -> Result<Output, Error> {
    let width = if stream.parser == Parser::PARQUET_RLE {
        stream.bytes.first().map(|&w| u32::from(w))
    } else {
        Some(stream.bit_width)
    };
    if width.is_some_and(|w| w > 32) {
        let requested = executor.config().path;
        return Err(Error::from_status(
            operation,
            requested,
            Path::Fallback,
            Stage::Check,
            Status::BIT_WIDTH_ERR,
        ));
    }
    let route = executor.route(operation)?;
    Ok(Output {
        completion: Default::default(),
        path: route.path(),
    })
}

/// Whether `stream` is packed with bit width 0: it holds only zeros and needs no bytes, and the
/// high-level calls run its jobs over a 1-bit stream of zeros instead (QPL refuses width 0).
pub(crate) fn is_zero_width_packed(stream: &Stream<'_>) -> bool {
    stream.parser != Parser::PARQUET_RLE && stream.bit_width == 0
}

/// Converts the little-endian `K`-byte values of `src` into `out`; returns the bitwise OR of
/// the values, which is above `T::MAX_VALUE` (a power of two minus one) exactly when a value
/// is.
fn convert<T: Integer, const K: usize>(src: &[u8], out: &mut [T]) -> u32 {
    let mut widest = 0u32;
    for (slot, bytes) in out.iter_mut().zip(src.chunks_exact(K)) {
        let mut word = [0u8; 4];
        word[..K].copy_from_slice(bytes);
        let value = u32::from_le_bytes(word);
        widest |= value;
        *slot = T::from_u32(value);
    }
    widest
}

/// The index and value of the first value of `src` (little endian, `size` bytes each) above
/// `max`; only called when there is one.
fn first_above(src: &[u8], size: usize, max: u32) -> (usize, u32) {
    src.chunks_exact(size)
        .map(|bytes| {
            let mut word = [0u8; 4];
            word[..size].copy_from_slice(bytes);
            u32::from_le_bytes(word)
        })
        .enumerate()
        .find(|&(_, value)| value > max)
        .unwrap_or((0, 0))
}

/// [`Executor::decode_into`] on `path` with default settings.
pub fn decode_into<T: Integer>(
    path: Path,
    stream: &Stream<'_>,
    out: &mut [T],
) -> Result<Output, Error> {
    Executor::new(path).decode_into(stream, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode;
    use crate::path::QPL_LINKED;
    use qpl_fallback::{encode_parquet_rle, pack_be, pack_le};

    /// Every path that can run here.
    fn paths() -> Vec<Path> {
        Path::available()
    }

    fn values(n: usize, width: u32, seed: u32) -> Vec<u32> {
        let mask = if width == 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed) & mask)
            .collect()
    }

    /// `values` of `width` bits in each kind of stream.
    fn streams(values: &[u32], width: u32) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("le", pack_le(values, width).unwrap()),
            ("be", pack_be(values, width).unwrap()),
            ("parquet", encode_parquet_rle(values, width).unwrap()),
        ]
    }

    fn stream<'a>(kind: &str, bytes: &'a [u8], width: u32) -> Stream<'a> {
        match kind {
            "le" => Stream::le_packed(bytes, width),
            "be" => Stream::be_packed(bytes, width),
            _ => Stream::parquet_rle(bytes),
        }
    }

    fn check_type<T: Integer + TryFrom<u32> + PartialEq + std::fmt::Debug>(width: u32)
    where
        <T as TryFrom<u32>>::Error: std::fmt::Debug,
    {
        let vals = values(1000, width, 5);
        for (kind, bytes) in streams(&vals, width) {
            let stream = stream(kind, &bytes, width);
            for path in paths() {
                let mut out = vec![T::default(); vals.len()];
                let result = decode_into(path, &stream, &mut out);
                let fits_width = element_bytes(T::OUT_BIT_WIDTH) * 8 >= width as usize;
                let max = vals.iter().copied().max().unwrap();
                if !fits_width {
                    let err = result.unwrap_err();
                    assert_eq!(err.status, Status::OUT_FORMAT_ERR, "{kind} {path}");
                } else if max > T::MAX_VALUE {
                    let err = result.unwrap_err();
                    assert_eq!(err.status, Status::OUT_FORMAT_ERR, "{kind} {path}");
                    let index = vals.iter().position(|&v| v > T::MAX_VALUE).unwrap();
                    assert!(err.message.contains(&format!("at index {index} ")), "{err}");
                } else {
                    let output = result.unwrap();
                    assert_ne!(output.path, Path::Auto);
                    let expected: Vec<T> = vals.iter().map(|&v| T::try_from(v).unwrap()).collect();
                    assert_eq!(out, expected, "{} {kind} w{width} {path}", T::NAME);
                }
            }
        }
    }

    #[test]
    fn every_type_decodes_what_it_holds_and_refuses_what_it_does_not() {
        for width in [1, 3, 7, 8, 9, 15, 16, 17, 31, 32] {
            check_type::<u8>(width);
            check_type::<u16>(width);
            check_type::<u32>(width);
            check_type::<u64>(width);
            check_type::<i8>(width);
            check_type::<i16>(width);
            check_type::<i32>(width);
            check_type::<i64>(width);
        }
    }

    #[test]
    fn signed_types_take_small_values_of_a_full_width_stream() {
        // 8-bit stream, values below 128: i8 holds them all.
        let vals: Vec<u32> = (0..300).map(|i| i % 128).collect();
        let bytes = pack_le(&vals, 8).unwrap();
        for path in paths() {
            let mut out = [0i8; 300];
            decode_into(path, &Stream::le_packed(&bytes, 8), &mut out).unwrap();
            assert!(
                out.iter().zip(&vals).all(|(&o, &v)| o as u32 == v),
                "{path}"
            );
        }
    }

    #[test]
    fn a_reused_buffer_is_overwritten_and_a_prefix_leaves_the_rest() {
        let vals = values(64, 5, 9);
        let bytes = encode_parquet_rle(&vals, 5).unwrap();
        let executor = Executor::new(Path::Auto);
        let mut out = [u16::MAX; 80];
        executor
            .decode_into(&Stream::parquet_rle(&bytes), &mut out[..64])
            .unwrap();
        assert!(out[..64]
            .iter()
            .zip(&vals)
            .all(|(&o, &v)| u32::from(o) == v));
        assert!(out[64..].iter().all(|&o| o == u16::MAX), "past the request");
        executor
            .decode_into(&Stream::parquet_rle(&bytes), &mut out[..10])
            .unwrap();
        assert!(out[..10]
            .iter()
            .zip(&vals)
            .all(|(&o, &v)| u32::from(o) == v));
    }

    #[test]
    fn empty_requests_decode_to_nothing_on_every_path_but_a_raw_job_keeps_57() {
        let bytes = pack_le(&[1, 2, 3], 4).unwrap();
        let parquet = encode_parquet_rle(&[1, 2, 3], 4).unwrap();
        for path in paths() {
            for s in [
                Stream::le_packed(&bytes, 4),
                Stream::be_packed(&[], 4),
                Stream::le_packed(&[], 0),
                Stream::parquet_rle(&parquet),
                Stream::parquet_rle(&[]),
            ] {
                let output = decode_into::<u32>(path, &s, &mut []).unwrap();
                assert_eq!(output.completion.total_out, 0);
                assert_ne!(output.path, Path::Auto);
            }
            let err = decode_into::<u8>(path, &Stream::le_packed(&[], 33), &mut []).unwrap_err();
            assert_eq!(err.status, Status::BIT_WIDTH_ERR, "{path}");
            let err = decode_into::<u8>(path, &Stream::parquet_rle(&[40]), &mut []).unwrap_err();
            assert_eq!(err.status, Status::BIT_WIDTH_ERR, "{path}");
            let job = Job {
                src1_bit_width: 4,
                num_input_elements: 0,
                ..Job::new(Operation::Extract)
            };
            let err = Executor::new(path)
                .run(&job, &bytes, None, &mut [0u8; 4])
                .unwrap_err();
            assert_eq!(err.status, Status::SIZE_ERR, "{path}");
        }
    }

    #[test]
    fn width_zero_packed_streams_are_zeros_like_parquet_width_zero() {
        // Width byte 0, one RLE run of 100 (header 200 as ULEB128), no value bytes.
        let parquet = [0, 0xC8, 0x01];
        for path in paths() {
            for s in [
                Stream::le_packed(&[], 0),
                Stream::be_packed(&[0xFF], 0),
                Stream::parquet_rle(&parquet),
            ] {
                let mut out = [7i16; 100];
                let output = decode_into(path, &s, &mut out).unwrap();
                assert_eq!(out, [0; 100], "{s:?} {path}");
                assert_eq!(output.completion.total_out, 200);
                assert_ne!(output.path, Path::Auto);
            }
        }
        // A width-0 Parquet stream is checked: one claiming too few values is short.
        let short = [0, 20];
        let err = decode_into::<u8>(Path::Fallback, &Stream::parquet_rle(&short), &mut [0; 11])
            .unwrap_err();
        assert_eq!(err.status, Status::SRC_IS_SHORT_ERR);
    }

    #[test]
    fn the_vec_decode_also_takes_empty_requests_and_width_zero() {
        for path in paths() {
            let (values, output) = decode::<u16>(path, &Stream::parquet_rle(&[]), 0).unwrap();
            assert!(values.is_empty());
            assert_ne!(output.path, Path::Auto);
            let (values, output) = decode::<u8>(path, &Stream::be_packed(&[], 0), 21).unwrap();
            assert_eq!(
                (values, output.completion.total_out),
                (vec![0; 21], 21),
                "{path}"
            );
        }
    }

    #[test]
    fn decode_into_agrees_with_decode() {
        let vals = values(777, 12, 3);
        let bytes = encode_parquet_rle(&vals, 12).unwrap();
        let s = Stream::parquet_rle(&bytes);
        for path in paths() {
            let (expected, _) = decode::<u16>(path, &s, 777).unwrap();
            let mut out = vec![0u16; 777];
            decode_into(path, &s, &mut out).unwrap();
            assert_eq!(out, expected, "{path}");
        }
        assert!(!QPL_LINKED || paths().contains(&Path::Software));
    }

    #[test]
    fn a_short_stream_names_the_requested_path_and_the_check() {
        let bytes = pack_le(&[1, 2, 3], 8).unwrap();
        for path in [Path::Hardware, Path::Software, Path::Fallback, Path::Auto] {
            let err =
                decode_into::<u8>(path, &Stream::le_packed(&bytes, 8), &mut [0; 4]).unwrap_err();
            assert_eq!(
                (err.status, err.requested, err.stage),
                (Status::SRC_IS_SHORT_ERR, path, Stage::Check)
            );
            let text = err.to_string();
            assert!(
                text.starts_with(&format!(
                    "extract (asked for the {path} path, checked on the CPU before any path \
                     ran) failed with 232 SRC_IS_SHORT_ERR: "
                )),
                "{text}"
            );
            assert!(text.contains("; pass the whole stream"), "{text}");
        }
    }
}
