//! The file handle the reader shares between its column readers.

use std::sync::Arc;

use bytes::Bytes;
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
