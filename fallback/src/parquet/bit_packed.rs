//! BIT_PACKED (4, deprecated): levels packed back to back at a fixed width, most significant bit
//! first, the last byte zero-padded. No header: the caller knows the width (from the maximum
//! level) and the count (from the page header), so a page of `n` values takes exactly
//! [`encoded_len`]`(width, n)` bytes.
//!
//! Width 0 is accepted and takes no bytes: every value is 0.

use super::{ParquetError, ValueDecoder};
use crate::unpack::{pack, unpack, BitWidth};

const ENCODING: &str = "BIT_PACKED";

/// Bytes taken by `num_values` values of `bit_width` bits: ⌈num_values·bit_width/8⌉
/// (`usize::MAX` if that does not fit a `usize`).
pub fn encoded_len(bit_width: u32, num_values: usize) -> usize {
    let bits = num_values as u128 * u128::from(bit_width);
    usize::try_from(bits.div_ceil(8)).unwrap_or(usize::MAX)
}

fn check_width(bit_width: u32) -> Result<Option<BitWidth>, ParquetError> {
    if bit_width > 32 {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!("bit width {bit_width} is above 32"),
        ));
    }
    Ok(BitWidth::new(bit_width))
}

/// The incremental decoder of a BIT_PACKED page.
#[derive(Clone, Debug)]
pub struct BitPackedDecoder<'a> {
    /// Exactly the page's packed bytes.
    data: &'a [u8],
    /// `None` for width 0.
    width: Option<BitWidth>,
    num_values: usize,
    /// Values decoded or skipped.
    position: usize,
}

impl<'a> BitPackedDecoder<'a> {
    /// A decoder of `num_values` values of `bit_width` (0..=32) bits at the start of `data`,
    /// which must hold [`encoded_len`] bytes (more are ignored).
    pub fn new(data: &'a [u8], bit_width: u32, num_values: usize) -> Result<Self, ParquetError> {
        let width = check_width(bit_width)?;
        let needed = encoded_len(bit_width, num_values);
        let Some(data) = data.get(..needed) else {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "{num_values} values of {bit_width} bits need {needed} bytes, but the data has {}",
                    data.len()
                ),
            ));
        };
        Ok(BitPackedDecoder {
            data,
            width,
            num_values,
            position: 0,
        })
    }

    /// The bytes the page takes ([`encoded_len`]).
    pub fn encoded_len(&self) -> usize {
        self.data.len()
    }
}

impl ValueDecoder for BitPackedDecoder<'_> {
    type Value = u32;

    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut [u32]) -> Result<usize, ParquetError> {
        let n = out.len().min(self.remaining());
        let out = &mut out[..n];
        let Some(width) = self.width else {
            out.fill(0);
            self.position += n;
            return Ok(n);
        };
        let w = width.get() as usize;
        let mut done = 0;
        let in_group = self.position % 8;
        if in_group != 0 && n > 0 {
            // Mid-group (a batch ended there): the group's values present, unpacked apart.
            let group_start = self.position - in_group;
            let present = (self.num_values - group_start).min(8);
            let mut lanes = [0u32; 8];
            unpack(
                width,
                true,
                &self.data[group_start / 8 * w..],
                &mut lanes[..present],
            );
            done = (present - in_group).min(n);
            out[..done].copy_from_slice(&lanes[in_group..in_group + done]);
        }
        if done < n {
            // On a group boundary now: byte position/8·w, and the data holds every byte of
            // the page's values.
            let at = self.position + done;
            unpack(width, true, &self.data[at / 8 * w..], &mut out[done..]);
        }
        self.position += n;
        Ok(n)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let n = n.min(self.remaining());
        self.position += n;
        Ok(n)
    }
}

/// Decodes the BIT_PACKED page at the start of `data` into `out` (`out.len()` values of
/// `bit_width` bits): the bytes it takes.
pub fn decode(data: &[u8], bit_width: u32, out: &mut [u32]) -> Result<usize, ParquetError> {
    let mut decoder = BitPackedDecoder::new(data, bit_width, out.len())?;
    decoder.next_batch(out)?;
    Ok(decoder.encoded_len())
}

/// Appends `values` packed MSB first at `bit_width` (0..=32) bits, the last byte zero-padded.
/// A value that does not fit the width is [`super::ErrorKind::InvalidArgument`].
pub fn encode(values: &[u32], bit_width: u32, out: &mut Vec<u8>) -> Result<(), ParquetError> {
    let Some(width) = check_width(bit_width)? else {
        if let Some(index) = values.iter().position(|&v| v != 0) {
            return Err(value_too_wide(index, values[index], 0));
        }
        return Ok(());
    };
    let mask = width.mask();
    if let Some(index) = values.iter().position(|&v| v & !mask != 0) {
        return Err(value_too_wide(index, values[index], bit_width));
    }
    let w = bit_width as usize;
    let whole = values.len() / 8 * 8;
    let start = out.len();
    out.resize(start + whole / 8 * w, 0);
    pack(width, true, mask, &values[..whole], &mut out[start..]);
    let tail = &values[whole..];
    if !tail.is_empty() {
        let mut lanes = [0u32; 8];
        lanes[..tail.len()].copy_from_slice(tail);
        let mut group = [0u8; 32];
        pack(width, true, mask, &lanes, &mut group[..w]);
        out.extend_from_slice(&group[..(tail.len() * w).div_ceil(8)]);
    }
    Ok(())
}

fn value_too_wide(index: usize, value: u32, bit_width: u32) -> ParquetError {
    ParquetError::invalid_argument(
        ENCODING,
        format!("value {value} at index {index} does not fit {bit_width} bits"),
    )
}
