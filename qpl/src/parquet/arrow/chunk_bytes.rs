//! The file handle the reader shares between its column readers, and column chunks read into
//! memory whole, so that no page header can make a read leave its chunk.

use std::sync::Arc;

use bytes::{Buf, Bytes};
use parquet::column::page::PageReader;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::serialized_reader::SerializedPageReader;

/// A [`ChunkReader`] shared by reference count: the reader's column readers (and, for the
/// columns it hands over, arrow-rs's) read the one file.
pub struct SharedReader<T>(Arc<T>);

impl<T> SharedReader<T> {
    /// Shares `reader`.
    pub fn new(reader: T) -> SharedReader<T> {
        SharedReader(Arc::new(reader))
    }
}

impl<T: ChunkReader + 'static> SharedReader<T> {
    /// The file as the column readers hold it (without its type).
    pub(crate) fn source(&self) -> Arc<dyn ChunkSource> {
        Arc::clone(&self.0) as Arc<dyn ChunkSource>
    }
}

/// What the column readers need of a file: its length and byte ranges.
pub(crate) trait ChunkSource: Send + Sync {
    /// The file's length.
    fn file_len(&self) -> u64;
    /// `length` bytes at `start`.
    fn bytes(&self, start: u64, length: usize) -> Result<Bytes>;
}

impl<T: ChunkReader> ChunkSource for T {
    fn file_len(&self) -> u64 {
        self.len()
    }

    fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.get_bytes(start, length)
    }
}

impl<T> Clone for SharedReader<T> {
    fn clone(&self) -> Self {
        SharedReader(Arc::clone(&self.0))
    }
}

impl<T: ChunkReader> Length for SharedReader<T> {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl<T: ChunkReader> ChunkReader for SharedReader<T> {
    type T = T::T;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        self.0.get_read(start)
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// One column chunk's bytes, addressed by their offsets in the file: a read outside the chunk
/// is an error, where a page header that lies about its size would otherwise send the page
/// reader through the rest of the file (or, on some files, round in a loop).
struct ChunkBytes {
    start: u64,
    data: Bytes,
}

impl ChunkBytes {
    fn range(&self, start: u64, length: usize) -> Result<std::ops::Range<usize>> {
        let from = start
            .checked_sub(self.start)
            .filter(|&at| at <= self.data.len() as u64)
            .ok_or_else(|| outside(start, length, self))? as usize;
        let to = from
            .checked_add(length)
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| outside(start, length, self))?;
        Ok(from..to)
    }
}

fn outside(start: u64, length: usize, chunk: &ChunkBytes) -> ParquetError {
    ParquetError::EOF(format!(
        "a read of {length} bytes at offset {start} leaves the column chunk (bytes {}..{})",
        chunk.start,
        chunk.start + chunk.data.len() as u64
    ))
}

impl Length for ChunkBytes {
    fn len(&self) -> u64 {
        self.start + self.data.len() as u64
    }
}

impl ChunkReader for ChunkBytes {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        let range = self.range(start, 0)?;
        Ok(self.data.slice(range.start..).reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        Ok(self.data.slice(self.range(start, length)?))
    }
}

/// A page reader over one column chunk of `input`, reading only the chunk's bytes (in
/// memory: a slice of `Bytes` inputs, one read of files). The chunk's range is checked
/// against the file's length first, so a footer that lies about it costs no allocation.
pub(crate) fn chunk_page_reader(
    input: &dyn ChunkSource,
    meta: &ColumnChunkMetaData,
    rows: usize,
) -> Result<Box<dyn PageReader>> {
    let (start, length) = meta.byte_range();
    let end = start
        .checked_add(length)
        .filter(|&end| end <= input.file_len());
    if end.is_none() {
        return Err(ParquetError::General(format!(
            "column chunk {}: its bytes {start}..{} pass the file's {} bytes",
            meta.column_path(),
            start as u128 + length as u128,
            input.file_len()
        )));
    }
    let data = input.bytes(start, length as usize)?;
    let chunk = Arc::new(ChunkBytes { start, data });
    Ok(Box::new(SerializedPageReader::new(
        chunk, meta, rows, None,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_outside_the_chunk_are_errors() {
        let chunk = ChunkBytes {
            start: 100,
            data: Bytes::from_static(b"0123456789"),
        };
        assert_eq!(&chunk.get_bytes(102, 3).unwrap()[..], b"234");
        assert_eq!(&chunk.get_bytes(100, 10).unwrap()[..], b"0123456789");
        assert!(chunk.get_bytes(99, 1).is_err());
        assert!(chunk.get_bytes(105, 6).is_err());
        assert!(chunk.get_bytes(110, 0).is_ok());
        assert!(chunk.get_read(111).is_err());
        assert!(chunk.get_bytes(u64::MAX, usize::MAX).is_err());
    }
}
