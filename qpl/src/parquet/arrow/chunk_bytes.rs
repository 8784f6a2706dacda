//! The file handle the reader shares between its column readers.

use std::sync::Arc;

use bytes::{Buf, Bytes};
use parquet::errors::Result;
use parquet::file::reader::{ChunkReader, Length};

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

/// A reader that fails, rather than give 0 bytes, at the end of its input: the `parquet`
/// crate's page-header reader skips some fields with a copy that stops at 0 bytes without an
/// error, and a damaged header then spins at the end of the file forever
/// (`hang-page-header-skip.parquet`). Given to arrow-rs's reader for the columns it reads.
pub struct Strict<R>(R);

impl<R: std::io::Read> std::io::Read for Strict<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a read past the end of the file",
            ));
        }
        Ok(n)
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
