//! ULEB128 and zigzag integers, as DELTA_BINARY_PACKED's headers store them.

use super::ParquetError;

/// Reads a ULEB128 integer of at most 64 bits at `*pos`, advancing `*pos` past it.
/// `encoding` names the caller in the error (truncated, or longer than 10 bytes / 64 bits).
pub fn read_uleb128(
    data: &[u8],
    pos: &mut usize,
    encoding: &'static str,
) -> Result<u64, ParquetError> {
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&byte) = data.get(*pos + i) else {
            return Err(ParquetError::truncated(
                encoding,
                format!("a ULEB128 integer at byte {} is cut short", *pos),
            ));
        };
        let bits = u64::from(byte & 0x7F);
        if i == 9 && bits > 1 {
            return Err(ParquetError::corrupt(
                encoding,
                format!("the ULEB128 integer at byte {} does not fit 64 bits", *pos),
            ));
        }
        value |= bits << (7 * i);
        if byte & 0x80 == 0 {
            *pos += i + 1;
            return Ok(value);
        }
    }
    Err(ParquetError::corrupt(
        encoding,
        format!(
            "the ULEB128 integer at byte {} is longer than 10 bytes",
            *pos
        ),
    ))
}

/// Reads a zigzag ULEB128 integer (a signed 64-bit value).
pub fn read_zigzag(
    data: &[u8],
    pos: &mut usize,
    encoding: &'static str,
) -> Result<i64, ParquetError> {
    let v = read_uleb128(data, pos, encoding)?;
    Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
}

/// Appends `value` as ULEB128.
pub fn write_uleb128(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `value` zigzag-encoded as ULEB128.
pub fn write_zigzag(out: &mut Vec<u8>, value: i64) {
    write_uleb128(out, ((value << 1) ^ (value >> 63)) as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_extremes_and_rejects_overlong() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            write_uleb128(&mut out, v);
            let mut pos = 0;
            assert_eq!(read_uleb128(&out, &mut pos, "T").unwrap(), v);
            assert_eq!(pos, out.len());
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -64, 64] {
            let mut out = Vec::new();
            write_zigzag(&mut out, v);
            let mut pos = 0;
            assert_eq!(read_zigzag(&out, &mut pos, "T").unwrap(), v);
        }
        // 2^64 does not fit; 11 bytes are refused; a cut-short integer is truncated.
        let mut pos = 0;
        assert_eq!(
            read_uleb128(
                &[0x80; 9].iter().copied().chain([0x02]).collect::<Vec<_>>(),
                &mut pos,
                "T"
            )
            .unwrap_err()
            .kind,
            super::super::ErrorKind::Corrupt
        );
        assert_eq!(
            read_uleb128(&[0x80, 0x80], &mut 0, "T").unwrap_err().kind,
            super::super::ErrorKind::Truncated
        );
        assert_eq!(
            read_uleb128(&[0x81; 11], &mut 0, "T").unwrap_err().kind,
            super::super::ErrorKind::Corrupt
        );
    }
}
