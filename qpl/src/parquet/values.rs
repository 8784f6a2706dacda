//! The values section of a page (and the levels' CPU path): one function per encoding, each
//! appending to the caller's [`Values`] through the codecs of `qpl_fallback::parquet`.

use qpl_fallback::parquet::{
    hybrid::{BooleanHybridDecoder, HybridDecoder},
    plain::{PlainBooleanDecoder, PlainByteArrayDecoder, PlainDecoder, PlainFixedLenDecoder},
    ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, PhysicalType, ValueDecoder,
};

use super::{
    append_levels, level_width, ChunkDecoder, Column, Encoding, PageError, PagePart, Values,
    LEVEL_BATCH,
};
use crate::{Path, Status, Stream};

/// Appends `n` levels decoded on the CPU (the hybrid or the bit-packed codec) to `out`.
pub(super) fn decode_levels_on_cpu(
    decoder: &mut ChunkDecoder,
    part: PagePart,
    encoding: Encoding,
    bytes: &[u8],
    max_level: i16,
    n: usize,
    out: &mut Vec<i16>,
) -> Result<(), PageError> {
    let width = level_width(max_level);
    let codec = |e| PageError::codec(part, encoding, e);
    let scratch = &mut decoder.scratch;
    scratch.resize(LEVEL_BATCH.min(n), 0);
    let start = out.len();
    out.reserve(n);
    match encoding {
        Encoding::Rle => {
            let mut levels = HybridDecoder::new(bytes, width, n).map_err(codec)?;
            while levels.remaining() > 0 {
                let got = levels.next_batch(scratch).map_err(codec)?;
                let at = out.len() - start;
                append_levels(part, encoding, &scratch[..got], at, max_level, out)?;
            }
        }
        Encoding::BitPacked => {
            return Err(PageError::unsupported(
                part,
                encoding,
                "the BIT_PACKED codec is not merged yet",
            ))
        }
        other => {
            return Err(PageError::unsupported(
                part,
                other,
                "levels are RLE or BIT_PACKED",
            ))
        }
    }
    Ok(())
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
/// them to `out`; returns the path that decoded them.
pub(super) fn decode_values(
    decoder: &mut ChunkDecoder,
    encoding: Encoding,
    data: &[u8],
    n: usize,
    out: &mut Values,
) -> Result<Path, PageError> {
    let part = PagePart::Values;
    if n == 0 {
        return Ok(Path::Fallback);
    }
    let column = decoder.column;
    let limit = decoder.executor.config().max_output_bytes as u64;
    let bytes = (n as u64).saturating_mul(value_size(column.physical_type));
    if bytes > limit {
        return Err(PageError::invalid(
            part,
            Some(encoding),
            format!(
                "{n} values of {} would take {bytes} bytes, above this executor's limit of \
                 {limit} (Config::max_output_bytes)",
                column.physical_type.name()
            ),
        ));
    }
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
            Ok(Path::Fallback)
        }
        Encoding::Rle => {
            let Values::Boolean(out) = out else {
                return Err(unsupported());
            };
            decode_rle_booleans(decoder, data, n, out)
        }
        Encoding::PlainDictionary | Encoding::RleDictionary => Err(PageError::unsupported(
            part,
            encoding,
            "the dictionary codec is not merged yet",
        )),
        Encoding::DeltaBinaryPacked
        | Encoding::DeltaLengthByteArray
        | Encoding::DeltaByteArray
        | Encoding::ByteStreamSplit => Err(PageError::unsupported(
            part,
            encoding,
            "this codec is not merged yet",
        )),
        Encoding::BitPacked => Err(unsupported()),
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
        Values::Boolean(out) => {
            drain(PlainBooleanDecoder::new(data, n).map_err(codec)?, n, out).map_err(codec)
        }
        Values::Int32(out) => drain_fixed::<i32>(data, n, out).map_err(codec),
        Values::Int64(out) => drain_fixed::<i64>(data, n, out).map_err(codec),
        Values::Int96(out) => drain_fixed(data, n, out).map_err(codec),
        Values::Float(out) => drain_fixed::<f32>(data, n, out).map_err(codec),
        Values::Double(out) => drain_fixed::<f64>(data, n, out).map_err(codec),
        Values::Bytes(out) => match column.physical_type {
            PhysicalType::FixedLenByteArray(len) => drain_bytes(
                PlainFixedLenDecoder::new(data, len, n).map_err(codec)?,
                n,
                out,
            )
            .map_err(codec),
            _ => drain_bytes(PlainByteArrayDecoder::new(data, n).map_err(codec)?, n, out)
                .map_err(codec),
        },
    }
}

/// PLAIN fixed-width values: checked to be present before the output grows.
fn drain_fixed<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<(), ParquetError> {
    drain(PlainDecoder::<T>::new(data, n)?, n, out)
}

/// Appends the `n` values of `decoder` to `out` (nothing on error).
fn drain<D: ValueDecoder>(
    mut decoder: D,
    n: usize,
    out: &mut Vec<D::Value>,
) -> Result<(), ParquetError>
where
    D::Value: Copy + Default,
{
    let start = out.len();
    out.resize(start + n, D::Value::default());
    let mut done = 0;
    while done < n {
        match decoder.next_batch(&mut out[start + done..]) {
            Ok(0) => break,
            Ok(got) => done += got,
            Err(e) => {
                out.truncate(start);
                return Err(e);
            }
        }
    }
    if done < n {
        out.truncate(start);
        return Err(ParquetError::truncated(
            "PAGE",
            format!("the values section ends after {done} of the page's {n} values"),
        ));
    }
    Ok(())
}

/// Appends the `n` byte arrays of `decoder` to `out` (nothing on error).
fn drain_bytes<D: ByteArrayDecoder>(
    mut decoder: D,
    n: usize,
    out: &mut ByteArrays,
) -> Result<(), ParquetError> {
    let (offsets, bytes) = (out.offsets.len(), out.values.len());
    let mut done = 0;
    let result = loop {
        if done == n {
            break Ok(());
        }
        match decoder.next_batch(out, n - done) {
            Ok(0) => {
                break Err(ParquetError::truncated(
                    "PAGE",
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
        match decoder
            .executor
            .decode::<u8>(&Stream::parquet_rle(&decoder.stream), n as u32)
        {
            Ok((bits, output)) => {
                out.extend(bits.iter().map(|&b| b != 0));
                return Ok(output.path);
            }
            Err(e) if e.status == Status::PRLE_FORMAT_ERR => {}
            Err(e) => return Err(PageError::job(part, encoding, e)),
        }
    }
    let (booleans, _) = BooleanHybridDecoder::new(data, n).map_err(codec)?;
    drain(booleans, n, out).map_err(codec)?;
    Ok(Path::Fallback)
}
