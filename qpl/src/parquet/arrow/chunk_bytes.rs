//! The file handle the reader shares between its column readers.

use std::sync::Arc;

use bytes::{Buf, Bytes};
use parquet::errors::Result;
use parquet::file::reader::{ChunkReader, Length};

use crate::parquet::query::Strict;

/// A [`ChunkReader`] shared by reference count: the reader's column readers (and, for the
/// columns it hands over, arrow-rs's) read the one file.
pub struct SharedReader<T>(Arc<T>);

impl<T> SharedReader<T> {
    /// Shares `reader`.
    pub fn new(reader: T) -> SharedReader<T> {
        SharedReader(Arc::new(reader))
    }
}

impl<T: ChunkReader + 'static> SharedReader<T>
where
    T::T: 'static,
{
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
    /// A reader from `start` on.
    fn read_at(&self, start: u64) -> Result<Box<dyn std::io::Read>>;
}

impl<T: ChunkReader> ChunkSource for T
where
    T::T: 'static,
{
    fn file_len(&self) -> u64 {
        self.len()
    }

    fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.get_bytes(start, length)
    }

    fn read_at(&self, start: u64) -> Result<Box<dyn std::io::Read>> {
        Ok(Box::new(self.get_read(start)?))
    }
}

/// A [`ChunkSource`] as the `parquet` crate's readers take a file, owned: what
/// [`chunk_page_reader_shared`](crate::parquet::query::chunk_page_reader_shared) reads a
/// column chunk through, page by page.
pub(crate) struct DynSource(pub Arc<dyn ChunkSource>);

impl Length for DynSource {
    fn len(&self) -> u64 {
        self.0.file_len()
    }
}

impl ChunkReader for DynSource {
    type T = Box<dyn std::io::Read>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        self.0.read_at(start)
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.bytes(start, length)
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
    type T = Strict<T::T>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        Ok(Strict(self.0.get_read(start)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// A [`ChunkSource`] as the `parquet` crate's readers take a file: what
/// [`chunk_page_reader`](crate::parquet::query::chunk_page_reader) reads a column chunk
/// through (it reads the chunk whole, with one `get_bytes`).
pub(crate) struct SourceReader<'a>(pub &'a dyn ChunkSource);

impl Length for SourceReader<'_> {
    fn len(&self) -> u64 {
        self.0.file_len()
    }
}

impl ChunkReader for SourceReader<'_> {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        let rest = self.0.file_len().saturating_sub(start);
        let rest = usize::try_from(rest)
            .map_err(|_| parquet::errors::ParquetError::General("a file past usize".into()))?;
        Ok(self.0.bytes(start, rest)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.bytes(start, length)
    }
}
