//! The page layer against arrow-rs's column reader (issue 30): `qpl_rs::parquet::ChunkDecoder`
//! decoding the data pages of one column chunk held in memory (decompressed, v1), and the
//! parquet crate's typed column reader (`get_typed_column_reader`, `read_records` in batches of
//! 8192 into buffers it reuses) reading the same pages, as `qpl-parquet bench` does.
//!
//! Not criterion: the two sides are timed alternately, one chunk each in turn, so that a noisy
//! machine slows both alike, and the medians and their ratio come from the same run. Cases
//! are the paths a file reader meets: PLAIN fixed-width values (required, and nullable with
//! 10% nulls), PLAIN BOOLEAN, dictionary pages with a 100k-entry INT32/DOUBLE dictionary,
//! PLAIN and dictionary byte arrays. `memcpy` is a copy of the chunk's value bytes into a
//! buffer of the same reuse, the floor for PLAIN.
//!
//! `cargo bench -p qpl-benches --bench page_layer [-- FILTER]`; environment
//! `QPL_PAGE_LAYER_RUNS` (default 41 timed runs per side). Before timing, both sides' levels
//! and values are checked to agree.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use parquet::basic::{Encoding as CrateEncoding, Repetition, Type as CrateType};
use parquet::column::page::{Page as CratePage, PageMetadata, PageReader};
use parquet::column::reader::{get_column_reader, get_typed_column_reader};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int32Type, Int64Type,
};
use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type};
use qpl_fallback::parquet::{dictionary, hybrid, plain};
use qpl_rs::parquet::{ChunkDecoder, Column, ColumnData, Encoding, Page, PhysicalType, Values};
use qpl_rs::Path;

/// A [`PageReader`] over pages in memory.
struct MemoryPages(std::vec::IntoIter<CratePage>);

impl Iterator for MemoryPages {
    type Item = parquet::errors::Result<CratePage>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(Ok)
    }
}

impl PageReader for MemoryPages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<CratePage>> {
        Ok(self.0.next())
    }
    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        Ok(self.0.as_slice().first().map(|page| PageMetadata {
            num_rows: None,
            num_levels: Some(page.num_values() as usize),
            is_dict: matches!(page, CratePage::DictionaryPage { .. }),
        }))
    }
    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        self.0.next();
        Ok(())
    }
}

/// xorshift64*.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One chunk: the dictionary page (if any) and the data pages, as both sides read them.
struct Case {
    name: &'static str,
    column: Column,
    crate_type: CrateType,
    /// (body, num_values, encoding) per page; the dictionary page first when there is one.
    dictionary: Option<(Vec<u8>, u32)>,
    pages: Vec<(Vec<u8>, u32, Encoding)>,
    /// Bytes of values the chunk decodes to (for the memcpy floor: PLAIN fixed-width only).
    memcpy: Option<usize>,
}

const PAGES: usize = 8;

/// Definition levels (max 1) with `null_percent` nulls, as a v1 RLE section (length prefix).
fn def_levels(rng: &mut Rng, n: usize, null_percent: u64) -> (Vec<u8>, usize) {
    let levels: Vec<u32> = (0..n)
        .map(|_| u32::from(rng.below(100) >= null_percent))
        .collect();
    let mut out = Vec::new();
    hybrid::encode_with_length_prefix(&levels, 1, &mut out).unwrap();
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_le_bytes());
    (out, levels.iter().filter(|&&l| l == 1).count())
}

fn column(physical_type: PhysicalType, nullable: bool) -> Column {
    Column {
        physical_type,
        max_def_level: i16::from(nullable),
        max_rep_level: 0,
    }
}

/// PLAIN pages of `per_page` values each from `value`, optionally nullable.
fn plain_case(
    name: &'static str,
    physical_type: PhysicalType,
    crate_type: CrateType,
    per_page: usize,
    null_percent: Option<u64>,
    size: usize,
    mut encode: impl FnMut(&mut Rng, usize, &mut Vec<u8>),
) -> Case {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let mut pages = Vec::new();
    let mut bytes = 0;
    for _ in 0..PAGES {
        let mut body = Vec::new();
        let present = match null_percent {
            Some(p) => {
                let (levels, present) = def_levels(&mut rng, per_page, p);
                body.extend_from_slice(&levels);
                present
            }
            None => per_page,
        };
        encode(&mut rng, present, &mut body);
        bytes += present * size;
        pages.push((body, per_page as u32, Encoding::Plain));
    }
    Case {
        name,
        column: column(physical_type, null_percent.is_some()),
        crate_type,
        dictionary: None,
        pages,
        memcpy: (size > 0).then_some(bytes),
    }
}

/// Dictionary pages: `entries` PLAIN entries, `per_page` random indices per page.
fn dict_case(
    name: &'static str,
    physical_type: PhysicalType,
    crate_type: CrateType,
    entries: usize,
    per_page: usize,
    null_percent: Option<u64>,
    dictionary_body: Vec<u8>,
) -> Case {
    let mut rng = Rng(0x1234_5678_9abc_def1 ^ name.len() as u64);
    let mut pages = Vec::new();
    for _ in 0..PAGES {
        let mut body = Vec::new();
        let present = match null_percent {
            Some(p) => {
                let (levels, present) = def_levels(&mut rng, per_page, p);
                body.extend_from_slice(&levels);
                present
            }
            None => per_page,
        };
        let indices: Vec<u32> = (0..present)
            .map(|_| rng.below(entries as u64) as u32)
            .collect();
        dictionary::encode_indices(&indices, entries, &mut body).unwrap();
        pages.push((body, per_page as u32, Encoding::RleDictionary));
    }
    Case {
        name,
        column: column(physical_type, null_percent.is_some()),
        crate_type,
        dictionary: Some((dictionary_body, entries as u32)),
        pages,
        memcpy: None,
    }
}

fn strings(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = 4 + rng.below(17) as usize;
            (0..len).map(|_| b'a' + rng.below(26) as u8).collect()
        })
        .collect()
}

fn cases() -> Vec<Case> {
    let mut out = vec![
        plain_case(
            "plain_i64",
            PhysicalType::Int64,
            CrateType::INT64,
            131_072,
            None,
            8,
            |rng, n, body| {
                let v: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
                plain::encode(&v, body)
            },
        ),
        plain_case(
            "plain_i64_nullable",
            PhysicalType::Int64,
            CrateType::INT64,
            131_072,
            Some(10),
            8,
            |rng, n, body| {
                let v: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
                plain::encode(&v, body)
            },
        ),
        plain_case(
            "plain_i32",
            PhysicalType::Int32,
            CrateType::INT32,
            262_144,
            None,
            4,
            |rng, n, body| {
                let v: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
                plain::encode(&v, body)
            },
        ),
        plain_case(
            "plain_f64_nullable",
            PhysicalType::Double,
            CrateType::DOUBLE,
            131_072,
            Some(10),
            8,
            |rng, n, body| {
                let v: Vec<f64> = (0..n).map(|_| rng.next() as f64).collect();
                plain::encode(&v, body)
            },
        ),
        plain_case(
            "plain_bool",
            PhysicalType::Boolean,
            CrateType::BOOLEAN,
            1_048_576,
            None,
            0,
            |rng, n, body| {
                let v: Vec<bool> = (0..n).map(|_| rng.next() & 1 == 1).collect();
                plain::encode_booleans(&v, body)
            },
        ),
        plain_case(
            "plain_bool_nullable",
            PhysicalType::Boolean,
            CrateType::BOOLEAN,
            1_048_576,
            Some(10),
            0,
            |rng, n, body| {
                let v: Vec<bool> = (0..n).map(|_| rng.next() & 1 == 1).collect();
                plain::encode_booleans(&v, body)
            },
        ),
        plain_case(
            "plain_bytes",
            PhysicalType::ByteArray,
            CrateType::BYTE_ARRAY,
            65_536,
            None,
            0,
            |rng, n, body| {
                let v = strings(rng, n);
                plain::encode_byte_arrays(v.iter().map(|s| s.as_slice()), body).unwrap()
            },
        ),
    ];
    let mut rng = Rng(42);
    let entries = 100_000;
    let d: Vec<i32> = (0..entries).map(|_| rng.next() as i32).collect();
    let mut body = Vec::new();
    plain::encode(&d, &mut body);
    out.push(dict_case(
        "dict_i32_100k",
        PhysicalType::Int32,
        CrateType::INT32,
        entries,
        131_072,
        None,
        body.clone(),
    ));
    out.push(dict_case(
        "dict_i32_100k_nullable",
        PhysicalType::Int32,
        CrateType::INT32,
        entries,
        131_072,
        Some(10),
        body,
    ));
    let d: Vec<f64> = (0..entries).map(|_| rng.next() as f64).collect();
    let mut body = Vec::new();
    plain::encode(&d, &mut body);
    out.push(dict_case(
        "dict_f64_100k",
        PhysicalType::Double,
        CrateType::DOUBLE,
        entries,
        131_072,
        None,
        body,
    ));
    let d: Vec<i32> = (0..1000).map(|_| rng.next() as i32).collect();
    let mut body = Vec::new();
    plain::encode(&d, &mut body);
    out.push(dict_case(
        "dict_i32_1k",
        PhysicalType::Int32,
        CrateType::INT32,
        1000,
        131_072,
        None,
        body,
    ));
    let d = strings(&mut rng, 1000);
    let mut body = Vec::new();
    plain::encode_byte_arrays(d.iter().map(|s| s.as_slice()), &mut body).unwrap();
    out.push(dict_case(
        "dict_bytes_1k",
        PhysicalType::ByteArray,
        CrateType::BYTE_ARRAY,
        1000,
        65_536,
        None,
        body,
    ));
    out
}

impl Case {
    fn ours(&self) -> Vec<Page<'_>> {
        let mut pages = Vec::new();
        if let Some((buf, num_values)) = &self.dictionary {
            pages.push(Page::Dictionary {
                buf,
                num_values: *num_values,
                encoding: Encoding::Plain,
            });
        }
        for (buf, num_values, encoding) in &self.pages {
            pages.push(Page::V1 {
                buf,
                num_values: *num_values,
                encoding: *encoding,
                def_level_encoding: Encoding::Rle,
                rep_level_encoding: Encoding::Rle,
            });
        }
        pages
    }

    fn crate_pages(&self) -> Vec<CratePage> {
        let mut pages = Vec::new();
        if let Some((buf, num_values)) = &self.dictionary {
            pages.push(CratePage::DictionaryPage {
                buf: Bytes::from(buf.clone()),
                num_values: *num_values,
                encoding: CrateEncoding::PLAIN,
                is_sorted: false,
            });
        }
        for (buf, num_values, encoding) in &self.pages {
            pages.push(CratePage::DataPage {
                buf: Bytes::from(buf.clone()),
                num_values: *num_values,
                encoding: match encoding {
                    Encoding::Plain => CrateEncoding::PLAIN,
                    _ => CrateEncoding::RLE_DICTIONARY,
                },
                def_level_encoding: CrateEncoding::RLE,
                rep_level_encoding: CrateEncoding::RLE,
                statistics: None,
            });
        }
        pages
    }

    fn descr(&self) -> Arc<ColumnDescriptor> {
        let repetition = if self.column.max_def_level > 0 {
            Repetition::OPTIONAL
        } else {
            Repetition::REQUIRED
        };
        let tp = Type::primitive_type_builder("c", self.crate_type)
            .with_repetition(repetition)
            .build()
            .unwrap();
        Arc::new(ColumnDescriptor::new(
            Arc::new(tp),
            self.column.max_def_level,
            0,
            ColumnPath::new(vec!["c".into()]),
        ))
    }
}

/// The parquet crate's reading of the chunk: levels read, and a checksum of what it read.
fn read_crate<T: DataType>(
    descr: &Arc<ColumnDescriptor>,
    pages: Vec<CratePage>,
    mut sum: impl FnMut(&[T::T]) -> u64,
) -> (usize, usize, u64) {
    let reader = get_column_reader(descr.clone(), Box::new(MemoryPages(pages.into_iter())));
    let mut reader = get_typed_column_reader::<T>(reader);
    let (mut def, mut values) = (Vec::new(), Vec::new());
    let (mut levels, mut present, mut check) = (0, 0, 0u64);
    loop {
        def.clear();
        values.clear();
        let def_out = (descr.max_def_level() > 0).then_some(&mut def);
        let (records, values_read, levels_read) = reader
            .read_records(8192, def_out, None, &mut values)
            .unwrap();
        if records == 0 {
            return (levels, present, check);
        }
        levels += if levels_read == 0 {
            values_read
        } else {
            levels_read
        };
        present += values_read;
        check = check.wrapping_add(sum(&values));
    }
}

fn crate_side(
    case: &Case,
    descr: &Arc<ColumnDescriptor>,
    pages: Vec<CratePage>,
) -> (usize, usize, u64) {
    match case.crate_type {
        CrateType::BOOLEAN => {
            read_crate::<BoolType>(descr, pages, |v| v.iter().map(|&b| u64::from(b)).sum())
        }
        CrateType::INT32 => read_crate::<Int32Type>(descr, pages, |v| {
            v.iter().map(|&x| x as u64).fold(0, u64::wrapping_add)
        }),
        CrateType::INT64 => read_crate::<Int64Type>(descr, pages, |v| {
            v.iter().map(|&x| x as u64).fold(0, u64::wrapping_add)
        }),
        CrateType::DOUBLE => read_crate::<DoubleType>(descr, pages, |v| {
            v.iter().map(|&x| x.to_bits()).fold(0, u64::wrapping_add)
        }),
        CrateType::BYTE_ARRAY => read_crate::<ByteArrayType>(descr, pages, |v: &[ByteArray]| {
            v.iter()
                .map(|b| b.data().iter().map(|&x| u64::from(x)).sum::<u64>() + b.len() as u64)
                .fold(0, u64::wrapping_add)
        }),
        _ => unreachable!(),
    }
}

fn our_side(case: &Case, pages: &[Page<'_>], data: &mut ColumnData) {
    data.clear();
    let mut decoder = ChunkDecoder::new(case.column, Path::Auto);
    for page in pages {
        decoder.decode_page(page, data).unwrap();
    }
}

fn checksum(values: &Values) -> (usize, u64) {
    match values {
        Values::Boolean(v) => (v.len(), v.iter().map(|&b| u64::from(b)).sum()),
        Values::Int32(v) => (
            v.len(),
            v.iter().map(|&x| x as u64).fold(0, u64::wrapping_add),
        ),
        Values::Int64(v) => (
            v.len(),
            v.iter().map(|&x| x as u64).fold(0, u64::wrapping_add),
        ),
        Values::Double(v) => (
            v.len(),
            v.iter().map(|&x| x.to_bits()).fold(0, u64::wrapping_add),
        ),
        Values::Bytes(b) => (
            b.offsets.len() - 1,
            b.values.iter().map(|&x| u64::from(x)).sum::<u64>()
                + (b.offsets[b.offsets.len() - 1] - b.offsets[0]) as u64,
        ),
        _ => unreachable!(),
    }
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runs: usize = std::env::var("QPL_PAGE_LAYER_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(41);
    println!(
        "kernel tier {:?}; median of {runs} alternated runs per side, ms per chunk of {PAGES} pages",
        qpl_fallback::kernel_tier()
    );
    println!(
        "{:<24} {:>10} {:>10} {:>8} {:>10}",
        "case", "qpl-rs", "arrow-rs", "speedup", "memcpy"
    );
    for case in cases() {
        if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let ours = case.ours();
        let crate_pages = case.crate_pages();
        let descr = case.descr();
        let mut data = ColumnData::new(&case.column);
        our_side(&case, &ours, &mut data);
        let (levels, present, check) = crate_side(&case, &descr, crate_pages.clone());
        let (our_present, our_check) = checksum(&data.values);
        let our_levels = if case.column.max_def_level > 0 {
            data.def_levels.len()
        } else {
            our_present
        };
        assert_eq!(
            (our_levels, our_present, our_check),
            (levels, present, check),
            "{}: the two sides disagree",
            case.name
        );
        let mut copy_out: Vec<u8> = Vec::new();
        let copy_src: Vec<u8> = case.pages.iter().flat_map(|p| p.0.clone()).collect();
        let (mut t_ours, mut t_crate, mut t_copy) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let start = Instant::now();
            our_side(&case, &ours, &mut data);
            black_box(&data);
            t_ours.push(start.elapsed().as_secs_f64() * 1e3);
            let pages = crate_pages.clone();
            let start = Instant::now();
            black_box(crate_side(&case, &descr, pages));
            t_crate.push(start.elapsed().as_secs_f64() * 1e3);
            if let Some(bytes) = case.memcpy {
                let start = Instant::now();
                copy_out.clear();
                let mut at = 0;
                for (body, _, _) in &case.pages {
                    let take = (bytes / PAGES).min(body.len());
                    copy_out.extend_from_slice(&copy_src[at..at + take]);
                    at += body.len();
                }
                black_box(&copy_out);
                t_copy.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let (o, c) = (median(t_ours), median(t_crate));
        let copy = if t_copy.is_empty() {
            "-".to_string()
        } else {
            format!("{:.3}", median(t_copy))
        };
        println!(
            "{:<24} {:>10.3} {:>10.3} {:>7.2}x {:>10}",
            case.name,
            o,
            c,
            c / o,
            copy
        );
    }
}
