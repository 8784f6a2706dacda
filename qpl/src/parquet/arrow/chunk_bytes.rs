//! The file handle the reader shares between its column readers.
//!
//! A `File`'s readers share one cursor (`ChunkReader` clones the handle), so reads from
//! several threads would interleave their seeks: every read here is positional (a seek and a
//! read of a range) under one lock, and a reader from an offset fetches its bytes that way.

use std::io::Read;
use std::sync::{Arc, Mutex};

use bytes::{Buf, Bytes};
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};

use crate::parquet::query::Strict;

/// Bytes a reader from an offset fetches at a time (page headers are read this way).
const READ_WINDOW: u64 = 16 * 1024;

/// A [`ChunkReader`] shared by reference count: the reader's column readers (and, for the
/// columns it hands over, arrow-rs's) read the one file, one positional read at a time.
pub struct SharedReader<T>(Arc<Shared<T>>);

struct Shared<T> {
    reader: T,
    lock: Mutex<()>,
}

impl<T> SharedReader<T> {
    /// Shares `reader`.
    pub fn new(reader: T) -> SharedReader<T> {
        SharedReader(Arc::new(Shared {
            reader,
            lock: Mutex::new(()),
        }))
    }
}

impl<T> Clone for SharedReader<T> {
    fn clone(&self) -> Self {
        SharedReader(Arc::clone(&self.0))
    }
}

impl<T: ChunkReader + 'static> SharedReader<T> {
    /// The file as the column readers hold it (without its type).
    pub(crate) fn source(&self) -> Arc<dyn ChunkSource> {
        Arc::new(self.clone())
    }
}

impl<T: ChunkReader> Length for SharedReader<T> {
    fn len(&self) -> u64 {
        self.0.reader.len()
    }
}

impl<T: ChunkReader + 'static> ChunkReader for SharedReader<T> {
    type T = Strict<WindowReader>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        Ok(Strict(WindowReader::new(self.source(), start)))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        ChunkSource::bytes(self, start, length)
    }
}

/// What the column readers need of a file: its length and byte ranges.
pub(crate) trait ChunkSource: Send + Sync {
    /// The file's length.
    fn file_len(&self) -> u64;
    /// `length` bytes at `start`.
    fn bytes(&self, start: u64, length: usize) -> Result<Bytes>;
}

impl<T: ChunkReader> ChunkSource for SharedReader<T> {
    fn file_len(&self) -> u64 {
        self.0.reader.len()
    }

    fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        let _one_at_a_time = self
            .0
            .lock
            .lock()
            .map_err(|_| ParquetError::General("a reader thread panicked".into()))?;
        self.0.reader.get_bytes(start, length)
    }
}

/// Reads a file from an offset on, a window of bytes at a time, each a positional read.
pub struct WindowReader {
    source: Arc<dyn ChunkSource>,
    next: u64,
    window: Bytes,
}

impl WindowReader {
    fn new(source: Arc<dyn ChunkSource>, start: u64) -> WindowReader {
        WindowReader {
            source,
            next: start,
            window: Bytes::new(),
        }
    }
}

impl Read for WindowReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.window.is_empty() {
            let left = self.source.file_len().saturating_sub(self.next);
            let want = left.min(READ_WINDOW) as usize;
            if want == 0 {
                return Ok(0);
            }
            self.window = self
                .source
                .bytes(self.next, want)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            self.next += self.window.len() as u64;
            if self.window.is_empty() {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.window.len());
        self.window.copy_to_slice(&mut buf[..n]);
        Ok(n)
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
    type T = WindowReader;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        Ok(WindowReader::new(Arc::clone(&self.0), start))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.bytes(start, length)
    }
}
