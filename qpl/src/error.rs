//! The one error type of the crate.

use crate::{Operation, Path, Status};

/// A job that did not complete: the operation, the QPL status (the same for the same bad input
/// on every path), the path that reported it, and a message a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{operation} on the {path} path failed with {status:?}: {message}")]
pub struct Error {
    /// The operation of the failed job.
    pub operation: Operation,
    /// The QPL status code.
    pub status: Status,
    /// The path that reported the failure.
    pub path: Path,
    /// What went wrong, in plain words.
    pub message: String,
}

impl Error {
    /// An error whose message is the status's own explanation.
    pub(crate) fn from_status(operation: Operation, path: Path, status: Status) -> Error {
        Error {
            operation,
            status,
            path,
            message: status.explanation().to_string(),
        }
    }
}
