//! A walk of a file's footer before the `parquet` crate decodes it, so that a hostile footer
//! ends in an error at once rather than in a long loop; and of the page headers of the column
//! chunks handed to arrow-rs's reader, whose pages' claimed sizes it would trust.
//!
//! The `parquet` crate (59.3) skips unknown fields of the footer's Thrift; a list or set of
//! booleans takes one byte an element in the compact protocol, but its skip reads none, so a
//! list header claiming 2^31 booleans loops 2^31 times over nothing (a 2 KB file found by the
//! `reader` fuzz target took 6.7 s to be refused, pyarrow refuses it at once). Every element
//! of a compact-protocol list, set or map takes at least one byte, so a count above the bytes
//! left cannot be valid: this walk refuses it, and bounds the nesting depth.

use parquet::errors::ParquetError;
use parquet::file::reader::ChunkReader;

/// Nesting deeper than this is refused (a real footer nests about six levels).
const MAX_DEPTH: usize = 64;

/// Refuses a footer whose Thrift declares more list, set or map elements than it has bytes
/// left, nests deeper than [`MAX_DEPTH`], or names an unknown type. Files without the plain
/// `PAR1` footer (too short, encrypted) are left to the `parquet` crate.
pub(crate) fn check_footer<R: ChunkReader>(input: &R) -> Result<(), ParquetError> {
    let len = input.len();
    if len < 12 {
        return Ok(());
    }
    let tail = input.get_bytes(len - 8, 8)?;
    if tail.len() != 8 || &tail[4..] != b"PAR1" {
        return Ok(());
    }
    let meta_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if meta_len + 8 > len {
        return Ok(());
    }
    let meta = input.get_bytes(len - 8 - meta_len, meta_len as usize)?;
    let mut walk = Walk { buf: &meta, at: 0 };
    walk.value(STRUCT, false, 0).map_err(|m| {
        ParquetError::General(format!("the footer's metadata at byte {}: {m}", walk.at))
    })
}

/// The pages of one column chunk: from the chunk's start, each page header's claimed
/// uncompressed size, until the chunk's end (`len` bytes). `read(at, n)` gives up to `n` bytes
/// of the chunk from `at`. Stops (`Ok` with what it saw) at a header it cannot read: the
/// `parquet` crate reports that one when it gets there.
pub(crate) fn page_sizes(
    len: u64,
    mut read: impl FnMut(u64, usize) -> Result<bytes::Bytes, ParquetError>,
) -> Result<Vec<u64>, ParquetError> {
    let mut sizes = Vec::new();
    let mut at = 0u64;
    while at < len {
        // A header with statistics can be long: a window of 64 KiB, then the rest.
        let mut window = 64 << 10;
        let header = loop {
            let bytes = read(at, window.min((len - at) as usize))?;
            let mut walk = Walk { buf: &bytes, at: 0 };
            match walk.page_header() {
                Ok(header) => break Some((header, walk.at as u64)),
                Err(_) if (window as u64) < len - at => window *= 16,
                Err(_) => break None,
            }
        };
        let Some(((uncompressed, compressed), header_len)) = header else {
            break;
        };
        sizes.push(uncompressed);
        at = at.saturating_add(header_len).saturating_add(compressed);
    }
    Ok(sizes)
}

/// A compact-protocol integer (field ids written in full, i16/i32/i64) from its zigzag varint.
fn unzigzag(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const STRUCT: u8 = 12;

/// A cursor over compact-protocol Thrift.
struct Walk<'a> {
    buf: &'a [u8],
    at: usize,
}

impl Walk<'_> {
    fn left(&self) -> usize {
        self.buf.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.buf.get(self.at).ok_or("it ends early")?;
        self.at += 1;
        Ok(b)
    }

    fn skip(&mut self, n: usize) -> Result<(), String> {
        if n > self.left() {
            return Err(format!("{n} bytes declared, {} left", self.left()));
        }
        self.at += n;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint of more than ten bytes".into())
    }

    /// A page header: its uncompressed and compressed sizes (fields 2 and 3), the rest
    /// skipped; a negative size is an error.
    fn page_header(&mut self) -> Result<(u64, u64), String> {
        let (mut field, mut sizes) = (0i64, [None, None]);
        loop {
            let header = self.byte()?;
            if header == 0 {
                break;
            }
            field = match header >> 4 {
                0 => unzigzag(self.varint()?),
                delta => field + i64::from(delta),
            };
            let kind = header & 0x0f;
            match (field, kind) {
                (2 | 3, 5) => {
                    let size = unzigzag(self.varint()?);
                    let size = u64::try_from(size).map_err(|_| "a negative page size")?;
                    sizes[field as usize - 2] = Some(size);
                }
                _ => self.value(kind, false, 1)?,
            }
        }
        match sizes {
            [Some(uncompressed), Some(compressed)] => Ok((uncompressed, compressed)),
            _ => Err("a page header without its sizes".into()),
        }
    }

    /// `count` elements of at least one byte each must fit in what is left.
    fn elements(&self, count: u64, per: u64) -> Result<(), String> {
        if count.saturating_mul(per) > self.left() as u64 {
            return Err(format!(
                "{count} elements declared in {} bytes",
                self.left()
            ));
        }
        Ok(())
    }

    /// Skips a value of compact type `kind`; `element`: inside a list, set or map (where a
    /// boolean takes a byte; as a struct field its value is in the field's header).
    fn value(&mut self, kind: u8, element: bool, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        match kind {
            BOOL_TRUE | BOOL_FALSE => {
                if element {
                    self.skip(1)?;
                }
            }
            3 => self.skip(1)?,
            4..=6 => {
                self.varint()?;
            }
            7 => self.skip(8)?,
            8 => {
                let n = self.varint()?;
                self.skip(usize::try_from(n).unwrap_or(usize::MAX))?;
            }
            9 | 10 => {
                let header = self.byte()?;
                let mut count = u64::from(header >> 4);
                if count == 15 {
                    count = self.varint()?;
                }
                self.elements(count, 1)?;
                for _ in 0..count {
                    self.value(header & 0x0f, true, depth + 1)?;
                }
            }
            11 => {
                let count = self.varint()?;
                if count > 0 {
                    self.elements(count, 2)?;
                    let kinds = self.byte()?;
                    for _ in 0..count {
                        self.value(kinds >> 4, true, depth + 1)?;
                        self.value(kinds & 0x0f, true, depth + 1)?;
                    }
                }
            }
            STRUCT => loop {
                let header = self.byte()?;
                if header == 0 {
                    break;
                }
                if header >> 4 == 0 {
                    self.varint()?; // the field id, written in full
                }
                self.value(header & 0x0f, false, depth + 1)?;
            },
            13 => self.skip(16)?,
            other => return Err(format!("unknown Thrift type {other}")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn file(meta: &[u8]) -> Bytes {
        let mut out = b"PAR1".to_vec();
        out.extend_from_slice(meta);
        out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        out.extend_from_slice(b"PAR1");
        Bytes::from(out)
    }

    #[test]
    fn page_sizes_are_read_from_each_header_until_one_cannot_be() {
        // PageHeader { 1: type 0, 2: uncompressed, 3: compressed } and `compressed` bytes.
        fn page(uncompressed: i64, compressed: i64) -> Vec<u8> {
            let zigzag = |v: i64| {
                let mut z = ((v << 1) ^ (v >> 63)) as u64;
                let mut out = Vec::new();
                loop {
                    let b = (z & 0x7f) as u8;
                    z >>= 7;
                    if z == 0 {
                        out.push(b);
                        return out;
                    }
                    out.push(b | 0x80);
                }
            };
            let mut out = vec![0x15, 0x00, 0x15];
            out.extend(zigzag(uncompressed));
            out.push(0x15);
            out.extend(zigzag(compressed));
            // A field this walk skips: 5, a struct { 1: i32 } (as statistics would be).
            out.extend([0x2C, 0x15, 0x02, 0x00]);
            out.push(0x00);
            out.extend(vec![0xAB; compressed.max(0) as usize]);
            out
        }
        let sizes = |chunk: &[u8]| {
            let chunk = Bytes::copy_from_slice(chunk);
            page_sizes(chunk.len() as u64, |at, n| {
                Ok(chunk.slice(at as usize..(at as usize + n).min(chunk.len())))
            })
            .unwrap()
        };
        let mut chunk = page(100, 3);
        chunk.extend(page(2_000_000_000, 7));
        assert_eq!(sizes(&chunk), [100, 2_000_000_000]);
        // A header cut short, a negative size: the walk stops there.
        let mut cut = page(100, 3);
        cut.extend(&page(50, 2)[..3]);
        assert_eq!(sizes(&cut), [100]);
        let mut negative = page(100, 3);
        negative.extend(page(-5, 2));
        assert_eq!(sizes(&negative), [100]);
    }

    #[test]
    fn lists_claiming_more_elements_than_bytes_are_refused() {
        // Field 1, a list (type 9) of booleans (type 1) with 2^31 - 1 elements, then stop.
        let hostile = [0x19, 0xF1, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00];
        let e = check_footer(&file(&hostile)).unwrap_err().to_string();
        assert!(e.contains("2147483647 elements declared"), "{e}");
        // The same list with its 3 booleans present, a map of 1 entry, a binary, a nested
        // struct: valid.
        let valid = [
            0x19, 0x31, 1, 0, 1, // list<bool> of 3
            0x1B, 0x01, 0x53, 7, 42, // map<i32, byte> of 1: key 7, value 42
            0x18, 0x02, b'h', b'i', // binary "hi"
            0x1C, 0x11, 0x00, // struct { bool true }
            0x00,
        ];
        check_footer(&file(&valid)).unwrap();
        // Nesting past the limit.
        let mut deep = vec![0x1C; MAX_DEPTH + 2];
        deep.extend(vec![0; MAX_DEPTH + 3]);
        let e = check_footer(&file(&deep)).unwrap_err().to_string();
        assert!(e.contains("nested deeper"), "{e}");
    }
}
