//! The file handle the reader shares between its column readers.
//!
//! A `File`'s readers share one cursor (`ChunkReader` clones the handle), so reads from
//! several threads would interleave their seeks: every read here is positional (of a `File`,
//! one `pread` on Unix; of another reader, a seek and a read of a range under one lock), and
//! a reader from an offset fetches its bytes that way.

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
    /// The reader's length, asked once (a `File`'s is a system call each time, and the
    /// column readers ask it at every window they read).
    len: u64,
    lock: Mutex<()>,
}

impl<T: Length> SharedReader<T> {
    /// Shares `reader` (a file read as it is now: its length is taken once, here).
    pub fn new(reader: T) -> SharedReader<T> {
        SharedReader(Arc::new(Shared {
            len: reader.len(),
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
        self.0.len
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
    /// Where what a reader from an offset may read ends: the file's end, or a column chunk's
    /// (so that a page header's read fetches no bytes of the chunks after it).
    fn read_end(&self) -> u64 {
        self.file_len()
    }
    /// `length` bytes at `start`.
    fn bytes(&self, start: u64, length: usize) -> Result<Bytes>;
}

impl<T: ChunkReader + 'static> ChunkSource for SharedReader<T> {
    fn file_len(&self) -> u64 {
        self.0.len
    }

    fn bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        #[cfg(unix)]
        if let Some(file) = (&self.0.reader as &dyn std::any::Any).downcast_ref::<std::fs::File>() {
            return read_at(file, self.0.len, start, length);
        }
        let _one_at_a_time = self
            .0
            .lock
            .lock()
            .map_err(|_| ParquetError::General("a reader thread panicked".into()))?;
        self.0.reader.get_bytes(start, length)
    }
}

/// `length` bytes of `file` (of `file_len` bytes) at `start`, with one positional read (the
/// `parquet` crate's `File::get_bytes` duplicates the handle, seeks, and reads in growing
/// pieces: six system calls for an 80 KB page) that needs no lock, into memory not zeroed
/// first (`FileExt::read_exact_at` needs it zeroed: 14 % of a read of a FixedSizeBinary
/// column went to that `memset`). A range past the file's end is an error before anything is
/// allocated.
#[cfg(unix)]
fn read_at(file: &std::fs::File, file_len: u64, start: u64, length: usize) -> Result<Bytes> {
    use std::os::fd::AsRawFd;
    if start
        .checked_add(length as u64)
        .is_none_or(|end| end > file_len)
    {
        return Err(ParquetError::EOF(format!(
            "{length} bytes at {start} of a file of {file_len} bytes"
        )));
    }
    let mut buffer: Vec<u8> = Vec::with_capacity(length);
    let mut done = 0;
    while done < length {
        let at = start + done as u64;
        let offset = libc::off_t::try_from(at)
            .map_err(|_| ParquetError::EOF(format!("an offset of {at} bytes")))?;
        // SAFETY: `buffer` owns `length` bytes of capacity; the pointer is `done` bytes into
        // it and pread writes at most `length - done` bytes there (no reference to the
        // uninitialised bytes is made); `file` keeps the descriptor open for the call.
        let n = unsafe {
            libc::pread(
                file.as_raw_fd(),
                buffer.as_mut_ptr().add(done).cast(),
                length - done,
                offset,
            )
        };
        match n {
            n if n > 0 => done += n as usize,
            0 => {
                return Err(ParquetError::EOF(format!(
                    "{length} bytes at {start}: the file ended after {done}"
                )))
            }
            _ => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(ParquetError::EOF(format!(
                        "{length} bytes at {start}: {error}"
                    )));
                }
            }
        }
    }
    // SAFETY: the reads above wrote all `length` bytes (each `done` bytes after the last).
    unsafe { buffer.set_len(length) };
    Ok(Bytes::from(buffer))
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
            let left = self.source.read_end().saturating_sub(self.next);
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
/// it, any other a read from its start of at least [`CHUNK_WINDOW`] bytes, or, where the
/// chunk's pages are known ([`ChunkWindow::with_pages`]), of the page the range starts in and
/// the pages after it that end within [`CHUNK_WINDOW`] (a page larger than that is one read of
/// the page, its header with it). A column's page reader holds one, so it keeps at most a
/// window or a page of the file, but reads small pages and their headers together.
pub(crate) struct ChunkWindow {
    source: Arc<dyn ChunkSource>,
    /// Where the chunk's pages start in the file, in order, then where the chunk ends (empty:
    /// not known).
    pages: Vec<u64>,
    /// The window's offset in the file and its bytes.
    window: Mutex<(u64, Bytes)>,
}

impl ChunkWindow {
    /// A window over `source` whose chunk's pages start at `pages` (ascending, then the
    /// chunk's end: what `chunk_page_starts` gives), holding `first` at first: the bytes
    /// `first.1` at offset `first.0`, already read (the header walk's last read: a small
    /// chunk whole, which is then not read again).
    pub(crate) fn with_pages(
        source: Arc<dyn ChunkSource>,
        pages: Vec<u64>,
        first: (u64, Bytes),
    ) -> ChunkWindow {
        ChunkWindow {
            source,
            pages,
            window: Mutex::new(first),
        }
    }

    /// The bytes to fetch from `start` for a read of `length` there: to the end of the page
    /// `start` is in and of the pages after it that end within [`CHUNK_WINDOW`] of `start`,
    /// or [`CHUNK_WINDOW`] where `start` is in no known page; never less than `length`.
    fn fetch_len(&self, start: u64, length: usize) -> usize {
        let after = self.pages.partition_point(|&p| p <= start);
        if after == 0 || after == self.pages.len() {
            return length.max(CHUNK_WINDOW);
        }
        let mut end = self.pages[after];
        for &next in &self.pages[after + 1..] {
            if next - start > CHUNK_WINDOW as u64 {
                break;
            }
            end = next;
        }
        length.max(usize::try_from(end - start).unwrap_or(usize::MAX))
    }
}

impl ChunkSource for ChunkWindow {
    fn file_len(&self) -> u64 {
        self.source.file_len()
    }

    fn read_end(&self) -> u64 {
        self.pages
            .last()
            .copied()
            .unwrap_or_else(|| self.file_len())
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
        let want = (self.fetch_len(start, length) as u64).min(left) as usize;
        if want < length {
            // Past the file's end: the source's error.
            return self.source.bytes(start, length);
        }
        // The last window goes first: where nothing else holds it (the page it held was
        // fed), the allocator hands its memory, still in cache, to the read.
        *window = (0, Bytes::new());
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
        let window = ChunkWindow::with_pages(
            Arc::clone(&counted) as Arc<dyn ChunkSource>,
            Vec::new(),
            (0, Bytes::new()),
        );
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

    #[test]
    fn a_shared_file_reads_its_ranges_and_refuses_reads_past_its_end() {
        let path = std::env::temp_dir().join(format!("qpl-rs-shared-{}", std::process::id()));
        let contents: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &contents).unwrap();
        let shared = SharedReader::new(std::fs::File::open(&path).unwrap());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(ChunkSource::file_len(&shared), 100_000);
        for (start, length) in [(0, 10), (99_990, 10), (12_345, 70_000), (5, 0)] {
            let got = ChunkSource::bytes(&shared, start, length).unwrap();
            assert_eq!(got, contents[start as usize..start as usize + length]);
        }
        for (start, length) in [(99_995, 6), (100_001, 0), (u64::MAX, 2)] {
            let e = ChunkSource::bytes(&shared, start, length).unwrap_err();
            assert!(e.to_string().contains("of a file of 100000 bytes"), "{e}");
        }
    }

    #[test]
    fn a_page_is_read_with_its_header_and_small_pages_together() {
        // Pages from byte 100: three of 1 000 bytes, one of 200 000, one of 80 000, then
        // the chunk's end, and 30 000 bytes after it.
        let mut pages = vec![100u64];
        for len in [1_000, 1_000, 1_000, 200_000, 80_000] {
            pages.push(pages.last().unwrap() + len);
        }
        let end = *pages.last().unwrap();
        let file = Bytes::from((0..end + 30_000).map(|i| i as u8).collect::<Vec<u8>>());
        let counted = Arc::new(Counted {
            file: file.clone(),
            reads: AtomicUsize::new(0),
        });
        let window = ChunkWindow::with_pages(
            Arc::clone(&counted) as Arc<dyn ChunkSource>,
            pages.clone(),
            (0, Bytes::new()),
        );
        let reads = || counted.reads.load(Ordering::Relaxed);
        let check = |at: u64, n: usize| {
            let got = window.bytes(at, n).unwrap();
            assert_eq!(
                got,
                file.slice(at as usize..at as usize + n),
                "{n} bytes at {at}"
            );
        };
        // Each page's header (a reader asks for 16 KiB) and then its body: the three small
        // pages in one read, each large page in one read of its own bytes.
        for (i, &start) in pages[..5].iter().enumerate() {
            let header = 30;
            let len = (pages[i + 1] - start) as usize;
            check(start, (16 << 10).min(len));
            check(start + header, len - header as usize);
        }
        assert_eq!(reads(), 3);
        // Outside the pages known: the window's reads of at least CHUNK_WINDOW, as before.
        check(end + 10, 100);
        check(end + 200, 20_000);
        assert_eq!(reads(), 4);
        check(50, 10);
        assert_eq!(reads(), 5);
    }

    #[test]
    fn a_chunk_the_header_walk_read_whole_is_not_read_again() {
        // A chunk of two pages at bytes 100..1 100 of a file of 50 000, read whole by the
        // header walk: its pages' headers (read from an offset, as the parquet crate reads
        // them) and bodies come from that read, and no read passes the chunk's end.
        let pages = vec![100u64, 600, 1_100];
        let file = Bytes::from((0..50_000u32).map(|i| i as u8).collect::<Vec<u8>>());
        let counted = Arc::new(Counted {
            file: file.clone(),
            reads: AtomicUsize::new(0),
        });
        let first = (100, file.slice(100..1_100));
        let window = Arc::new(ChunkWindow::with_pages(
            Arc::clone(&counted) as Arc<dyn ChunkSource>,
            pages,
            first,
        ));
        assert_eq!(window.read_end(), 1_100);
        let source = DynSource(Arc::clone(&window) as Arc<dyn ChunkSource>);
        for start in [100u64, 600] {
            let mut header = Vec::new();
            source
                .get_read(start)
                .unwrap()
                .read_to_end(&mut header)
                .unwrap();
            assert_eq!(header, file[start as usize..1_100]);
            let body = source.get_bytes(start + 20, 480).unwrap();
            assert_eq!(body, file.slice(start as usize + 20..start as usize + 500));
        }
        assert_eq!(counted.reads.load(Ordering::Relaxed), 0);
    }
}
