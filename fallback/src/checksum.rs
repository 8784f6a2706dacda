//! The checksums every analytics job reports over its whole source-1 buffer (D17).

/// The `(crc, xor_checksum)` pair a job reports for source-1 `data`: CRC-32 (zlib), or
/// CRC-32C when `castagnoli`, and the 16-bit little-endian XOR.
pub fn checksums(data: &[u8], castagnoli: bool) -> (u32, u32) {
    let crc = if castagnoli {
        crc32c::crc32c(data)
    } else {
        crc32fast::hash(data)
    };
    (crc, xor16(data))
}

/// XOR of `data` read as little-endian 16-bit words; an odd last byte is a zero-extended word.
pub fn xor16(data: &[u8]) -> u32 {
    let mut words = data.chunks_exact(2);
    let mut acc = (&mut words).fold(0u16, |acc, w| acc ^ u16::from_le_bytes([w[0], w[1]]));
    if let [last] = words.remainder() {
        acc ^= u16::from(*last);
    }
    u32::from(acc)
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
