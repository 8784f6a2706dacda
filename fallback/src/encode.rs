//! Encoders for the formats the parsers read: LE/BE bit-packed arrays and Parquet's
//! RLE/bit-packing hybrid. Users need them to build test data and to write levels; the tests
//! use them to produce streams with a chosen run structure.

use std::fmt;

/// The longest run one header can describe within the accelerator's 4-byte varint limit:
/// a header value below 2^28 holds a count below 2^27 (RLE values, or bit-packed groups).
pub const MAX_RUN_LENGTH: u32 = (1 << 27) - 1;

/// Why a value sequence cannot be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The bit width is outside what the format allows (packed 1..=32, hybrid 0..=32).
    BitWidth(u32),
    /// `values[index]` does not fit in the bit width.
    ValueTooWide {
        /// Position of the offending value.
        index: usize,
        /// The value.
        value: u32,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::BitWidth(w) => write!(f, "bit width {w} is not supported by this format"),
            EncodeError::ValueTooWide { index, value } => {
                write!(
                    f,
                    "value {value} at index {index} does not fit the bit width"
                )
            }
        }
    }
}

impl std::error::Error for EncodeError {}

fn check(values: &[u32], width: u32, min_width: u32) -> Result<(), EncodeError> {
    if !(min_width..=32).contains(&width) {
        return Err(EncodeError::BitWidth(width));
    }
    let max = if width == 0 {
        0
    } else {
        u32::MAX >> (32 - width)
    };
    match values.iter().position(|&v| v > max) {
        Some(index) => Err(EncodeError::ValueTooWide {
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Appends `values` packed at `width` bits, LSB first (QPL's `le_packed`, the hybrid's
/// bit-packed runs); the last byte is zero-padded.
fn pack_into(out: &mut Vec<u8>, values: &[u32], width: u32, big_endian: bool) {
    let mut acc = 0u64;
    let mut bits = 0u32;
    for &v in values {
        if big_endian {
            acc = (acc << width) | u64::from(v);
            bits += width;
            while bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
            acc &= (1u64 << bits) - 1;
        } else {
            acc |= u64::from(v) << bits;
            bits += width;
            while bits >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                bits -= 8;
            }
        }
    }
    if bits > 0 {
        out.push(if big_endian { acc << (8 - bits) } else { acc } as u8);
    }
}

/// Packs `values` at `width` (1..=32) bits, little-endian bit order (QPL's `le_packed`).
pub fn pack_le(values: &[u32], width: u32) -> Result<Vec<u8>, EncodeError> {
    check(values, width, 1)?;
    let mut out = Vec::with_capacity((values.len() * width as usize).div_ceil(8));
    pack_into(&mut out, values, width, false);
    Ok(out)
}

/// Packs `values` at `width` (1..=32) bits, big-endian bit order (QPL's `be_packed`, Parquet's
/// deprecated BIT_PACKED encoding).
pub fn pack_be(values: &[u32], width: u32) -> Result<Vec<u8>, EncodeError> {
    check(values, width, 1)?;
    let mut out = Vec::with_capacity((values.len() * width as usize).div_ceil(8));
    pack_into(&mut out, values, width, true);
    Ok(out)
}

/// Appends a run header of the RLE/bit-packed hybrid: `header` as ULEB128 (`count << 1` for an
/// RLE run, `groups << 1 | 1` for a bit-packed one; below 2^28 to fit 4 bytes).
pub fn write_run_header(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Repeats shorter than this are bit-packed: an RLE run costs a header and a value, and
/// breaking a bit-packed run costs another header.
const MIN_RLE_RUN: usize = 8;

/// Encodes `values` as Parquet's RLE/bit-packing hybrid without the bit-width byte (levels,
/// and the body of dictionary-index pages). `width` is 0..=32.
///
/// Repeats of at least 8 become RLE runs; everything else goes into bit-packed runs of whole
/// groups, the last group zero-padded (the stream then holds up to 7 extra values, which
/// readers ignore). Runs longer than [`MAX_RUN_LENGTH`] are split, so every header fits the
/// accelerator's 4-byte varint limit.
pub fn encode_hybrid(values: &[u32], width: u32) -> Result<Vec<u8>, EncodeError> {
    check(values, width, 0)?;
    let value_bytes = width.div_ceil(8) as usize;
    let mut out = Vec::new();
    let mut packed: Vec<u32> = Vec::new();
    let flush = |out: &mut Vec<u8>, packed: &mut Vec<u32>| {
        for chunk in packed.chunks(MAX_RUN_LENGTH as usize * 8) {
            let groups = chunk.len().div_ceil(8);
            write_run_header(out, ((groups as u32) << 1) | 1);
            let mut padded = chunk.to_vec();
            padded.resize(groups * 8, 0);
            pack_into(out, &padded, width, false);
        }
        packed.clear();
    };
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        let repeat = values[i..].iter().take_while(|&&x| x == v).count();
        if repeat >= MIN_RLE_RUN && packed.len().is_multiple_of(8) {
            flush(&mut out, &mut packed);
            let mut left = repeat;
            while left > 0 {
                let run = left.min(MAX_RUN_LENGTH as usize);
                write_run_header(&mut out, (run as u32) << 1);
                out.extend_from_slice(&v.to_le_bytes()[..value_bytes]);
                left -= run;
            }
            i += repeat;
        } else {
            // Complete the current group value by value, so a long repeat can start on a
            // group boundary.
            packed.push(v);
            i += 1;
        }
    }
    flush(&mut out, &mut packed);
    Ok(out)
}

/// Encodes `values` in QPL's `parquet_rle` format: the bit-width byte (1..=32), then
/// [`encode_hybrid`]'s runs.
pub fn encode_parquet_rle(values: &[u32], width: u32) -> Result<Vec<u8>, EncodeError> {
    check(values, width, 1)?;
    let mut out = vec![width as u8];
    out.extend(encode_hybrid(values, width)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_values_0_to_7_at_width_3() {
        // The Parquet spec's hybrid example (LSB first) and deprecated BIT_PACKED (MSB first).
        let values: Vec<u32> = (0..8).collect();
        assert_eq!(
            pack_le(&values, 3).unwrap(),
            [0b1000_1000, 0b1100_0110, 0b1111_1010]
        );
        assert_eq!(
            pack_be(&values, 3).unwrap(),
            [0b0000_0101, 0b0011_1001, 0b0111_0111]
        );
        // One bit-packed run of one group: header (1 << 1) | 1.
        assert_eq!(encode_hybrid(&values, 3).unwrap(), [0x03, 0x88, 0xC6, 0xFA]);
    }

    #[test]
    fn long_repeats_become_rle_runs() {
        let mut values = vec![1, 2, 3];
        values.extend([5; 20]);
        let encoded = encode_parquet_rle(&values, 4).unwrap();
        // Width, one bit-packed group (3 values + the first five 5s), then RLE 15 x 5.
        assert_eq!(encoded[0], 4);
        assert_eq!(encoded[1], 0x03);
        assert_eq!(&encoded[6..], [15 << 1, 5]);
    }

    #[test]
    fn rejects_widths_and_values_out_of_range() {
        assert_eq!(pack_le(&[1], 0), Err(EncodeError::BitWidth(0)));
        assert_eq!(pack_be(&[1], 33), Err(EncodeError::BitWidth(33)));
        assert_eq!(
            encode_parquet_rle(&[1, 8], 3),
            Err(EncodeError::ValueTooWide { index: 1, value: 8 })
        );
        assert_eq!(encode_hybrid(&[0, 0], 0).unwrap(), [0x03]);
    }
}
