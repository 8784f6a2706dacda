//! The values section of a page (and the levels' CPU path): one function per encoding, each
//! appending to the caller's [`Values`] through the codecs of `qpl_fallback::parquet`.

use qpl_fallback::parquet::{
    bit_packed::BitPackedDecoder,
    byte_stream_split::{ByteStreamSplitDecoder, ByteStreamSplitFixedLenDecoder},
    delta_binary_packed::{DeltaBinaryPackedDecoder, DeltaInt},
    delta_byte_array::DeltaByteArrayDecoder,
    delta_length_byte_array::DeltaLengthByteArrayDecoder,
    dictionary::{self, DictionaryByteArrayDecoder, DictionaryDecoder},
    hybrid::{BooleanHybridDecoder, HybridDecoder, HybridPlace},
    plain::{self, PlainByteArrayDecoder, PlainFixedLenDecoder},
    ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, PhysicalType, ValueDecoder,
};

use super::{
    append_levels, codec_decides, decode_job, level_width, ChunkDecoder, Column, Encoding,
    PageError, PagePart, Values, LEVEL_BATCH,
};
use crate::{Path, Stream};

/// Appends `n` levels decoded on the CPU (the hybrid or the bit-packed codec) to `out`;
/// returns how many of them are `max_level` (counted batch by batch while the levels are in
/// L1, rather than in a second pass over `out`).
pub(super) fn decode_levels_on_cpu(
    decoder: &mut ChunkDecoder,
    part: PagePart,
    encoding: Encoding,
    bytes: &[u8],
    max_level: i16,
    n: usize,
    out: &mut Vec<i16>,
) -> Result<usize, PageError> {
    let width = level_width(max_level);
    let codec = |e| PageError::codec(part, encoding, e);
    if encoding == Encoding::Rle && width == 1 {
        // Levels of 0 and 1 (a nullable flat column's definition levels): expanded and
        // counted in one pass, no level can pass the maximum.
        let mut levels = HybridDecoder::new(bytes, 1, n).map_err(codec)?;
        return levels.append_width1_levels(n, out).map_err(codec);
    }
    let scratch = &mut decoder.scratch;
    scratch.resize(LEVEL_BATCH.min(n), 0);
    let start = out.len();
    out.reserve(n);
    let mut at_max = 0;
    match encoding {
        Encoding::Rle => {
            let mut levels = HybridDecoder::new(bytes, width, n).map_err(codec)?;
            while levels.remaining() > 0 {
                let got = levels.next_batch(scratch).map_err(codec)?;
                let at = out.len() - start;
                at_max += append_levels(part, encoding, &scratch[..got], at, max_level, out)?;
            }
        }
        Encoding::BitPacked => {
            let mut levels = BitPackedDecoder::new(bytes, width, n).map_err(codec)?;
            while levels.remaining() > 0 {
                let got = levels.next_batch(scratch).map_err(codec)?;
                let at = out.len() - start;
                at_max += append_levels(part, encoding, &scratch[..got], at, max_level, out)?;
            }
        }
        other => {
            return Err(PageError::unsupported(
                part,
                other,
                "levels are RLE or BIT_PACKED",
            ))
        }
    }
    Ok(at_max)
}

/// Bytes a value of `physical_type` takes in memory (byte arrays: their 4-byte offset).
fn value_size(physical_type: PhysicalType) -> u64 {
    match physical_type {
        PhysicalType::Boolean => 1,
        PhysicalType::Int32 | PhysicalType::Float | PhysicalType::ByteArray => 4,
        PhysicalType::Int64 | PhysicalType::Double => 8,
        PhysicalType::Int96 => 12,
        PhysicalType::FixedLenByteArray(len) => 4 + len as u64,
    }
}

/// Decodes the `n` non-null values of a data page's values section in `encoding`, appending
/// them to `out`; returns the path that decoded them when they are dictionary indices or RLE
/// booleans (the parts a path runs), `None` for the encodings only the CPU codecs decode.
pub(super) fn decode_values(
    decoder: &mut ChunkDecoder,
    encoding: Encoding,
    data: &[u8],
    n: usize,
    out: &mut Values,
) -> Result<Option<Path>, PageError> {
    let part = PagePart::Values;
    if n == 0 {
        return Ok(None);
    }
    let column = decoder.column;
    let limit = decoder.executor.config().max_output_bytes as u64;
    check_values_size(decoder, encoding, n)?;
    let codec = |e| PageError::codec(part, encoding, e);
    let unsupported = || {
        PageError::unsupported(
            part,
            encoding,
            format!(
                "{encoding} does not encode {} values",
                column.physical_type.name()
            ),
        )
    };
    match encoding {
        Encoding::Plain => {
            decode_plain(&column, part, encoding, data, n, out)?;
            Ok(None)
        }
        Encoding::Rle => {
            let Values::Boolean(out) = out else {
                return Err(unsupported());
            };
            decode_rle_booleans(decoder, data, n, out).map(Some)
        }
        Encoding::PlainDictionary | Encoding::RleDictionary => {
            decode_dictionary_indices(decoder, encoding, data, n, out).map(Some)
        }
        Encoding::DeltaBinaryPacked => {
            match out {
                Values::Int32(out) => drain_delta::<i32>(data, n, out),
                Values::Int64(out) => drain_delta::<i64>(data, n, out),
                _ => return Err(unsupported()),
            }
            .map_err(codec)?;
            Ok(None)
        }
        Encoding::DeltaLengthByteArray => {
            let (Values::Bytes(out), PhysicalType::ByteArray) = (out, column.physical_type) else {
                return Err(unsupported());
            };
            let values = DeltaLengthByteArrayDecoder::new(data, n).map_err(codec)?;
            drain_bytes(values, n, out, "DELTA_LENGTH_BYTE_ARRAY", None).map_err(codec)?;
            Ok(None)
        }
        Encoding::DeltaByteArray => {
            let Values::Bytes(out) = out else {
                return Err(unsupported());
            };
            // DELTA_BYTE_ARRAY stores every length, also of FIXED_LEN_BYTE_ARRAY values: the
            // codec checks each against the type's.
            let values = match column.physical_type {
                PhysicalType::FixedLenByteArray(len) => {
                    DeltaByteArrayDecoder::new_fixed_len(data, n, len)
                }
                _ => DeltaByteArrayDecoder::new(data, n),
            };
            drain_bytes(
                values.map_err(codec)?,
                n,
                out,
                "DELTA_BYTE_ARRAY",
                Some(Budget {
                    limit,
                    value_len: data.len(),
                }),
            )
            .map_err(codec)?;
            Ok(None)
        }
        Encoding::ByteStreamSplit => {
            match out {
                Values::Int32(out) => drain_split::<i32>(data, n, out),
                Values::Int64(out) => drain_split::<i64>(data, n, out),
                Values::Float(out) => drain_split::<f32>(data, n, out),
                Values::Double(out) => drain_split::<f64>(data, n, out),
                Values::Bytes(out) => match column.physical_type {
                    PhysicalType::FixedLenByteArray(len) => {
                        ByteStreamSplitFixedLenDecoder::new(data, len, n).and_then(|values| {
                            drain_bytes(values, n, out, "BYTE_STREAM_SPLIT", None)
                        })
                    }
                    _ => return Err(unsupported()),
                },
                _ => return Err(unsupported()),
            }
            .map_err(codec)?;
            Ok(None)
        }
        Encoding::BitPacked => Err(unsupported()),
    }
}

/// Refuses `n` values of the column's type whose memory would pass the executor's
/// `max_output_bytes`, before anything of their number is allocated.
pub(super) fn check_values_size(
    decoder: &ChunkDecoder,
    encoding: Encoding,
    n: usize,
) -> Result<(), PageError> {
    let column = decoder.column;
    let limit = decoder.executor.config().max_output_bytes as u64;
    let bytes = (n as u64).saturating_mul(value_size(column.physical_type));
    if bytes > limit {
        return Err(PageError::invalid(
            PagePart::Values,
            Some(encoding),
            format!(
                "{n} values of {} would take {bytes} bytes, above this executor's limit of \
                 {limit} (Config::max_output_bytes)",
                column.physical_type.name()
            ),
        ));
    }
    Ok(())
}

/// DELTA_BINARY_PACKED integers: the header's count is checked against `n` first.
fn drain_delta<T: DeltaInt>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<(), ParquetError> {
    drain(
        DeltaBinaryPackedDecoder::<T>::new(data, n)?,
        n,
        out,
        "DELTA_BINARY_PACKED",
    )
}

/// BYTE_STREAM_SPLIT values: the section's length must give exactly `n` of them.
fn drain_split<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<(), ParquetError> {
    drain(
        ByteStreamSplitDecoder::<T>::new(data, n)?,
        n,
        out,
        "BYTE_STREAM_SPLIT",
    )
}

/// Whether the `n` dictionary indices of `section` (its bit-width byte, then the hybrid
/// runs) are well formed: their run headers walked, bit-packed runs not unpacked.
fn indices_well_formed(section: &[u8], n: usize) -> bool {
    HybridDecoder::with_width_byte(section, n)
        .and_then(|mut indices| indices.skip(n))
        .is_ok()
}

/// Dictionary-encoded values: indices (a width byte, then the hybrid runs) through the
/// chunk's dictionary. On a job path the indices come from a `parquet_rle` extract and are
/// gathered here; on the CPU the codec decodes and gathers in one pass.
fn decode_dictionary_indices(
    decoder: &mut ChunkDecoder,
    encoding: Encoding,
    data: &[u8],
    n: usize,
    out: &mut Values,
) -> Result<Path, PageError> {
    let limit = decoder.executor.config().max_output_bytes as u64;
    let part = PagePart::Values;
    let codec = |e| PageError::codec(part, encoding, e);
    let Some(dict) = decoder.dictionary.as_ref() else {
        return Err(PageError::invalid(
            part,
            Some(encoding),
            "a dictionary-encoded data page, but the chunk had no dictionary page before it",
        ));
    };
    // QPL's parser keeps an RLE value wider than the stream's bit width as it is, so an
    // over-wide index that lands inside the dictionary would be read silently on a job path.
    // The codec refuses it (Corrupt); walking the run headers first (bit-packed runs are not
    // unpacked) gives every path the codec's verdict, at the cost of one pass over the headers.
    // (Walked only where a job would run: on the CPU path the codec itself decides.)
    if decoder.use_jobs && indices_well_formed(data, n) {
        match decode_job::<u32>(&decoder.executor, &Stream::parquet_rle(data), n as u32) {
            Ok((indices, output)) => {
                if let Values::Bytes(entries) = dict {
                    check_gather_bytes(entries, &indices, limit, encoding)?;
                }
                gather_into(dict, &indices, out).map_err(codec)?;
                return Ok(output.path);
            }
            // Data the job refused: the codec decides (see `codec_decides`).
            Err(e) if codec_decides(&e) => {}
            Err(e) => return Err(PageError::job(part, encoding, e)),
        }
    }
    match (dict, out) {
        (Values::Int32(d), Values::Int32(out)) => drain_dictionary(data, d, n, out),
        (Values::Int64(d), Values::Int64(out)) => drain_dictionary(data, d, n, out),
        (Values::Int96(d), Values::Int96(out)) => drain_dictionary(data, d, n, out),
        (Values::Float(d), Values::Float(out)) => drain_dictionary(data, d, n, out),
        (Values::Double(d), Values::Double(out)) => drain_dictionary(data, d, n, out),
        (Values::Bytes(d), Values::Bytes(out)) => DictionaryByteArrayDecoder::new(data, d, n)
            .and_then(|values| {
                // The page's room at once, at the dictionary's mean length (growing from
                // empty, a page of a list of strings copied its values again at each
                // doubling); at most 2^20 values ahead, so a count in a damaged page reserves
                // no more (`try_reserve`: a failed reservation is no error, they still grow).
                let mean = d.values.len() / d.len().max(1);
                let room = n.min(1 << 20);
                let _ = out.offsets.try_reserve(room);
                let _ = out.values.try_reserve((room * mean).min(limit as usize));
                drain_bytes(
                    values,
                    n,
                    out,
                    "RLE_DICTIONARY",
                    Some(Budget {
                        limit,
                        value_len: decoder.dictionary_max_len,
                    }),
                )
            }),
        _ => {
            return Err(PageError::unsupported(
                part,
                encoding,
                "the dictionary holds another type than the page's values",
            ))
        }
    }
    .map_err(codec)?;
    Ok(Path::Fallback)
}

/// The fused decode-and-gather of a dictionary page of fixed-size values.
fn drain_dictionary<T: FixedWidth>(
    data: &[u8],
    dictionary: &[T],
    n: usize,
    out: &mut Vec<T>,
) -> Result<(), ParquetError> {
    drain(
        DictionaryDecoder::new(data, dictionary, n)?,
        n,
        out,
        "RLE_DICTIONARY",
    )
}

/// Refuses a gather of byte arrays whose bytes would pass `limit` (indices past the dictionary
/// count nothing here; the gather reports them).
pub(super) fn check_gather_bytes(
    dictionary: &ByteArrays,
    indices: &[u32],
    limit: u64,
    encoding: Encoding,
) -> Result<(), PageError> {
    let total: u64 = indices
        .iter()
        .filter_map(|&i| {
            let i = i as usize;
            let end = *dictionary.offsets.get(i + 1)?;
            Some((end - dictionary.offsets[i]) as u64)
        })
        .sum();
    if total > limit {
        return Err(PageError::invalid(
            PagePart::Values,
            Some(encoding),
            format!(
                "the page's values would take {total} bytes, above this executor's limit of \
                 {limit} (Config::max_output_bytes)"
            ),
        ));
    }
    Ok(())
}

/// Appends `dictionary[index]` for each index to `out` (nothing on error).
pub(super) fn gather_into(
    dictionary: &Values,
    indices: &[u32],
    out: &mut Values,
) -> Result<(), ParquetError> {
    fn fixed<T: FixedWidth>(
        d: &[T],
        indices: &[u32],
        out: &mut Vec<T>,
    ) -> Result<(), ParquetError> {
        let start = out.len();
        out.resize(start + indices.len(), T::default());
        dictionary::gather(indices, d, &mut out[start..]).inspect_err(|_| out.truncate(start))
    }
    match (dictionary, out) {
        (Values::Int32(d), Values::Int32(out)) => fixed(d, indices, out),
        (Values::Int64(d), Values::Int64(out)) => fixed(d, indices, out),
        (Values::Int96(d), Values::Int96(out)) => fixed(d, indices, out),
        (Values::Float(d), Values::Float(out)) => fixed(d, indices, out),
        (Values::Double(d), Values::Double(out)) => fixed(d, indices, out),
        (Values::Bytes(d), Values::Bytes(out)) => {
            let (offsets, bytes) = (out.offsets.len(), out.values.len());
            dictionary::gather_byte_arrays(indices, d, out).inspect_err(|_| {
                out.offsets.truncate(offsets);
                out.values.truncate(bytes);
            })
        }
        _ => Err(ParquetError::invalid_argument(
            "RLE_DICTIONARY",
            "the dictionary holds another type than the page's values",
        )),
    }
}

/// Decodes `n` PLAIN values (a data page's values section or a dictionary page).
pub(super) fn decode_plain(
    column: &Column,
    part: PagePart,
    encoding: Encoding,
    data: &[u8],
    n: usize,
    out: &mut Values,
) -> Result<(), PageError> {
    let codec = |e| PageError::codec(part, encoding, e);
    match out {
        Values::Boolean(out) => plain::decode_booleans_append(data, n, out)
            .map(drop)
            .map_err(codec),
        Values::Int32(out) => drain_fixed::<i32>(data, n, out).map_err(codec),
        Values::Int64(out) => drain_fixed::<i64>(data, n, out).map_err(codec),
        Values::Int96(out) => drain_fixed(data, n, out).map_err(codec),
        Values::Float(out) => drain_fixed::<f32>(data, n, out).map_err(codec),
        Values::Double(out) => drain_fixed::<f64>(data, n, out).map_err(codec),
        Values::Bytes(out) => match column.physical_type {
            PhysicalType::FixedLenByteArray(len) => {
                reserve_plain_bytes(out, data.len(), n, 0);
                let decoder = PlainFixedLenDecoder::new(data, len, n).map_err(codec)?;
                drain_bytes(decoder, n, out, "PLAIN", None).map_err(codec)
            }
            _ => {
                reserve_plain_bytes(out, data.len(), n, 4);
                let decoder = PlainByteArrayDecoder::new(data, n).map_err(codec)?;
                drain_bytes(decoder, n, out, "PLAIN", None).map_err(codec)
            }
        },
    }
}

/// Room in an empty `out` for the `n` PLAIN byte arrays of a `len`-byte section, each after a
/// `prefix`-byte length: their bytes are at most the section's less the prefixes, so a
/// dictionary page's entries (the one kept for the whole chunk) take that and no more;
/// grown by doubling, they held up to twice their size. Where `out` already holds values
/// it grows as a `Vec` does.
fn reserve_plain_bytes(out: &mut ByteArrays, len: usize, n: usize, prefix: usize) {
    if out.values.is_empty() {
        out.values
            .reserve_exact(len.saturating_sub(n.saturating_mul(prefix)));
    }
    if out.offsets.len() <= 1 {
        // `n` is the header's; the section's bytes bound the room it gets.
        out.offsets.reserve_exact(n.min(len / prefix.max(1)) + 1);
    }
}

/// PLAIN fixed-width values: checked to be present, then one copy of their bytes (see
/// [`plain::decode_append`]).
fn drain_fixed<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<(), ParquetError> {
    plain::decode_append(data, n, out).map(drop)
}

/// Values a decoder writes per batch in [`drain`]: a scratch that stays in L1.
const DRAIN_BATCH: usize = 512;

/// Appends the `n` values of `decoder` to `out` (nothing on error): decoded [`DRAIN_BATCH`] at
/// a time into a scratch in L1, then copied to the end of `out`, so that `out`'s memory is
/// written once (growing it with a zero fill first wrote it twice, which costs most when the
/// page's values do not fit the caches).
fn drain<D: ValueDecoder>(
    mut decoder: D,
    n: usize,
    out: &mut Vec<D::Value>,
    encoding: &'static str,
) -> Result<(), ParquetError>
where
    D::Value: Copy + Default,
{
    let start = out.len();
    out.reserve(n);
    let mut scratch = [D::Value::default(); DRAIN_BATCH];
    let mut done = 0;
    while done < n {
        let want = (n - done).min(DRAIN_BATCH);
        match decoder.next_batch(&mut scratch[..want]) {
            Ok(0) => break,
            Ok(got) => {
                out.extend_from_slice(&scratch[..got]);
                done += got;
            }
            Err(e) => {
                out.truncate(start);
                return Err(e);
            }
        }
    }
    if done < n {
        out.truncate(start);
        return Err(ParquetError::truncated(
            encoding,
            format!("the values section ends after {done} of the page's {n} values"),
        ));
    }
    Ok(())
}

/// A bound on the bytes one page's byte arrays may take, for encodings whose output can
/// outgrow their input (DELTA_BYTE_ARRAY's prefixes, dictionary entries repeated): the
/// executor's `max_output_bytes`, and the longest a value can be.
#[derive(Clone, Copy, Debug)]
struct Budget {
    limit: u64,
    value_len: usize,
}

/// Byte arrays decoded per batch when no budget narrows it.
const BYTES_BATCH: usize = 4096;

/// Appends the `n` byte arrays of `decoder` to `out` (nothing on error). With a `budget`, in
/// batches small enough that the page's bytes cannot pass the limit by more than one value:
/// past it is [`ErrorKind::TooMany`](qpl_fallback::parquet::ErrorKind::TooMany), before the
/// memory is taken.
fn drain_bytes<D: ByteArrayDecoder>(
    mut decoder: D,
    n: usize,
    out: &mut ByteArrays,
    encoding: &'static str,
    budget: Option<Budget>,
) -> Result<(), ParquetError> {
    let (offsets, bytes) = (out.offsets.len(), out.values.len());
    let mut done = 0;
    let result = loop {
        let used = (out.values.len() - bytes) as u64;
        let batch = match budget {
            Some(Budget { limit, .. }) if used > limit => {
                break Err(ParquetError::new(
                    encoding,
                    qpl_fallback::parquet::ErrorKind::TooMany,
                    format!(
                        "the page's first {done} values take {used} bytes, above this \
                         executor's limit of {limit} (Config::max_output_bytes)"
                    ),
                ));
            }
            Some(Budget { limit, value_len }) => {
                ((limit - used) / value_len.max(1) as u64).clamp(1, BYTES_BATCH as u64) as usize
            }
            None => n,
        };
        if done == n {
            break Ok(());
        }
        match decoder.next_batch(out, (n - done).min(batch)) {
            Ok(0) => {
                break Err(ParquetError::truncated(
                    encoding,
                    format!("the values section ends after {done} of the page's {n} values"),
                ))
            }
            Ok(got) => done += got,
            Err(e) => break Err(e),
        }
    };
    if result.is_err() {
        out.offsets.truncate(offsets);
        out.values.truncate(bytes);
    }
    result
}

/// RLE booleans: a 4-byte length, then a hybrid stream of width 1 (in v1 and v2 pages).
fn decode_rle_booleans(
    decoder: &mut ChunkDecoder,
    data: &[u8],
    n: usize,
    out: &mut Vec<bool>,
) -> Result<Path, PageError> {
    let (part, encoding) = (PagePart::Values, Encoding::Rle);
    let codec = |e| PageError::codec(part, encoding, e);
    if decoder.use_jobs {
        let Some((prefix, rest)) = data.split_first_chunk::<4>() else {
            return Err(PageError::invalid(
                part,
                Some(encoding),
                format!(
                    "the 4-byte length is missing: the values section has {} bytes",
                    data.len()
                ),
            ));
        };
        let len = u32::from_le_bytes(*prefix) as usize;
        let Some(body) = rest.get(..len) else {
            return Err(PageError::invalid(
                part,
                Some(encoding),
                format!(
                    "the length prefix says {len} bytes, but {} follow",
                    rest.len()
                ),
            ));
        };
        decoder.stream.clear();
        decoder.stream.push(1);
        decoder.stream.extend_from_slice(body);
        match decode_job::<u8>(
            &decoder.executor,
            &Stream::parquet_rle(&decoder.stream),
            n as u32,
        ) {
            Ok((bits, output)) => {
                out.extend(bits.iter().map(|&b| b != 0));
                return Ok(output.path);
            }
            Err(e) if codec_decides(&e) => {}
            Err(e) => return Err(PageError::job(part, encoding, e)),
        }
    }
    let (booleans, _) = BooleanHybridDecoder::new(data, n).map_err(codec)?;
    drain(booleans, n, out, "RLE").map_err(codec)?;
    Ok(Path::Fallback)
}

impl ChunkDecoder {
    /// Decodes the `n` indices of a dictionary-encoded data page's values section (its
    /// bit-width byte, then the hybrid runs; `encoding` is PLAIN_DICTIONARY or RLE_DICTIONARY)
    /// into `out` (replacing what it held; empty after an error), on this decoder's path as
    /// [`ChunkDecoder::decode_page`] decodes indices: a job where jobs run, the codec on the
    /// CPU path or where a job refuses the stream. The indices are not looked up: a reader that
    /// gathers through a dictionary of its own (Arrow views) checks them. Returns the path that
    /// decoded them.
    pub fn decode_dictionary_indices_only(
        &mut self,
        encoding: Encoding,
        section: &[u8],
        n: usize,
        out: &mut Vec<u32>,
    ) -> Result<Path, PageError> {
        let part = PagePart::Values;
        let codec = |e| PageError::codec(part, encoding, e);
        if !encoding.is_dictionary() {
            out.clear();
            return Err(PageError::unsupported(
                part,
                encoding,
                "dictionary indices are PLAIN_DICTIONARY or RLE_DICTIONARY",
            ));
        }
        if n == 0 {
            out.clear();
            return Ok(Path::Fallback);
        }
        let limit = self.executor.config().max_output_bytes as u64;
        let bytes = (n as u64).saturating_mul(4);
        if bytes > limit {
            out.clear();
            return Err(PageError::invalid(
                part,
                Some(encoding),
                format!(
                    "{n} dictionary indices would take {bytes} bytes, above this executor's \
                     limit of {limit} (Config::max_output_bytes)"
                ),
            ));
        }
        // As in `decode_dictionary_indices`: the run headers are walked first, so that an
        // over-wide RLE value (which QPL's parser keeps) is the codec's error on every path.
        // (Walked only where a job would run: on the CPU path the codec itself decides.)
        if self.use_jobs && indices_well_formed(section, n) {
            match decode_job::<u32>(&self.executor, &Stream::parquet_rle(section), n as u32) {
                Ok((indices, output)) => {
                    *out = indices;
                    return Ok(output.path);
                }
                // Data the job refused: the codec decides (see `codec_decides`).
                Err(e) if codec_decides(&e) => {}
                Err(e) => {
                    out.clear();
                    return Err(PageError::job(part, encoding, e));
                }
            }
        }
        let mut indices = HybridDecoder::with_width_byte(section, n).map_err(|e| {
            out.clear();
            codec(e)
        })?;
        next_indices(&mut indices, encoding, 0, n, out)?;
        Ok(Path::Fallback)
    }
}

/// Decodes the next `count` dictionary indices of `indices` into `out`, replacing what it held
/// (empty after an error, and where the stream holds fewer).
fn next_indices(
    indices: &mut HybridDecoder,
    encoding: Encoding,
    keep: usize,
    count: usize,
    out: &mut Vec<u32>,
) -> Result<(), PageError> {
    let codec = |e| PageError::codec(PagePart::Values, encoding, e);
    let start = indices.position();
    // Every index is written: the buffer of the last page or piece is reused, not zeroed
    // first.
    let end = keep + count;
    if out.len() < end {
        out.resize(end, 0);
    }
    out.truncate(end);
    let got = indices.next_batch(&mut out[keep..]).map_err(|e| {
        out.clear();
        codec(e)
    })?;
    if got < count {
        out.clear();
        return Err(codec(ParquetError::truncated(
            "RLE_DICTIONARY",
            format!(
                "the values section ends after {} of the page's {} indices",
                start + got,
                start + count
            ),
        )));
    }
    Ok(())
}

/// A dictionary-encoded page's indices decoded a batch at a time on the CPU path
/// ([`ChunkDecoder::dictionary_index_stream`]): the caller keeps the page and hands its values
/// section to each [`IndexStream::next`], so that only a batch's indices are held at once.
#[derive(Clone, Debug)]
pub struct IndexStream {
    place: HybridPlace,
    encoding: Encoding,
}

impl ChunkDecoder {
    /// The `n` indices of a dictionary-encoded data page's values section (its bit-width
    /// byte, then the hybrid runs), to be decoded a batch at a time where this decoder decodes
    /// on the CPU; `None` where a QPL job decodes them (a job takes a whole page: use
    /// [`ChunkDecoder::decode_dictionary_indices_only`]). The width byte is checked now; the
    /// runs as they are decoded.
    pub fn dictionary_index_stream(
        &self,
        encoding: Encoding,
        section: &[u8],
        n: usize,
    ) -> Result<Option<IndexStream>, PageError> {
        if self.use_jobs {
            return Ok(None);
        }
        let part = PagePart::Values;
        if !encoding.is_dictionary() {
            return Err(PageError::unsupported(
                part,
                encoding,
                "dictionary indices are PLAIN_DICTIONARY or RLE_DICTIONARY",
            ));
        }
        let decoder = HybridDecoder::with_width_byte(section, n)
            .map_err(|e| PageError::codec(part, encoding, e))?;
        Ok(Some(IndexStream {
            place: decoder.place(),
            encoding,
        }))
    }
}

impl IndexStream {
    /// Decodes the next `count` indices of the page whose values section is `section` (the
    /// one the stream was made for) into `out`, replacing what it held (empty after an
    /// error).
    pub fn next(
        &mut self,
        section: &[u8],
        count: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), PageError> {
        self.next_after(section, 0, count, out)
    }

    /// [`IndexStream::next`], after `out`'s first `keep` indices (which it holds): they are
    /// kept, the `count` decoded now follow them.
    pub fn next_after(
        &mut self,
        section: &[u8],
        keep: usize,
        count: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), PageError> {
        // The runs follow the width byte (checked when the stream was made).
        let runs = section.get(1..).unwrap_or(&[]);
        let mut indices = HybridDecoder::resume(runs, &self.place).map_err(|e| {
            out.clear();
            PageError::codec(PagePart::Values, self.encoding, e)
        })?;
        next_indices(&mut indices, self.encoding, keep, count, out)?;
        self.place = indices.place();
        Ok(())
    }

    /// Takes the next `count` indices where they are all one RLE run's: that index (not yet
    /// checked against the dictionary); `None`, and nothing taken, where they are not
    /// ([`HybridDecoder::take_repeated`]). `section` as for [`IndexStream::next`].
    pub fn next_repeated(
        &mut self,
        section: &[u8],
        count: usize,
    ) -> Result<Option<u32>, PageError> {
        // Inside the open run: taken from the place, the stream not resumed.
        if let Some(index) = self.place.take_open_rle(count) {
            return Ok(Some(index));
        }
        self.resumed(section, |indices| indices.take_repeated(count))
    }

    /// How many indices the RLE run holding the next one has left; `None` where that run is
    /// bit-packed or none is left ([`HybridDecoder::rle_left`]). Nothing is taken.
    pub fn rle_left(&mut self, section: &[u8]) -> Result<Option<usize>, PageError> {
        // Known without the stream unless the open run is used up (then the next is opened).
        if let Some(known) = self.place.open_rle_left() {
            return Ok(known);
        }
        self.resumed(section, |indices| indices.rle_left())
    }

    /// `step` on the stream's decoder resumed at its place (`section` as for
    /// [`IndexStream::next`]), the place kept after it.
    fn resumed<T>(
        &mut self,
        section: &[u8],
        step: impl FnOnce(&mut HybridDecoder<'_>) -> Result<T, ParquetError>,
    ) -> Result<T, PageError> {
        let codec = |e| PageError::codec(PagePart::Values, self.encoding, e);
        // The runs follow the width byte (checked when the stream was made).
        let runs = section.get(1..).unwrap_or(&[]);
        let mut indices = HybridDecoder::resume(runs, &self.place).map_err(codec)?;
        let done = step(&mut indices).map_err(codec)?;
        self.place = indices.place();
        Ok(done)
    }
}

/// A data page's repetition or definition levels (RLE) decoded a piece at a time on the CPU
/// path ([`ChunkDecoder::list_page_streams`]): the caller keeps the page and hands the levels'
/// bytes to each [`LevelStream::next`], so that only a piece's levels are held at once.
#[derive(Clone, Debug)]
pub struct LevelStream {
    place: HybridPlace,
    part: PagePart,
    max_level: i16,
    /// Levels decoded so far, and the page's.
    decoded: usize,
    levels: usize,
}

impl LevelStream {
    /// The `n` levels of at most `max_level` in `bytes` (RLE, without a length prefix).
    pub(super) fn new(
        part: PagePart,
        bytes: &[u8],
        max_level: i16,
        n: usize,
    ) -> Result<LevelStream, PageError> {
        let decoder = HybridDecoder::new(bytes, level_width(max_level), n)
            .map_err(|e| PageError::codec(part, Encoding::Rle, e))?;
        Ok(LevelStream {
            place: decoder.place(),
            part,
            max_level,
            decoded: 0,
            levels: n,
        })
    }

    /// Levels not decoded yet.
    pub fn remaining(&self) -> usize {
        self.levels - self.decoded
    }

    /// Appends the next `count` levels (fewer where fewer are left) of the page whose levels
    /// are `bytes` (the ones the stream was made for) to `out`, each checked against the
    /// column's maximum; `scratch` is a buffer to reuse. Returns how many were appended.
    pub fn next(
        &mut self,
        bytes: &[u8],
        count: usize,
        scratch: &mut Vec<u32>,
        out: &mut Vec<i16>,
    ) -> Result<usize, PageError> {
        let codec = |e| PageError::codec(self.part, Encoding::Rle, e);
        let mut levels = HybridDecoder::resume(bytes, &self.place).map_err(codec)?;
        let count = count.min(self.remaining());
        scratch.resize(count, 0);
        let got = levels.next_batch(scratch).map_err(codec)?;
        if got < count {
            return Err(codec(ParquetError::truncated(
                "RLE",
                format!(
                    "the levels end after {} of the page's {}",
                    self.decoded + got,
                    self.levels
                ),
            )));
        }
        let (part, first, max) = (self.part, self.decoded, self.max_level);
        append_levels(part, Encoding::Rle, &scratch[..got], first, max, out)?;
        self.place = levels.place();
        self.decoded += got;
        Ok(got)
    }
}
