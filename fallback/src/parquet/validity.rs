//! Definition levels straight to a validity bitmap: for a column that is not repeated, a
//! value is present where its level is the column's maximum, and Arrow wants one bit per row
//! (LSB first), not one level. RLE runs set or clear whole bytes; a bit-packed run of width 1
//! (levels 0 and 1) is already the bitmap and is copied bit-aligned.

use super::hybrid::{HybridDecoder, Sink};
use super::plain::decode_booleans_to_bits;
use super::ParquetError;
use crate::unpack::BitWidth;

const ENCODING: &str = "RLE";

/// A growing bitmap, LSB first, as Arrow lays out validity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bits {
    /// The bytes (bits past `len` in the last byte are 0).
    pub bytes: Vec<u8>,
    /// Bits in use.
    pub len: usize,
}

impl Bits {
    /// No bits.
    pub fn new() -> Bits {
        Bits::default()
    }

    /// Removes every bit, keeping the capacity.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
    }

    /// Keeps the first `len` bits (all when there are fewer).
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.bytes.truncate(len.div_ceil(8));
            if !len.is_multiple_of(8) {
                if let Some(last) = self.bytes.last_mut() {
                    *last &= (1u8 << (len % 8)) - 1;
                }
            }
            self.len = len;
        }
    }

    /// Bit `i`.
    pub fn get(&self, i: usize) -> bool {
        self.bytes[i / 8] >> (i % 8) & 1 == 1
    }

    /// Appends one bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            self.bytes[self.len / 8] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Appends `count` copies of `bit`: the new bytes at once, then the partial first byte's
    /// high bits (short runs between bit-packed groups are most of a sparsely null column's
    /// levels: a bit at a time, they took a tenth of its read).
    pub fn push_n(&mut self, bit: bool, count: usize) {
        if count == 0 {
            return;
        }
        let start = self.len;
        let end = start + count;
        self.bytes
            .resize(end.div_ceil(8), if bit { 0xFF } else { 0 });
        self.len = end;
        if bit {
            // The byte that was partly used: its bits from `start` on (the ones past `end`
            // within it are cleared below).
            if !start.is_multiple_of(8) {
                self.bytes[start / 8] |= 0xFF << (start % 8);
            }
            if !end.is_multiple_of(8) {
                self.bytes[end / 8] &= (1u8 << (end % 8)) - 1;
            }
        }
    }

    /// How many bits are set.
    pub fn count_ones(&self) -> usize {
        self.bytes.iter().map(|b| b.count_ones() as usize).sum()
    }
}

/// Places 32-bit `values`, the rows with a value in order, at the rows `words` sets (LSB
/// first, 64 rows a word, as Arrow's validity is read by `bit_chunks`), a zero at the others:
/// `rows` entries (at most `64 * words.len()`), with the CPU's expand kernel (AVX2, AVX-512:
/// eight or sixteen rows a step by one permutation). Fewer values than set bits leave the rows
/// past the last value zero. `None` on the portable tier, whose expand is no faster than a
/// caller's loop.
pub fn spread_u32(values: &[u32], words: &[u64], rows: usize) -> Option<Vec<u32>> {
    let rows = rows.min(64 * words.len());
    let mut out = vec![0u32; 64 * words.len()];
    crate::kernels::expand(crate::kernels::kernels(), values, words, &mut out)?;
    out.truncate(rows);
    Some(out)
}

/// Writes levels as validity bits, counting the set ones and refusing levels past the
/// maximum.
struct ValiditySink<'b> {
    bits: &'b mut Bits,
    max_level: u32,
    present: usize,
}

impl ValiditySink<'_> {
    fn check(&self, level: u32) -> Result<(), ParquetError> {
        if level > self.max_level {
            return Err(ParquetError::corrupt(
                ENCODING,
                format!(
                    "level {level} is above the column's maximum {}",
                    self.max_level
                ),
            ));
        }
        Ok(())
    }
}

impl Sink for ValiditySink<'_> {
    fn fill(&mut self, _: usize, value: u32, count: usize) -> Result<(), ParquetError> {
        self.check(value)?;
        let set = value == self.max_level;
        self.bits.push_n(set, count);
        if set {
            self.present += count;
        }
        Ok(())
    }

    fn values(&mut self, _: usize, values: &[u32]) -> Result<(), ParquetError> {
        for &value in values {
            self.check(value)?;
            let set = value == self.max_level;
            self.bits.push(set);
            self.present += usize::from(set);
        }
        Ok(())
    }

    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        if width.get() == 1 && self.max_level == 1 {
            // Levels of one bit are the validity bits themselves.
            let start = self.bits.len;
            decode_booleans_to_bits(src, count, &mut self.bits.bytes, &mut self.bits.len)?;
            let ones: usize = src[..count / 8]
                .iter()
                .map(|b| b.count_ones() as usize)
                .sum::<usize>()
                + (start + count / 8 * 8..start + count)
                    .filter(|&i| self.bits.get(i))
                    .count();
            self.present += ones;
            return Ok(());
        }
        let mut buffer = [0u32; super::hybrid::CHUNK];
        super::hybrid::unpack_chunks(&mut buffer, width, src, count, |offset, values| {
            self.values(at + offset, values)
        })
    }
}

/// Decodes the `num_values` levels of at most `max_level` that the hybrid stream `data` (runs
/// only) of `bit_width` holds, appending one bit per level to `bits`: set where the level is
/// `max_level`. Returns how many were set. A level above `max_level` is an error, and so is a
/// stream that ends early; on error `bits` is as it was.
pub fn decode_validity(
    data: &[u8],
    bit_width: u32,
    num_values: usize,
    max_level: u32,
    bits: &mut Bits,
) -> Result<usize, ParquetError> {
    let before = bits.len;
    let mut decoder = HybridDecoder::new(data, bit_width, num_values)?;
    bits.bytes.reserve(num_values.div_ceil(8) + 1);
    let mut sink = ValiditySink {
        bits,
        max_level,
        present: 0,
    };
    let result = decoder.drive(num_values, &mut sink);
    let present = sink.present;
    if let Err(e) = result {
        bits.truncate(before);
        return Err(e);
    }
    Ok(present)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::hybrid::encode;

    fn reference(levels: &[u32], max: u32) -> (Vec<bool>, usize) {
        let bits: Vec<bool> = levels.iter().map(|&l| l == max).collect();
        let n = bits.iter().filter(|&&b| b).count();
        (bits, n)
    }

    #[test]
    fn levels_become_bits_at_every_offset() {
        let cases: Vec<(Vec<u32>, u32)> = vec![
            ((0..1000).map(|i| u32::from(i % 7 != 0)).collect(), 1),
            (vec![1; 333], 1),
            (vec![0; 70], 1),
            ((0..500).map(|i| (i % 3) as u32).collect(), 2),
            (
                (0..300)
                    .map(|i| if i < 150 { 1 } else { u32::from(i % 2 == 0) })
                    .collect(),
                1,
            ),
        ];
        for (levels, max) in cases {
            let width = 32 - max.leading_zeros();
            let mut stream = Vec::new();
            encode(&levels, width, &mut stream).unwrap();
            for prefix in [0usize, 1, 3, 8, 13] {
                let mut bits = Bits::new();
                bits.push_n(true, prefix);
                let present =
                    decode_validity(&stream, width, levels.len(), max, &mut bits).unwrap();
                let (expected, n) = reference(&levels, max);
                assert_eq!(present, n);
                assert_eq!(bits.len, prefix + levels.len());
                for (i, &e) in expected.iter().enumerate() {
                    assert_eq!(bits.get(prefix + i), e, "level {i} after {prefix} bits");
                }
                assert_eq!(bits.count_ones(), prefix + n);
            }
        }
    }

    #[test]
    fn runs_of_bits_equal_bits_pushed_one_at_a_time() {
        // Runs of every length from every offset in a byte, both values, one after another.
        let mut runs = Bits::new();
        let mut single = Bits::new();
        let mut state = 7u32;
        for _ in 0..400 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let bit = state >> 16 & 1 == 1;
            let count = (state >> 20) as usize % 21;
            runs.push_n(bit, count);
            for _ in 0..count {
                single.push(bit);
            }
            assert_eq!(runs, single);
        }
        assert!(runs.len > 2000);
    }

    #[test]
    fn spread_values_land_on_the_set_rows() {
        let mut state = 99u64;
        for rows in [0usize, 1, 63, 64, 65, 200, 1000] {
            let words: Vec<u64> = (0..rows.div_ceil(64))
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state & (state >> 3)
                })
                .collect();
            let set = |r: usize| words[r / 64] >> (r % 64) & 1 == 1;
            let present = (0..rows).filter(|&r| set(r)).count();
            for values_len in [present, present / 2] {
                let values: Vec<u32> = (1..=values_len as u32).collect();
                let Some(out) = spread_u32(&values, &words, rows) else {
                    // The portable tier leaves it to the caller.
                    continue;
                };
                let mut next = 0;
                let expected: Vec<u32> = (0..rows)
                    .map(|r| match values.get(next).filter(|_| set(r)) {
                        Some(&v) => {
                            next += 1;
                            v
                        }
                        None => 0,
                    })
                    .collect();
                assert_eq!(out, expected, "{rows} rows, {values_len} values");
            }
        }
    }

    #[test]
    fn levels_past_the_maximum_and_short_streams_are_errors() {
        let mut stream = Vec::new();
        encode(&[0, 1, 2, 1], 2, &mut stream).unwrap();
        let mut bits = Bits::new();
        bits.push(true);
        assert!(decode_validity(&stream, 2, 4, 1, &mut bits).is_err());
        assert_eq!(bits, {
            let mut b = Bits::new();
            b.push(true);
            b
        });
        assert!(decode_validity(&stream, 2, 400, 2, &mut bits).is_err());
        assert_eq!(bits.len, 1);
    }
}

/// What [`level_word`] sets a level's bit for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelTest {
    /// The level is at least this (a struct's validity: non-null from its level on).
    AtLeast(i16),
    /// The level is this (a value's validity: the column's maximum).
    Equal(i16),
}

impl LevelTest {
    /// The kernel's test: `(equal, threshold)`, a level's bit set where it equals the
    /// threshold or, not `equal`, is above it; `None` where every level passes (at least
    /// i16::MIN).
    fn kernel_test(self) -> Option<(bool, i16)> {
        match self {
            LevelTest::AtLeast(i16::MIN) => None,
            // `level >= min` is `level > min - 1`.
            LevelTest::AtLeast(min) => Some((false, min - 1)),
            LevelTest::Equal(max) => Some((true, max)),
        }
    }
}

/// The first 64 `levels` as a word, bit `i` set where `test` holds for `levels[i]` (Arrow's
/// validity, 64 rows a word): on x86_64 16 levels compared at a time with SSE2, which every
/// x86_64 CPU has (a multiplication gathering 8 had taken 5 % of a read of nested structs).
///
/// # Panics
/// When `levels` holds fewer than 64.
#[inline]
pub fn level_word(levels: &[i16], test: LevelTest) -> u64 {
    let levels: &[i16; 64] = levels[..64].try_into().expect("64 levels");
    match test.kernel_test() {
        None => u64::MAX,
        Some((equal, threshold)) => crate::kernels::level_word(levels, equal, threshold),
    }
}

#[cfg(test)]
mod level_word_tests {
    use super::*;

    fn holds(test: LevelTest, level: i16) -> bool {
        match test {
            LevelTest::AtLeast(min) => level >= min,
            LevelTest::Equal(max) => level == max,
        }
    }

    /// Every test on levels of the whole i16 range and on small ones: the word (SSE2 on
    /// x86_64) and the portable kernel's both equal a bit at a time.
    #[test]
    fn level_words_equal_a_bit_at_a_time() {
        let mut state = 0x9E37_79B9u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for round in 0..200 {
            let levels: Vec<i16> = (0..64)
                .map(|_| match round % 2 {
                    0 => (next() % 5) as i16,
                    _ => next() as i16,
                })
                .collect();
            let levels: &[i16; 64] = levels[..].try_into().unwrap();
            for k in [i16::MIN, i16::MIN + 1, -1, 0, 1, 2, 3, 4, i16::MAX] {
                for test in [LevelTest::AtLeast(k), LevelTest::Equal(k)] {
                    let expected =
                        (0..64).fold(0u64, |w, i| w | u64::from(holds(test, levels[i])) << i);
                    assert_eq!(level_word(levels, test), expected, "{test:?}");
                    let Some((equal, threshold)) = test.kernel_test() else {
                        continue;
                    };
                    let portable = crate::kernels::portable::level_word(levels, equal, threshold);
                    assert_eq!(portable, expected, "{test:?}");
                }
            }
        }
    }
}
