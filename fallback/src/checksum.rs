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

    #[test]
    fn crc_variants_are_zlib_and_castagnoli() {
        // The standard check values of "123456789".
        assert_eq!(checksums(b"123456789", false).0, 0xCBF4_3926);
        assert_eq!(checksums(b"123456789", true).0, 0xE306_9283);
    }
}
