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

/// Bytes a column's reader fetches from the file at a time: a page header and the pages
/// after it come from one read (a file of one-value pages read each header and each page
/// with a read of its own: 1.7x arrow-rs's time).
const CHUNK_WINDOW: usize = 64 * 1024;

/// A file read through a window of the last bytes fetched: a range inside it is a slice of
/// it, any other a read of at least [`CHUNK_WINDOW`] bytes from its start (a page larger than
/// that is one read of the page). A column's page reader holds one, so it keeps at most a
/// window or a page of the file, as before, but reads small pages and their headers
/// together.
pub(crate) struct ChunkWindow {
    source: Arc<dyn ChunkSource>,
    /// The window's offset in the file and its bytes.
    window: Mutex<(u64, Bytes)>,
}

impl ChunkWindow {
    pub(crate) fn new(source: Arc<dyn ChunkSource>) -> ChunkWindow {
        ChunkWindow {
            source,
            window: Mutex::new((0, Bytes::new())),
        }
    }
}

impl ChunkSource for ChunkWindow {
    fn file_len(&self) -> u64 {
        self.source.file_len()
    }

    fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        let mut window = self
            .window
            .lock()
            .map_err(|_| ParquetError::General("a reader thread panicked".into()))?;
        let (at, bytes) = &*window;
        if let Some(from) = start.checked_sub(*at).map(|f| f as usize) {
            if from.checked_add(length).is_some_and(|to| to <= bytes.len()) {
                return Ok(bytes.slice(from..from + length));
            }
        }
        let left = self.source.file_len().saturating_sub(start);
        let want = (length.max(CHUNK_WINDOW) as u64).min(left) as usize;
        if want < length {
            // Past the file's end: the source's error.
            return self.source.bytes(start, length);
        }
        let fetched = self.source.bytes(start, want)?;
        let slice = fetched.slice(..length.min(fetched.len()));
        *window = (start, fetched);
        Ok(slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A file of `len` bytes (byte `i` is `i as u8`) that counts its reads.
    struct Counted {
        file: Bytes,
        reads: AtomicUsize,
    }

    impl ChunkSource for Counted {
        fn file_len(&self) -> u64 {
            self.file.len() as u64
        }

        fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            let start = start as usize;
            match start.checked_add(length) {
                Some(end) if end <= self.file.len() => Ok(self.file.slice(start..end)),
                _ => Err(ParquetError::EOF(format!("{length} bytes at {start}"))),
            }
        }
    }

    #[test]
    fn small_reads_come_from_one_window_and_large_ones_are_whole() {
        let len = 3 * CHUNK_WINDOW + 100;
        let file = Bytes::from((0..len).map(|i| i as u8).collect::<Vec<u8>>());
        let counted = Arc::new(Counted {
            file: file.clone(),
            reads: AtomicUsize::new(0),
        });
        let window = ChunkWindow::new(Arc::clone(&counted) as Arc<dyn ChunkSource>);
        let reads = || counted.reads.load(Ordering::Relaxed);
        // Headers and small pages one after another: one read of the file.
        let mut at = 10;
        for n in [7, 30, 1, 200, 4_000] {
            assert_eq!(
                window.bytes(at, n).unwrap(),
                file.slice(at as usize..at as usize + n)
            );
            at += n as u64;
        }
        assert_eq!(reads(), 1);
        // A page larger than the window: one read of it.
        let big = CHUNK_WINDOW + 5;
        assert_eq!(
            window.bytes(at, big).unwrap(),
            file.slice(at as usize..at as usize + big)
        );
        assert_eq!(reads(), 2);
        // Near the end: the window stops at the file's end; past it, the file's error.
        let near = len as u64 - 50;
        assert_eq!(window.bytes(near, 50).unwrap(), file.slice(len - 50..));
        assert!(window.bytes(near, 51).is_err());
        assert_eq!(window.bytes(near + 10, 40).unwrap(), file.slice(len - 40..));
        assert_eq!(reads(), 4);
    }
}
