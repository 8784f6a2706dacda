//! Pages of a column that is not repeated, decoded as a reader of Arrow arrays wants them:
//! the definition levels straight to validity bits (one per row, set where the value is
//! present) instead of one `i16` per row; booleans straight to bits; PLAIN values of a
//! fixed-width type left where they are in the page (a reader makes them an array without a
//! copy where the page's alignment allows it); the other values as
//! [`ChunkDecoder::decode_page`] gives them.

use std::ops::Range;

use qpl_fallback::parquet::plain::decode_booleans_to_bits;
use qpl_fallback::parquet::validity::decode_validity;
pub use qpl_fallback::parquet::validity::Bits;

use super::PhysicalType;

/// What [`ChunkDecoder::decode_page_for_arrow`] appends a page's rows to (reuse it across
/// pages; take its parts away, or clear it, between pages as needed).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrowPage {
    /// One bit per row of a nullable column: set where the value is present.
    pub validity: Bits,
    /// The non-null values, where [`ValuesAt::Values`] says they went.
    pub values: Values,
    /// BOOLEAN values as bits, where [`ValuesAt::Bits`] says they went.
    pub booleans: Bits,
    /// Leave a BYTE_ARRAY page's values section undecoded when it is PLAIN or
    /// dictionary-encoded ([`ValuesAt::Section`]), for a reader that makes views of the page's
    /// bytes or of its dictionary's (Arrow's Utf8View and BinaryView). Off by default.
    pub byte_array_sections: bool,
    /// Leave a BYTE_ARRAY page's values section undecoded when it is dictionary-encoded
    /// ([`ValuesAt::Section`]), for a reader that keeps the dictionary (Arrow's dictionary
    /// arrays); PLAIN values are decoded. Off by default.
    pub dictionary_sections: bool,
    /// Treat FIXED_LEN_BYTE_ARRAY values as fixed-width: a PLAIN page's values are left in the
    /// page ([`ValuesAt::Page`], each value's bytes as stored) and, with
    /// [`ArrowPage::dictionary_sections`], a dictionary-encoded page's indices undecoded
    /// ([`ValuesAt::Section`]), for a reader that converts them itself (decimals). Off by
    /// default.
    pub fixed_len_byte_arrays_in_page: bool,
    /// Keep a data page's definition levels in [`ArrowPage::def_levels`] as well, for a reader
    /// of a leaf inside nullable structs, whose validity comes from lower levels than the
    /// leaf's. Off by default.
    pub keep_def_levels: bool,
    /// A data page's definition levels, one per row, where [`ArrowPage::keep_def_levels`] is
    /// set and the column has levels (replaced per data page; untouched otherwise).
    pub def_levels: Vec<i16>,
}

impl ArrowPage {
    /// Empty output for a column of `physical_type`.
    pub fn new(physical_type: PhysicalType) -> ArrowPage {
        ArrowPage {
            validity: Bits::new(),
            values: Values::new(physical_type),
            booleans: Bits::new(),
            byte_array_sections: false,
            dictionary_sections: false,
            fixed_len_byte_arrays_in_page: false,
            keep_def_levels: false,
            def_levels: Vec::new(),
        }
    }
}

/// Where a data page's non-null values are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValuesAt {
    /// Appended to [`ArrowPage::values`] (and nothing, for a dictionary page).
    Values,
    /// BOOLEANs, appended to [`ArrowPage::booleans`].
    Bits,
    /// PLAIN values of a fixed-width type (INT32, INT64, FLOAT, DOUBLE, little-endian; and
    /// FIXED_LEN_BYTE_ARRAY where [`ArrowPage::fixed_len_byte_arrays_in_page`] asks for it):
    /// these bytes of the page's `buf` (checked to hold them all).
    Page(Range<usize>),
    /// The values section of a BYTE_ARRAY page, undecoded (where
    /// [`ArrowPage::byte_array_sections`] or [`ArrowPage::dictionary_sections`] asks for it):
    /// these bytes of the page's `buf`, PLAIN byte arrays or dictionary indices as the page's
    /// encoding says, not checked yet.
    Section(Range<usize>),
}

use super::compressed::Section;
use super::{
    level_width, v2_levels, ChunkDecoder, Encoding, Page, PageError, PagePart, PageReport, Values,
};
use crate::Path;

/// A data page's parts, as split from its header fields.
pub(super) struct PageParts<'a> {
    /// The page body.
    pub buf: &'a [u8],
    /// The definition levels' encoding and bytes (`None`: a required column).
    pub def: Option<(Encoding, &'a [u8])>,
    /// The values section.
    pub section: &'a [u8],
    /// Levels (rows) in the page.
    pub num_values: u32,
    /// A v2 header's null count.
    pub num_nulls: Option<u32>,
    /// The values' encoding.
    pub encoding: Encoding,
}

/// A v2 header's `num_values - num_nulls` against the values the definition levels say are
/// present.
pub(super) fn check_num_nulls(
    num_values: u32,
    num_nulls: Option<u32>,
    present: usize,
) -> Result<(), PageError> {
    let Some(nulls) = num_nulls else {
        return Ok(());
    };
    let from_header = num_values.checked_sub(nulls).ok_or_else(|| {
        PageError::invalid(
            PagePart::Page,
            None,
            format!("num_nulls {nulls} is above num_values {num_values}"),
        )
    })?;
    if from_header as usize != present {
        return Err(PageError::invalid(
            PagePart::Page,
            None,
            format!(
                "num_values {num_values} - num_nulls {nulls} = {from_header} values, but the \
                 definition levels say {present}"
            ),
        ));
    }
    Ok(())
}

/// Where a data page goes.
struct Out<'o> {
    validity: &'o mut Bits,
    values: &'o mut Values,
    booleans: Option<&'o mut Bits>,
    /// [`ArrowPage::byte_array_sections`].
    byte_array_sections: bool,
    /// [`ArrowPage::dictionary_sections`].
    dictionary_sections: bool,
    /// [`ArrowPage::fixed_len_byte_arrays_in_page`].
    fixed_len_in_page: bool,
    /// [`ArrowPage::def_levels`], where [`ArrowPage::keep_def_levels`] is set.
    def_levels: Option<&'o mut Vec<i16>>,
}

pub(crate) use qpl_fallback::parquet::validity::{level_word, LevelTest};

/// Appends a bit per level of `levels`, set where it is `max`; how many are.
fn push_at_max(bits: &mut Bits, levels: &[i16], max: i16) -> usize {
    let mut present = 0;
    let mut rest = levels;
    if bits.len.is_multiple_of(8) {
        // 64 levels to a word (a loop the compiler vectorises) while the bitmap ends on a
        // byte.
        let mut chunks = levels.chunks_exact(64);
        bits.bytes.reserve(levels.len() / 8 + 1);
        for chunk in &mut chunks {
            let word = level_word(chunk, LevelTest::Equal(max));
            present += word.count_ones() as usize;
            bits.bytes.extend_from_slice(&word.to_le_bytes());
        }
        bits.len += levels.len() - chunks.remainder().len();
        rest = chunks.remainder();
    }
    for &level in rest {
        bits.push(level == max);
        present += usize::from(level == max);
    }
    present
}

/// The hybrid runs of an RLE values section (booleans), after its 4-byte length.
fn rle_body(section: &[u8]) -> Result<&[u8], qpl_fallback::parquet::ParquetError> {
    let truncated = |m: String| qpl_fallback::parquet::ParquetError::truncated("RLE", m);
    let Some((prefix, rest)) = section.split_first_chunk::<4>() else {
        return Err(truncated(format!(
            "the 4-byte length is missing: the values section has {} bytes",
            section.len()
        )));
    };
    let len = u32::from_le_bytes(*prefix) as usize;
    rest.get(..len).ok_or_else(|| {
        truncated(format!(
            "the length prefix says {len} bytes, but {} follow",
            rest.len()
        ))
    })
}

impl ChunkDecoder {
    /// Decodes `page` of a column whose `max_rep_level` is 0: for a data page, one bit per
    /// row is appended to `validity` (set where the row's value is present; nothing is
    /// appended for a required column, whose rows all are), and the non-null values to
    /// `values`; a dictionary page is kept, as [`ChunkDecoder::decode_page`] keeps it. On
    /// error, `validity` and `values` are left as they were.
    pub fn decode_page_validity(
        &mut self,
        page: &Page<'_>,
        validity: &mut Bits,
        values: &mut Values,
    ) -> Result<PageReport, PageError> {
        let out = Out {
            validity,
            values,
            booleans: None,
            byte_array_sections: false,
            dictionary_sections: false,
            fixed_len_in_page: false,
            def_levels: None,
        };
        self.decode_validity_checked(page, out)
            .map(|(report, _)| report)
    }

    /// [`ChunkDecoder::decode_page_validity`], with booleans appended as bits to
    /// `out.booleans` and PLAIN fixed-width values left in the page: [`ValuesAt`] says where
    /// the values are. On error, `out` is left as it was.
    pub fn decode_page_for_arrow(
        &mut self,
        page: &Page<'_>,
        out: &mut ArrowPage,
    ) -> Result<(PageReport, ValuesAt), PageError> {
        let booleans_before = out.booleans.len;
        let result = self.decode_validity_checked(
            page,
            Out {
                validity: &mut out.validity,
                values: &mut out.values,
                booleans: Some(&mut out.booleans),
                byte_array_sections: out.byte_array_sections,
                dictionary_sections: out.dictionary_sections,
                fixed_len_in_page: out.fixed_len_byte_arrays_in_page,
                def_levels: out.keep_def_levels.then_some(&mut out.def_levels),
            },
        );
        if result.is_err() {
            out.booleans.truncate(booleans_before);
        }
        result
    }

    fn decode_validity_checked(
        &mut self,
        page: &Page<'_>,
        mut out: Out<'_>,
    ) -> Result<(PageReport, ValuesAt), PageError> {
        let column = self.column;
        if column.max_rep_level != 0 {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                "validity bits are for columns that are not repeated (use decode_page)",
            ));
        }
        if !out.values.holds(column.physical_type) || column.max_def_level < 0 {
            return Err(PageError::invalid(
                PagePart::Values,
                None,
                format!(
                    "the output holds other values than the column's {}",
                    column.physical_type.name()
                ),
            ));
        }
        let before = (out.validity.len, out.values.len());
        let result = self.decode_validity_parts(page, &mut out);
        if result.is_err() {
            out.validity.truncate(before.0);
            out.values.truncate(before.1);
        }
        result
    }

    fn decode_validity_parts(
        &mut self,
        page: &Page<'_>,
        out: &mut Out<'_>,
    ) -> Result<(PageReport, ValuesAt), PageError> {
        if let Page::Dictionary {
            buf,
            num_values,
            encoding,
        } = *page
        {
            return self
                .decode_dictionary_page(buf, num_values, encoding)
                .map(|report| (report, ValuesAt::Values));
        }
        match self.split_flat_page(page)? {
            Some(parts) => self.decode_validity_page(parts, out),
            None => Err(PageError::invalid(PagePart::Page, None, "not a data page")),
        }
    }

    /// A data page of a column that is not repeated, taken apart (`None`: a dictionary page).
    /// A v2 page's repetition level bytes, if a writer put any, are skipped (`v2_levels`).
    pub(super) fn split_flat_page<'a>(
        &self,
        page: &Page<'a>,
    ) -> Result<Option<PageParts<'a>>, PageError> {
        let max_def = self.column.max_def_level;
        Ok(Some(match *page {
            Page::Dictionary { .. } => return Ok(None),
            Page::V1 {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                ..
            } => {
                let mut rest = buf;
                let def = self.split_v1_levels(
                    &mut rest,
                    PagePart::DefLevels,
                    max_def,
                    def_level_encoding,
                    num_values,
                )?;
                PageParts {
                    buf,
                    def,
                    section: rest,
                    num_values,
                    num_nulls: None,
                    encoding,
                }
            }
            Page::V2 {
                buf,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            } => {
                let (_, def) =
                    super::v2_level_ranges(buf.len(), rep_levels_byte_len, def_levels_byte_len)?;
                let (def, section) = (&buf[def.clone()], &buf[def.end..]);
                PageParts {
                    buf,
                    def: v2_levels(def, max_def),
                    section,
                    num_values,
                    num_nulls: Some(num_nulls),
                    encoding,
                }
            }
        }))
    }

    fn decode_validity_page(
        &mut self,
        page: PageParts<'_>,
        out: &mut Out<'_>,
    ) -> Result<(PageReport, ValuesAt), PageError> {
        let PageParts {
            buf,
            def,
            section,
            num_values,
            num_nulls,
            encoding,
        } = page;
        let Out {
            validity,
            values,
            booleans,
            byte_array_sections,
            dictionary_sections,
            fixed_len_in_page,
            def_levels,
        } = out;
        let (byte_array_sections, dictionary_sections) =
            (*byte_array_sections, *dictionary_sections);
        let n = num_values as usize;
        let limit = self.executor.config().max_output_bytes as u64;
        if u64::from(num_values) / 8 > limit {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                format!(
                    "num_values {num_values}: its validity would take more than this \
                     executor's limit of {limit} bytes (Config::max_output_bytes)"
                ),
            ));
        }
        let max = self.column.max_def_level;
        let (def_levels_path, present) = match def {
            None => (None, n),
            Some((Encoding::Rle, bytes)) if !self.use_jobs && def_levels.is_none() => {
                let width = level_width(max);
                let present = decode_validity(bytes, width, n, max as u32, validity)
                    .map_err(|e| PageError::codec(PagePart::DefLevels, Encoding::Rle, e))?;
                (Some(Path::Fallback), present)
            }
            // On a job path (or BIT_PACKED levels, or levels kept): the levels as decode_page
            // decodes them, then packed into bits.
            Some((level_encoding, bytes)) => {
                let mut own = Vec::new();
                let levels = match def_levels.as_deref_mut() {
                    Some(kept) => {
                        kept.clear();
                        kept
                    }
                    None => &mut own,
                };
                let path =
                    self.decode_levels(PagePart::DefLevels, level_encoding, bytes, max, n, levels)?;
                (Some(path), push_at_max(validity, levels, max))
            }
        };
        check_num_nulls(num_values, num_nulls, present)?;
        let report = |values_path| PageReport {
            levels: n,
            values: present,
            def_levels_path,
            rep_levels_path: None,
            values_path,
            inflate: None,
        };
        let width = in_page_width(self.column.physical_type, *fixed_len_in_page).unwrap_or(0);
        if encoding == Encoding::Plain
            && width > 0
            && cfg!(target_endian = "little")
            && booleans.is_some()
        {
            let bytes = present.checked_mul(width).filter(|&b| b <= section.len());
            let Some(bytes) = bytes else {
                return Err(PageError::invalid(
                    PagePart::Values,
                    Some(encoding),
                    format!(
                        "{present} values of {width} bytes, but the values section holds {}",
                        section.len()
                    ),
                ));
            };
            // `section` is a part of `buf`: its place there.
            let start = section.as_ptr() as usize - buf.as_ptr() as usize;
            return Ok((report(None), ValuesAt::Page(start..start + bytes)));
        }
        let undecoded = match encoding {
            Encoding::Plain => byte_array_sections,
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                byte_array_sections || dictionary_sections
            }
            _ => false,
        };
        // Dictionary indices of fixed-width values too, for a reader that gathers them into
        // batches of its own.
        let fixed_indices = dictionary_sections && width > 0 && encoding.is_dictionary();
        if (undecoded && self.column.physical_type == PhysicalType::ByteArray) || fixed_indices {
            // `section` is a part of `buf`: its place there.
            let start = section.as_ptr() as usize - buf.as_ptr() as usize;
            return Ok((
                report(None),
                ValuesAt::Section(start..start + section.len()),
            ));
        }
        if let (PhysicalType::Boolean, Some(bits)) = (self.column.physical_type, booleans) {
            let codec = |e| PageError::codec(PagePart::Values, encoding, e);
            match encoding {
                Encoding::Plain => {
                    decode_booleans_to_bits(section, present, &mut bits.bytes, &mut bits.len)
                        .map_err(codec)?;
                    return Ok((report(None), ValuesAt::Bits));
                }
                Encoding::Rle if !self.use_jobs => {
                    let body = rle_body(section).map_err(codec)?;
                    decode_validity(body, 1, present, 1, bits).map_err(codec)?;
                    return Ok((report(Some(Path::Fallback)), ValuesAt::Bits));
                }
                _ => {}
            }
        }
        let (values_path, inflate) =
            self.decode_section(encoding, Section::Plain(section), present, values)?;
        Ok((
            PageReport {
                inflate,
                ..report(values_path)
            },
            ValuesAt::Values,
        ))
    }
}

/// The bytes of a PLAIN value a page's values can be left in place for ([`ValuesAt::Page`]):
/// INT32, FLOAT, INT64, DOUBLE, and FIXED_LEN_BYTE_ARRAY's length where `fixed_len` (see
/// [`ArrowPage::fixed_len_byte_arrays_in_page`]); `None` for the others.
pub(crate) fn in_page_width(physical_type: PhysicalType, fixed_len: bool) -> Option<usize> {
    match physical_type {
        PhysicalType::Int32 | PhysicalType::Float => Some(4),
        PhysicalType::Int64 | PhysicalType::Double => Some(8),
        PhysicalType::FixedLenByteArray(len) if fixed_len && len > 0 => Some(len),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_words_and_bits_match_a_level_at_a_time() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let levels: Vec<i16> = (0..1000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 4) as i16
            })
            .collect();
        for chunk in levels.chunks_exact(64) {
            let word = level_word(chunk, LevelTest::AtLeast(2));
            for (i, &level) in chunk.iter().enumerate() {
                assert_eq!(word >> i & 1 == 1, level >= 2, "bit {i}");
            }
        }
        for start in [0, 3] {
            let mut bits = Bits::new();
            bits.push_n(true, start);
            let present = push_at_max(&mut bits, &levels, 3);
            assert_eq!(present, levels.iter().filter(|&&l| l == 3).count());
            assert_eq!(bits.len, start + levels.len());
            for (i, &level) in levels.iter().enumerate() {
                assert_eq!(bits.get(start + i), level == 3, "row {i}");
            }
        }
    }
}
