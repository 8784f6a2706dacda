//! Pages of a column that is not repeated, decoded as a reader of Arrow arrays wants them:
//! the definition levels straight to validity bits (one per row, set where the value is
//! present) instead of one `i16` per row, the non-null values as [`ChunkDecoder::decode_page`]
//! gives them.

use qpl_fallback::parquet::validity::decode_validity;
pub use qpl_fallback::parquet::validity::Bits;

use super::compressed::Section;
use super::{
    level_width, v2_levels, ChunkDecoder, Encoding, Page, PageError, PagePart, PageReport, Values,
};
use crate::Path;

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
        let column = self.column;
        if column.max_rep_level != 0 {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                "validity bits are for columns that are not repeated (use decode_page)",
            ));
        }
        if !values.holds(column.physical_type) || column.max_def_level < 0 {
            return Err(PageError::invalid(
                PagePart::Values,
                None,
                format!(
                    "the output holds other values than the column's {}",
                    column.physical_type.name()
                ),
            ));
        }
        let before = (validity.len, values.len());
        let result = self.decode_validity_parts(page, validity, values);
        if result.is_err() {
            validity.truncate(before.0);
            values.truncate(before.1);
        }
        result
    }

    fn decode_validity_parts(
        &mut self,
        page: &Page<'_>,
        validity: &mut Bits,
        values: &mut Values,
    ) -> Result<PageReport, PageError> {
        let max_def = self.column.max_def_level;
        match *page {
            Page::Dictionary {
                buf,
                num_values,
                encoding,
            } => self.decode_dictionary_page(buf, num_values, encoding),
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
                let section = Section::Plain(rest);
                self.decode_validity_page(
                    def, section, num_values, None, encoding, validity, values,
                )
            }
            Page::V2 {
                buf,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            } => {
                let (rep_len, def_len) =
                    (rep_levels_byte_len as usize, def_levels_byte_len as usize);
                if rep_len.saturating_add(def_len) > buf.len() {
                    return Err(PageError::invalid(
                        PagePart::Page,
                        None,
                        format!(
                            "rep_levels_byte_len {rep_len} + def_levels_byte_len {def_len} \
                             pass the page's {} bytes",
                            buf.len()
                        ),
                    ));
                }
                let (rep, rest) = buf.split_at(rep_len);
                let (def, section) = rest.split_at(def_len);
                v2_levels(PagePart::RepLevels, rep, 0, "rep_levels_byte_len")?;
                let def = v2_levels(PagePart::DefLevels, def, max_def, "def_levels_byte_len")?;
                let section = Section::Plain(section);
                self.decode_validity_page(
                    def,
                    section,
                    num_values,
                    Some(num_nulls),
                    encoding,
                    validity,
                    values,
                )
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn decode_validity_page(
        &mut self,
        def: Option<(Encoding, &[u8])>,
        section: Section<'_>,
        num_values: u32,
        num_nulls: Option<u32>,
        encoding: Encoding,
        validity: &mut Bits,
        values: &mut Values,
    ) -> Result<PageReport, PageError> {
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
            Some((Encoding::Rle, bytes)) if !self.use_jobs => {
                let width = level_width(max);
                let present = decode_validity(bytes, width, n, max as u32, validity)
                    .map_err(|e| PageError::codec(PagePart::DefLevels, Encoding::Rle, e))?;
                (Some(Path::Fallback), present)
            }
            // On a job path (or BIT_PACKED levels): the levels as decode_page decodes them,
            // then packed into bits.
            Some((level_encoding, bytes)) => {
                let mut levels = Vec::new();
                let path = self.decode_levels(
                    PagePart::DefLevels,
                    level_encoding,
                    bytes,
                    max,
                    n,
                    &mut levels,
                )?;
                let mut present = 0;
                for &level in &levels {
                    validity.push(level == max);
                    present += usize::from(level == max);
                }
                (Some(path), present)
            }
        };
        if let Some(nulls) = num_nulls {
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
                        "num_values {num_values} - num_nulls {nulls} = {from_header} values, \
                         but the definition levels say {present}"
                    ),
                ));
            }
        }
        let (values_path, inflate) = self.decode_section(encoding, section, present, values)?;
        Ok(PageReport {
            levels: n,
            values: present,
            def_levels_path,
            rep_levels_path: None,
            values_path,
            inflate,
        })
    }
}
