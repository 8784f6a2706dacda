//! The arrow-rs test files of `parquet_tool::files`, verified by the library function behind
//! `qpl-parquet verify`: every column chunk of every file decoded by qpl-rs's page layer on
//! every path available here, equal to the parquet crate's reading. Also checks that the files
//! hold what they claim (the encodings, page versions, codecs and several pages per chunk), so
//! that a change in the writer cannot silently shrink what is verified.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path as FilePath, PathBuf};
use std::sync::OnceLock;

use parquet::basic::{Compression, Encoding, Type};
use parquet::column::page::Page;
use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::files;
use qpl_examples::parquet_tool::verify::{self, Outcome};
use qpl_rs::Path;

/// The test set, written once into this test binary's temporary directory.
fn test_files() -> &'static [PathBuf] {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("parquet_files");
        std::fs::create_dir_all(&dir).unwrap();
        files::write_test_files(&dir).expect("test files")
    })
}

/// The paths that run here.
fn paths() -> Vec<Path> {
    Path::available()
}

fn file_name(path: &FilePath) -> &str {
    path.file_name().unwrap().to_str().unwrap()
}

#[test]
fn every_test_file_verifies_on_every_path() {
    for file in test_files() {
        let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
        let chunks = reader.num_row_groups()
            * reader
                .metadata()
                .file_metadata()
                .schema_descr()
                .num_columns();
        for path in paths() {
            let lines = verify::verify_file(file, path);
            assert_eq!(
                lines.len(),
                chunks,
                "{}: one line per chunk",
                file.display()
            );
            let failures: Vec<String> = lines
                .iter()
                .filter(|l| l.result != Outcome::Ok)
                .map(|l| {
                    format!(
                        "rg {:?} {:?} {:?}: {:?} {}",
                        l.row_group, l.column, l.encodings, l.result, l.detail
                    )
                })
                .collect();
            assert!(
                failures.is_empty(),
                "{} on {path}: {} of {chunks} chunks fail:\n{}",
                file_name(file),
                failures.len(),
                failures.join("\n")
            );
            for line in &lines {
                assert!(line.values > 0, "{line:?}: levels counted");
                if path != Path::Auto {
                    assert!(
                        line.path.is_none() || line.path == Some(path.name()),
                        "{line:?} ran on {path}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_demo_file_verifies_and_has_what_filter_needs() {
    let file = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("demo_written.parquet");
    files::write_demo_file(&file).unwrap();
    let lines = verify::verify_file(&file, Path::Auto);
    assert!(lines.iter().all(|l| l.result == Outcome::Ok), "{lines:#?}");
    let reader = SerializedFileReader::new(File::open(&file).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let a = (0..schema.num_columns())
        .map(|i| schema.column(i))
        .find(|c| c.path().string() == "a")
        .expect("column a");
    assert_eq!(a.physical_type(), Type::BYTE_ARRAY);
    assert_eq!(a.max_def_level(), 1, "a is nullable");
    let encodings: BTreeSet<String> = lines.iter().flat_map(|l| l.encodings.clone()).collect();
    for e in [
        "PLAIN",
        "RLE",
        "RLE_DICTIONARY",
        "DELTA_BINARY_PACKED",
        "DELTA_LENGTH_BYTE_ARRAY",
        "DELTA_BYTE_ARRAY",
        "BYTE_STREAM_SPLIT",
    ] {
        assert!(
            encodings.contains(e),
            "the demo file has {e}: {encodings:?}"
        );
    }
    std::fs::remove_file(&file).unwrap();
}

/// Every (value encoding, physical type) pair the module docs promise, in the data pages of
/// the `encodings_*` files; pages v1 in `_v1_` files and v2 in `_v2_` files; the codec the name
/// says; several data pages per chunk.
#[test]
fn the_files_hold_what_they_claim() {
    use Encoding::*;
    use Type::*;
    let promised: &[(Encoding, &[Type])] = &[
        (
            PLAIN,
            &[
                BOOLEAN,
                INT32,
                INT64,
                INT96,
                FLOAT,
                DOUBLE,
                BYTE_ARRAY,
                FIXED_LEN_BYTE_ARRAY,
            ],
        ),
        (RLE, &[BOOLEAN]),
        (
            RLE_DICTIONARY,
            &[
                INT32,
                INT64,
                INT96,
                FLOAT,
                DOUBLE,
                BYTE_ARRAY,
                FIXED_LEN_BYTE_ARRAY,
            ],
        ),
        (DELTA_BINARY_PACKED, &[INT32, INT64]),
        (DELTA_LENGTH_BYTE_ARRAY, &[BYTE_ARRAY]),
        (DELTA_BYTE_ARRAY, &[BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY]),
        (
            BYTE_STREAM_SPLIT,
            &[FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY],
        ),
    ];
    let mut codecs = BTreeSet::new();
    for file in test_files() {
        let name = file_name(file);
        if !name.starts_with("encodings_") {
            continue;
        }
        let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
        let mut seen = BTreeSet::new();
        let mut nested = false;
        for rg in 0..reader.num_row_groups() {
            let row_group = reader.get_row_group(rg).unwrap();
            for (j, chunk) in row_group.metadata().columns().iter().enumerate() {
                codecs.insert(format!("{:?}", chunk.compression()));
                let codec = match chunk.compression() {
                    Compression::GZIP(_) => "gzip".to_string(),
                    Compression::BROTLI(_) => "brotli".to_string(),
                    Compression::ZSTD(_) => "zstd".to_string(),
                    c => c.to_string().to_lowercase(),
                };
                assert!(name.contains(&format!("_{codec}.")), "{name}: {codec}");
                nested |= chunk.column_descr().max_rep_level() > 0;
                let mut pages = row_group.get_column_page_reader(j).unwrap();
                let mut data_pages = 0;
                while let Some(page) = pages.get_next_page().unwrap() {
                    match &page {
                        Page::DictionaryPage { .. } => continue,
                        Page::DataPage { .. } => assert!(name.contains("_v1_"), "{name}"),
                        Page::DataPageV2 { .. } => assert!(name.contains("_v2_"), "{name}"),
                    }
                    data_pages += 1;
                    seen.insert((page.encoding(), chunk.column_type()));
                }
                assert!(
                    data_pages >= 2,
                    "{name}: {} has {data_pages} data pages",
                    chunk.column_path()
                );
            }
        }
        assert!(nested, "{name} has list columns");
        for (encoding, types) in promised {
            for t in *types {
                // arrow-rs 59 writes no dictionary for FIXED_LEN_BYTE_ARRAY in Parquet 1.0
                // files (as parquet-mr 1.x did); 60 does. The v2 files still have such pages.
                if (*encoding, *t) == (RLE_DICTIONARY, FIXED_LEN_BYTE_ARRAY)
                    && name.contains("_v1_")
                {
                    continue;
                }
                assert!(
                    seen.contains(&(*encoding, *t)),
                    "{name}: no {encoding} {t} page"
                );
            }
        }
    }
    // UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4 (Hadoop), ZSTD, LZ4_RAW.
    assert_eq!(codecs.len(), 7, "{codecs:?}");
}
