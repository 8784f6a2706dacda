//! The checksums every analytics job reports over its whole source-1 buffer (D17).

use crc_fast::{CrcAlgorithm, Digest};

/// Bytes of source-1 both checksums read in turn: the XOR reads each step while it is still in
/// L1 after the CRC (one pass over memory, not two). Even, so no 16-bit word straddles steps.
const STEP: usize = 32 * 1024;

/// The `(crc, xor_checksum)` pair a job reports for source-1 `data`: CRC-32 (zlib), or
/// CRC-32C when `castagnoli`, and the 16-bit little-endian XOR.
pub fn checksums(data: &[u8], castagnoli: bool) -> (u32, u32) {
    let mut crc = Digest::new(if castagnoli {
        CrcAlgorithm::Crc32Iscsi
    } else {
        CrcAlgorithm::Crc32IsoHdlc
    });
    let mut xor = 0;
    for step in data.chunks(STEP) {
        crc.update(step);
        xor ^= xor_words(step);
    }
    // A CRC-32's value fits its low 32 bits.
    (crc.finalize() as u32, u32::from(xor))
}

/// XOR of `data` read as little-endian 16-bit words; an odd last byte is a zero-extended word.
pub fn xor16(data: &[u8]) -> u32 {
    u32::from(xor_words(data))
}

/// [`xor16`]: eight independent 64-bit lanes per 64-byte block, which the compiler keeps in
/// vector registers, folded to 16 bits at the end (XOR commutes with the folding).
fn xor_words(data: &[u8]) -> u16 {
    let (blocks, rest) = data.as_chunks::<64>();
    let mut lanes = [0u64; 8];
    for block in blocks {
        for (lane, word) in lanes.iter_mut().zip(block.as_chunks::<8>().0) {
            *lane ^= u64::from_le_bytes(*word);
        }
    }
    let (words, tail) = rest.as_chunks::<8>();
    // The last 0..=7 bytes, zero-padded: an odd last byte becomes a zero-extended word.
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    let acc = words
        .iter()
        .chain([&last])
        .fold(lanes.iter().fold(0, |a, l| a ^ l), |a, w| {
            a ^ u64::from_le_bytes(*w)
        });
    let acc = acc ^ (acc >> 32);
    (acc ^ (acc >> 16)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_example_from_the_semantics_document() {
        assert_eq!(
            xor16(&[0x01, 0x03, 0x03, 0x04, 0x05, 0x03, 0x07, 0x00]),
            0x0400
        );
        assert_eq!(xor16(&[0xAB]), 0xAB);
    }

    /// Bit-at-a-time reflected CRC-32 (init and final XOR all ones), independent of any crate.
    fn reference_crc(data: &[u8], reflected_poly: u32) -> u32 {
        let mut crc = u32::MAX;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (reflected_poly & 0u32.wrapping_sub(crc & 1));
            }
        }
        !crc
    }

    /// CRC-32/ISO-HDLC (zlib) and CRC-32/ISCSI (Castagnoli), reflected.
    const ZLIB: u32 = 0xEDB8_8320;
    const CASTAGNOLI: u32 = 0x82F6_3B78;

    /// The XOR checksum byte by byte: even offsets are low bytes, odd offsets high bytes.
    fn reference_xor16(data: &[u8]) -> u32 {
        data.iter()
            .enumerate()
            .fold(0, |acc, (i, &b)| acc ^ u32::from(b) << (8 * (i % 2)))
    }

    fn pseudo_random(len: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn assert_matches_reference(data: &[u8]) {
        let n = data.len();
        assert_eq!(
            checksums(data, false),
            (reference_crc(data, ZLIB), reference_xor16(data)),
            "CRC-32 and XOR of {n} bytes"
        );
        assert_eq!(
            checksums(data, true),
            (reference_crc(data, CASTAGNOLI), reference_xor16(data)),
            "CRC-32C and XOR of {n} bytes"
        );
    }

    #[test]
    fn short_buffers_match_the_bitwise_reference() {
        assert_eq!(reference_crc(b"123456789", ZLIB), 0xCBF4_3926);
        assert_eq!(reference_crc(b"123456789", CASTAGNOLI), 0xE306_9283);
        let data = pseudo_random(300 + 7);
        for len in 0..=300 {
            // Aligned and odd starts: SIMD kernels split their input at different points.
            assert_matches_reference(&data[..len]);
            assert_matches_reference(&data[7..7 + len]);
        }
    }

    #[test]
    fn long_unaligned_buffers_match_the_bitwise_reference() {
        let data = pseudo_random(300_000);
        for (start, len) in [
            (1, 1023),
            (3, 4096 + 5),
            (5, 32 * 1024 - 1),
            (0, 32 * 1024),
            (9, 32 * 1024 + 1),
            (13, 64 * 1024 + 77),
            (1, 299_999),
        ] {
            assert_matches_reference(&data[start..start + len]);
        }
    }

    #[test]
    fn crc_variants_are_zlib_and_castagnoli() {
        // The standard check values of "123456789".
        assert_eq!(checksums(b"123456789", false).0, 0xCBF4_3926);
        assert_eq!(checksums(b"123456789", true).0, 0xE306_9283);
    }
}
