//! Walks of a file's compact-protocol Thrift before the `parquet` crate decodes it, so that a
//! hostile footer or page header ends in an error at once rather than in a long loop: the
//! footer (repaired where another type was declared for a known field, see
//! [`repair_footer`]), and the page headers of a column chunk ([`page_sizes`]: every chunk a
//! page reader of `query` or the Arrow reader opens, and the chunks handed to arrow-rs's
//! reader, whose pages' claimed sizes it would trust).
//!
//! The `parquet` crate (59.3, and 60.1) reads the fields of the footer's Thrift it knows as
//! their types in the format, whatever type their headers declare, and skips the others by
//! their declared type. Its skip takes no byte for a boolean element of a list, set or map
//! (the compact protocol writes one byte for each), so a list header claiming 2^31 booleans
//! loops 2^31 times over nothing: a 2 KB file found by the `reader` fuzz target took 6.7 s to
//! be refused (pyarrow refuses it at once), and another, whose list hid in a known field
//! declared with another type (the crate read it as its own type, this walk skipped it as
//! declared, and the two parted), 6.3 s. So this walk reads the footer as the crate does,
//! byte for byte, and refuses:
//! - a known field whose declared type is not the format's (a valid footer never has one;
//!   the crate would read its bytes as another type than the header says);
//! - a list, set or map claiming more elements than bytes are left, or booleans in skipped
//!   containers past one per byte of the footer in all (what the crate loops over for free);
//! - nesting deeper than [`MAX_DEPTH`], or an unknown type.

use parquet::errors::ParquetError;
use parquet::file::reader::ChunkReader;

/// Nesting deeper than this is refused (a real footer nests about six levels).
const MAX_DEPTH: usize = 64;

/// Walks the footer as the module docs say: an error for what the `parquet` crate would loop
/// on. A known field declared with another type than the format's is skipped, as Thrift's
/// generated C++ code (Arrow C++, pyarrow) skips it, where the crate would read its bytes as
/// the format's type: the footer's metadata is returned rewritten with that field renumbered
/// to an id no struct has (so that the crate skips it too), or as it is where nothing needed
/// it (for the crate to decode, not to read again). Files without the plain `PAR1` footer (too
/// short, encrypted) are left to the crate.
///
/// Example: Dremio wrote a `ColumnMetaData` field 15 that is a list of structs; the format's
/// field 15 is `bloom_filter_length`, an i32. The crate read the list's header as a varint and
/// the rest of the footer out of step ("Expected list element type of I64 but got I16");
/// renumbered, field 15 is skipped and the file reads, as pyarrow reads it.
pub(crate) fn repair_footer<R: ChunkReader>(input: &R) -> Result<Footer, ParquetError> {
    let len = input.len();
    if len < 12 {
        return Ok(Footer::Unread);
    }
    let tail = input.get_bytes(len - 8, 8)?;
    if tail.len() != 8 || &tail[4..] != b"PAR1" {
        return Ok(Footer::Unread);
    }
    let meta_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if meta_len + 8 > len {
        return Ok(Footer::Unread);
    }
    let meta = input.get_bytes(len - 8 - meta_len, meta_len as usize)?;
    let mut walk = Walk::new(&meta);
    walk.structure(Some(FILE_META_DATA), 0).map_err(|m| {
        ParquetError::General(format!("the footer's metadata at byte {}: {m}", walk.at))
    })?;
    if walk.renumbered.is_empty() {
        return Ok(Footer::AsIs(meta));
    }
    let mut out = Vec::with_capacity(meta.len() + 4 * walk.renumbered.len());
    let mut copied = 0;
    for header in &walk.renumbered {
        out.extend_from_slice(&meta[copied..header.at]);
        // The long form: the type with a zero delta, then the id as a zigzag varint.
        out.push(header.declared);
        let mut id = ((header.id << 1) ^ (header.id >> 63)) as u64;
        while id >= 0x80 {
            out.push((id as u8) | 0x80);
            id >>= 7;
        }
        out.push(id as u8);
        copied = header.at + header.len;
    }
    out.extend_from_slice(&meta[copied..]);
    Ok(Footer::Repaired(out))
}

/// A file's footer metadata after [`repair_footer`]'s walk.
#[derive(Debug)]
pub(crate) enum Footer {
    /// Not read (no plain `PAR1` footer, or one longer than the file): the crate reads it.
    Unread,
    /// Walked, as the file holds it.
    AsIs(bytes::Bytes),
    /// Walked and rewritten.
    Repaired(Vec<u8>),
}

/// An id no struct of the footer has: a known field declared with another type is given it.
const UNKNOWN_FIELD: i64 = i16::MAX as i64;

/// A field header to write again in the long form, with the id `id`.
struct Renumbered {
    at: usize,
    len: usize,
    declared: u8,
    id: i64,
}

/// The pages of one column chunk: from the chunk's start, each page header's claimed
/// uncompressed size, until the chunk's end (`len` bytes). `read(at, n)` gives up to `n` bytes
/// of the chunk from `at`. Each header is walked as the `parquet` crate reads it (see the
/// module docs; a known field declared with another type is an error here, as the crate reads
/// headers from a stream this walk cannot rewrite): a header the crate would loop on, or that
/// runs past the chunk's end, is an error. Stops (`Ok` with what it saw) at a header without
/// its sizes: the crate reports that one when it gets there.
pub(crate) fn page_sizes(
    len: u64,
    read: impl FnMut(u64, usize) -> Result<bytes::Bytes, ParquetError>,
) -> Result<Vec<u64>, ParquetError> {
    let mut sizes = Vec::new();
    walk_pages(len, read, |_, uncompressed| sizes.push(uncompressed))?;
    Ok(sizes)
}

/// [`page_sizes`]' walk, giving where each page starts (from the chunk's start) instead.
pub(crate) fn page_starts(
    len: u64,
    read: impl FnMut(u64, usize) -> Result<bytes::Bytes, ParquetError>,
) -> Result<Vec<u64>, ParquetError> {
    let mut starts = Vec::new();
    walk_pages(len, read, |start, _| starts.push(start))?;
    Ok(starts)
}

/// A page this short (header and body) is taken to be followed by more like it: the next
/// header is looked for in one read of 64 KiB, with the pages after it.
const SMALL_PAGE: u64 = 16 << 10;

/// Walks the page headers of a chunk of `len` bytes (see [`page_sizes`]), calling
/// `page(start, uncompressed)` for each.
fn walk_pages(
    len: u64,
    mut read: impl FnMut(u64, usize) -> Result<bytes::Bytes, ParquetError>,
    mut page: impl FnMut(u64, u64),
) -> Result<(), ParquetError> {
    let mut at = 0u64;
    // The chunk's bytes read last (from `held_at`): small pages' headers are found in one
    // read of 64 KiB, not a read each (a file of 16k one-value pages took twice arrow-rs's
    // time in reads). After a large page only the header's window is read: a read of 64 KiB
    // a page, most of it read again with the page, took a third of a read of pyarrow's
    // 80 KB pages.
    let (mut held, mut held_at) = (bytes::Bytes::new(), 0u64);
    let mut small = false;
    while at < len {
        // Headers are short; one with statistics can be long: a window of 4 KiB, grown until
        // the header fits or the window reaches the chunk's end.
        let mut window = 4 << 10;
        let (bytes, header_len) = loop {
            let want = window.min((len - at) as usize);
            let inside = at >= held_at && at + want as u64 <= held_at + held.len() as u64;
            if !inside {
                let ahead = if small { 64 << 10 } else { 0 };
                held = read(at, want.max(ahead.min((len - at) as usize)))?;
                held_at = at;
            }
            let from = (at - held_at) as usize;
            let bytes = held.slice(from..(from + want).min(held.len()));
            let mut walk = Walk::new(&bytes);
            walk.renumber = false;
            let walked = walk.structure(Some(PAGE_HEADER), 0);
            let header_len = walk.at;
            match walked {
                Ok(()) => break (bytes, header_len),
                Err(_) if (window as u64) < len - at => window *= 16,
                Err(m) => {
                    return Err(ParquetError::General(format!(
                        "the page header at byte {} of the column chunk: {m}",
                        at.saturating_add(header_len as u64)
                    )))
                }
            }
        };
        let Ok((uncompressed, compressed)) = Walk::new(&bytes[..header_len]).page_header() else {
            break;
        };
        page(at, uncompressed);
        let next = at
            .saturating_add(header_len as u64)
            .saturating_add(compressed);
        small = next - at < SMALL_PAGE;
        at = next;
    }
    Ok(())
}

/// A page header as the `parquet` crate reads it (`PageHeader` and the structs in it).
const PAGE_HEADER: &[(i16, Kind)] = &[
    (1, Int),
    (2, Int),
    (3, Int),
    (4, Int),
    (
        5,
        Struct(&[
            (1, Int),
            (2, Int),
            (3, Int),
            (4, Int),
            (5, Struct(STATISTICS)),
        ]),
    ),
    (6, Struct(NO_FIELDS)),
    (7, Struct(&[(1, Int), (2, Int), (3, Bool)])),
    (
        8,
        Struct(&[
            (1, Int),
            (2, Int),
            (3, Int),
            (4, Int),
            (5, Int),
            (6, Int),
            (7, Bool),
            (8, Struct(STATISTICS)),
        ]),
    ),
];

/// A compact-protocol integer (field ids written in full, i16/i32/i64) from its zigzag varint.
fn unzigzag(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const STRUCT: u8 = 12;

/// A field's type as the `parquet` crate reads it, for the fields it knows.
#[derive(Clone, Copy)]
enum Kind {
    /// i16, i32, i64 or an enum: a zigzag varint (declared 4, 5 or 6).
    Int,
    /// An Int that counts elements of the list it is in (a schema element's `num_children`):
    /// the crate allocates room for that many, so it may not pass the list's length.
    Children,
    Byte,
    Bool,
    Double,
    Binary,
    List(&'static Kind),
    /// A struct or union: its fields' ids and kinds (the others are skipped).
    Struct(&'static [(i16, Kind)]),
}

use Kind::{Binary, Bool, Byte, Children, Double, Int, List, Struct};

/// The footer's structs as `parquet.thrift` has them (the fields the crate reads).
const NO_FIELDS: &[(i16, Kind)] = &[];
const FILE_META_DATA: &[(i16, Kind)] = &[
    (1, Int),
    (2, List(&Struct(SCHEMA_ELEMENT))),
    (3, Int),
    (4, List(&Struct(ROW_GROUP))),
    (5, List(&Struct(KEY_VALUE))),
    (6, Binary),
    (7, List(&Struct(&[(1, Struct(NO_FIELDS))]))),
    (8, Struct(&[(1, Struct(AES_GCM)), (2, Struct(AES_GCM))])),
    (9, Binary),
];
const AES_GCM: &[(i16, Kind)] = &[(1, Binary), (2, Binary), (3, Bool)];
const KEY_VALUE: &[(i16, Kind)] = &[(1, Binary), (2, Binary)];
const SCHEMA_ELEMENT: &[(i16, Kind)] = &[
    (1, Int),
    (2, Int),
    (3, Int),
    (4, Binary),
    (5, Children),
    (6, Int),
    (7, Int),
    (8, Int),
    (9, Int),
    (10, Struct(LOGICAL_TYPE)),
];
const TIME_UNIT: &[(i16, Kind)] = &[
    (1, Struct(NO_FIELDS)),
    (2, Struct(NO_FIELDS)),
    (3, Struct(NO_FIELDS)),
];
const TIME_TYPE: &[(i16, Kind)] = &[(1, Bool), (2, Struct(TIME_UNIT))];
const LOGICAL_TYPE: &[(i16, Kind)] = &[
    (1, Struct(NO_FIELDS)),
    (2, Struct(NO_FIELDS)),
    (3, Struct(NO_FIELDS)),
    (4, Struct(NO_FIELDS)),
    (5, Struct(&[(1, Int), (2, Int)])),
    (6, Struct(NO_FIELDS)),
    (7, Struct(TIME_TYPE)),
    (8, Struct(TIME_TYPE)),
    (10, Struct(&[(1, Byte), (2, Bool)])),
    (11, Struct(NO_FIELDS)),
    (12, Struct(NO_FIELDS)),
    (13, Struct(NO_FIELDS)),
    (14, Struct(NO_FIELDS)),
    (15, Struct(NO_FIELDS)),
    (16, Struct(&[(1, Byte)])),
    (17, Struct(&[(1, Binary)])),
    (18, Struct(&[(1, Binary), (2, Int)])),
];
const ROW_GROUP: &[(i16, Kind)] = &[
    (1, List(&Struct(COLUMN_CHUNK))),
    (2, Int),
    (3, Int),
    (4, List(&Struct(&[(1, Int), (2, Bool), (3, Bool)]))),
    (5, Int),
    (6, Int),
    (7, Int),
];
const COLUMN_CHUNK: &[(i16, Kind)] = &[
    (1, Binary),
    (2, Int),
    (3, Struct(COLUMN_META_DATA)),
    (4, Int),
    (5, Int),
    (6, Int),
    (7, Int),
    (
        8,
        Struct(&[
            (1, Struct(NO_FIELDS)),
            (2, Struct(&[(1, List(&Binary)), (2, Binary)])),
        ]),
    ),
    (9, Binary),
];
const COLUMN_META_DATA: &[(i16, Kind)] = &[
    (1, Int),
    (2, List(&Int)),
    (3, List(&Binary)),
    (4, Int),
    (5, Int),
    (6, Int),
    (7, Int),
    (8, List(&Struct(KEY_VALUE))),
    (9, Int),
    (10, Int),
    (11, Int),
    (12, Struct(STATISTICS)),
    (13, List(&Struct(&[(1, Int), (2, Int), (3, Int)]))),
    (14, Int),
    (15, Int),
    (16, Struct(&[(1, Int), (2, List(&Int)), (3, List(&Int))])),
    (17, Struct(&[(1, Struct(BOUNDING_BOX)), (2, List(&Int))])),
];
const STATISTICS: &[(i16, Kind)] = &[
    (1, Binary),
    (2, Binary),
    (3, Int),
    (4, Int),
    (5, Binary),
    (6, Binary),
    (7, Bool),
    (8, Bool),
];
const BOUNDING_BOX: &[(i16, Kind)] = &[
    (1, Double),
    (2, Double),
    (3, Double),
    (4, Double),
    (5, Double),
    (6, Double),
    (7, Double),
    (8, Double),
];

impl Kind {
    /// The kind, for errors.
    fn name(self) -> &'static str {
        match self {
            Int | Children => "an integer",
            Byte => "a byte",
            Bool => "a boolean",
            Double => "a double",
            Binary => "a binary",
            List(_) => "a list",
            Struct(_) => "a struct",
        }
    }

    /// Whether a header's declared compact type is this kind's.
    fn declared_as(self, declared: u8) -> bool {
        match self {
            Int | Children => matches!(declared, 4..=6),
            Byte => declared == 3,
            Bool => matches!(declared, BOOL_TRUE | BOOL_FALSE),
            Double => declared == 7,
            Binary => declared == 8,
            List(_) => matches!(declared, 9 | 10),
            Struct(_) => declared == STRUCT,
        }
    }
}

/// A cursor over compact-protocol Thrift.
struct Walk<'a> {
    buf: &'a [u8],
    at: usize,
    /// Booleans skipped in lists, sets and maps so far (they take no byte in the crate's
    /// skip): at most one per byte of `buf`.
    free_elements: u64,
    /// Field headers to write again (see [`repair_footer`]), in order.
    renumbered: Vec<Renumbered>,
    /// Whether a known field declared with another type is renumbered (the footer) rather
    /// than an error (a page header).
    renumber: bool,
    /// The length of the innermost known list being walked (what a `Children` may count).
    list_len: u64,
}

impl<'a> Walk<'a> {
    fn new(buf: &'a [u8]) -> Walk<'a> {
        Walk {
            buf,
            at: 0,
            free_elements: 0,
            renumbered: Vec::new(),
            renumber: true,
            list_len: 0,
        }
    }

    /// A struct's fields up to its stop: those `fields` lists read as their kind (their
    /// declared type checked), the others skipped as declared (`None`: all skipped).
    fn structure(
        &mut self,
        fields: Option<&'static [(i16, Kind)]>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        let (mut id, mut after_renumbered) = (0i64, false);
        loop {
            let at = self.at;
            let header = self.byte()?;
            if header == 0 {
                return Ok(());
            }
            id = match header >> 4 {
                0 => unzigzag(self.varint()?),
                delta => id + i64::from(delta),
            };
            let declared = header & 0x0f;
            let known = fields.and_then(|f| f.iter().find(|(field, _)| i64::from(*field) == id));
            let renumber = match known {
                Some(&(_, kind)) if !kind.declared_as(declared) && !self.renumber => {
                    return Err(format!(
                        "field {id} declared of Thrift type {declared}, which the format has \
                         as {}",
                        kind.name()
                    ));
                }
                Some(&(_, kind)) if !kind.declared_as(declared) => Some(UNKNOWN_FIELD),
                // A delta from the field before, which is renumbered: written in full.
                _ if after_renumbered => Some(id),
                _ => None,
            };
            if let Some(new_id) = renumber {
                self.renumbered.push(Renumbered {
                    at,
                    len: self.at - at,
                    declared,
                    id: new_id,
                });
            }
            after_renumbered = renumber == Some(UNKNOWN_FIELD);
            match known {
                Some(&(_, kind)) if kind.declared_as(declared) => {
                    self.typed(declared, kind, depth + 1)?
                }
                _ => self.value(declared, false, depth + 1)?,
            }
        }
    }

    /// A known field's value, declared `declared` (the caller checked it is `kind`'s type),
    /// read as `kind`.
    fn typed(&mut self, declared: u8, kind: Kind, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        match kind {
            Struct(fields) => self.structure(Some(fields), depth),
            List(element) => {
                let header = self.byte()?;
                // The crate reads a 0 header as an empty list of any type.
                if header == 0 {
                    return Ok(());
                }
                let declared = header & 0x0f;
                if !element.declared_as(declared) {
                    return Err(format!(
                        "list elements declared of Thrift type {declared}, which the format \
                         has as {}",
                        element.name()
                    ));
                }
                let count = self.count(header)?;
                self.elements(count, 1)?;
                let outer = std::mem::replace(&mut self.list_len, count);
                for _ in 0..count {
                    self.typed(declared, *element, depth + 1)?;
                }
                self.list_len = outer;
                Ok(())
            }
            Children => {
                let children = unzigzag(self.varint()?);
                if children < 0 || children as u64 > self.list_len {
                    return Err(format!(
                        "num_children {children} in a schema of {} elements",
                        self.list_len
                    ));
                }
                Ok(())
            }
            // A boolean field's value is in its header.
            Bool => Ok(()),
            Int | Byte | Double | Binary => self.value(declared, false, depth),
        }
    }

    /// A list or set header's element count (after its header byte).
    fn count(&mut self, header: u8) -> Result<u64, String> {
        match header >> 4 {
            15 => self.varint(),
            small => Ok(u64::from(small)),
        }
    }

    /// `n` booleans the crate skips without reading a byte.
    fn free(&mut self, n: u64) -> Result<(), String> {
        self.free_elements = self.free_elements.saturating_add(n);
        if self.free_elements > self.buf.len() as u64 {
            return Err(format!(
                "{} booleans in lists, sets or maps of {} bytes",
                self.free_elements,
                self.buf.len()
            ));
        }
        Ok(())
    }
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
            // As the crate skips it: no byte, even as an element.
            BOOL_TRUE | BOOL_FALSE => {
                if element {
                    self.free(1)?;
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
                // The crate reads a 0 header as an empty list of any type.
                if header == 0 {
                    return Ok(());
                }
                let count = self.count(header)?;
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
            STRUCT => self.structure(None, depth)?,
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

    #[test]
    fn page_sizes_are_read_from_each_header_until_one_cannot_be() {
        let walk = |chunk: &[u8]| {
            let chunk = Bytes::copy_from_slice(chunk);
            page_sizes(chunk.len() as u64, |at, n| {
                Ok(chunk.slice(at as usize..(at as usize + n).min(chunk.len())))
            })
        };
        let sizes = |chunk: &[u8]| walk(chunk).unwrap();
        let mut chunk = page(100, 3);
        chunk.extend(page(2_000_000_000, 7));
        assert_eq!(sizes(&chunk), [100, 2_000_000_000]);
        // A header cut short by the chunk's end: an error.
        let mut cut = page(100, 3);
        cut.extend(&page(50, 2)[..3]);
        let e = walk(&cut).unwrap_err().to_string();
        assert!(e.contains("it ends early"), "{e}");
        // A header the parquet crate would loop on (field 20, unknown: a list of 2^31 - 1
        // booleans), and one whose known field 5 (the data page header) is declared an i32:
        // errors.
        let mut hostile = page(100, 3);
        hostile.extend([0x15, 0x00, 0x15, 0x04, 0x15, 0x00, 0x09, 0x28, 0xF1]);
        hostile.extend([0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00]);
        let e = walk(&hostile).unwrap_err().to_string();
        assert!(e.contains("2147483647 elements declared"), "{e}");
        let mut mistyped = page(100, 3);
        mistyped.extend([0x15, 0x00, 0x15, 0x04, 0x15, 0x00, 0x25, 0x02, 0x00, 0, 0]);
        let e = walk(&mistyped).unwrap_err().to_string();
        assert!(e.contains("field 5 declared of Thrift type 5"), "{e}");
        // A negative size: the walk stops there (the parquet crate reports it).
        let mut negative = page(100, 3);
        negative.extend(page(-5, 2));
        assert_eq!(sizes(&negative), [100]);
    }

    #[test]
    fn page_starts_are_found_with_small_reads_after_large_pages() {
        // Reads of the walk: (offset, bytes asked for).
        let walk = |chunk: &[u8]| {
            let chunk = Bytes::copy_from_slice(chunk);
            let mut reads = Vec::new();
            let starts = page_starts(chunk.len() as u64, |at, n| {
                reads.push((at, n));
                Ok(chunk.slice(at as usize..(at as usize + n).min(chunk.len())))
            })
            .unwrap();
            (starts, reads)
        };
        // Pages of 80 000 bytes (pyarrow's of 20 000 INT32s): a 4 KiB read a header.
        let mut chunk = Vec::new();
        let mut expected = Vec::new();
        for _ in 0..5 {
            expected.push(chunk.len() as u64);
            chunk.extend(page(80_000, 80_000));
        }
        let (starts, reads) = walk(&chunk);
        assert_eq!(starts, expected);
        assert_eq!(reads.len(), 5);
        assert!(reads.iter().all(|&(_, n)| n == 4 << 10), "{reads:?}");
        // Pages of 20 bytes: after the first, 64 KiB reads of many headers each.
        let mut chunk = Vec::new();
        for _ in 0..10_000 {
            chunk.extend(page(20, 20));
        }
        let (starts, reads) = walk(&chunk);
        assert_eq!(starts.len(), 10_000);
        assert!(
            reads.len() <= 2 + chunk.len() / (60 << 10),
            "{} reads",
            reads.len()
        );
    }

    #[test]
    fn lists_claiming_more_elements_than_bytes_are_refused() {
        // Field 20 (unknown: skipped), a list (type 9) of booleans (type 1) with 2^31 - 1
        // elements, then stop.
        let hostile = [0x09, 0x28, 0xF1, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00];
        let e = repair_footer(&file(&hostile)).unwrap_err().to_string();
        assert!(e.contains("2147483647 elements declared"), "{e}");
        // Unknown fields as the crate skips them: a list<bool> of 3 (no byte for the
        // booleans), a map<i32, byte> of 1, a binary, a struct { bool true }; then the known
        // field 6 (created_by, a binary): valid.
        let valid = [
            0x09, 0x28, 0x31, // field 20: list<bool> of 3
            0x1B, 0x01, 0x53, 7, 42, // field 21: map<i32, byte> of 1: key 7, value 42
            0x18, 0x02, b'h', b'i', // field 22: binary "hi"
            0x1C, 0x11, 0x00, // field 23: struct { bool true }
            0x08, 0x0C, 0x01, b'x', // field 6: binary "x"
            0x00,
        ];
        assert!(matches!(
            repair_footer(&file(&valid)).unwrap(),
            Footer::AsIs(_)
        ));
        // Many short lists of booleans: each within its bytes, but past one boolean per byte
        // in all.
        let mut many = Vec::new();
        for _ in 0..100 {
            many.extend([0x09, 0x28, 0xE1]); // field 20: list<bool> of 14
        }
        many.push(0x00);
        let e = repair_footer(&file(&many)).unwrap_err().to_string();
        assert!(e.contains("booleans in lists"), "{e}");
        // Nesting past the limit (unknown fields: structs in structs).
        let mut deep = vec![0x09, 0x2C];
        deep.extend(vec![0x1C; MAX_DEPTH + 2]);
        deep.extend(vec![0; MAX_DEPTH + 4]);
        let e = repair_footer(&file(&deep)).unwrap_err().to_string();
        assert!(e.contains("nested deeper"), "{e}");
    }

    #[test]
    fn a_schema_element_counting_more_children_than_the_schema_has_is_refused() {
        // Version 1, then a schema of one element whose num_children (field 5, an i32) is
        // 2^30: the crate would allocate room for 2^30 children (a file found by the
        // `reader` fuzz target asked for 6.4 GB).
        let huge = [
            0x15, 0x02, 0x19, 0x1C, 0x55, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x00,
        ];
        let e = repair_footer(&file(&huge)).unwrap_err().to_string();
        assert!(
            e.contains("num_children 1073741824 in a schema of 1"),
            "{e}"
        );
        let negative = [0x15, 0x02, 0x19, 0x1C, 0x55, 0x01, 0x00, 0x00];
        let e = repair_footer(&file(&negative)).unwrap_err().to_string();
        assert!(e.contains("num_children -1"), "{e}");
        // As many children as the schema has elements walks clean (the crate judges the tree).
        let bounded = [0x15, 0x02, 0x19, 0x1C, 0x55, 0x02, 0x00, 0x00];
        assert!(matches!(
            repair_footer(&file(&bounded)).unwrap(),
            Footer::AsIs(_)
        ));
    }

    #[test]
    fn known_fields_declared_with_another_type_are_renumbered() {
        // Field 1 (version, i32 1), then field 3 (num_rows, an i64) declared a list of one
        // boolean, then field 6 (created_by, a binary "x", a delta of 3 from field 3): the
        // list is renumbered to the unknown id (long form: type 9, zigzag 32767), and field 6
        // written in full (type 8, zigzag 6).
        let footer = [0x15, 0x02, 0x29, 0x11, 0x38, 0x01, b'x', 0x00];
        let Footer::Repaired(repaired) = repair_footer(&file(&footer)).unwrap() else {
            panic!("a footer to rewrite");
        };
        assert_eq!(
            repaired,
            [0x15, 0x02, 0x09, 0xFE, 0xFF, 0x03, 0x11, 0x08, 0x0C, 0x01, b'x', 0x00]
        );
        // The rewritten footer walks clean, with nothing left to renumber.
        assert!(matches!(
            repair_footer(&file(&repaired)).unwrap(),
            Footer::AsIs(_)
        ));
        // Field 2 (the schema, a list of structs) whose elements are declared i32s: refused
        // (the crate reads the elements as structs whatever the list header says).
        let e = repair_footer(&file(&[0x29, 0x15, 0x02, 0x00]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("list elements declared of Thrift type 5"), "{e}");
        // The same fields as the format has them: version 1 (i32), an empty schema list,
        // num_rows 1 (i64), created_by "x": nothing to rewrite.
        let valid = [0x15, 0x02, 0x19, 0x0C, 0x16, 0x02, 0x38, 0x01, b'x', 0x00];
        let Footer::AsIs(bytes) = repair_footer(&file(&valid)).unwrap() else {
            panic!("a footer as it is");
        };
        assert_eq!(bytes, valid.as_slice());
    }

    #[cfg(feature = "arrow")]
    #[test]
    fn footers_of_real_files_pass() {
        use std::sync::Arc;
        let batch = arrow_array::RecordBatch::try_from_iter([
            (
                "a",
                Arc::new(arrow_array::Int32Array::from(vec![Some(1), None])) as _,
            ),
            (
                "s",
                Arc::new(arrow_array::StringArray::from(vec!["x", "y"])) as _,
            ),
        ])
        .unwrap();
        let mut out = Vec::new();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        assert!(matches!(
            repair_footer(&Bytes::from(out)).unwrap(),
            Footer::AsIs(_)
        ));
    }
}
