//! The one error type of the crate.

use std::fmt;

use qpl_fallback::{Operation, Status, StatusKind};

use crate::path::Path;

/// A job that did not complete: the operation, the QPL status (the same for the same bad input
/// on every path), the path the caller asked for, where the failure was found, and a message a
/// user can act on.
///
/// Its `Display` names all of them, the status as `<code> <NAME>`, and ends with what to do:
///
/// ```
/// use qpl_rs::{decode, Path, Stream};
///
/// // Two 8-bit values, but three asked for.
/// let err = decode::<u8>(Path::Hardware, &Stream::le_packed(&[1, 2], 8), 3).unwrap_err();
/// assert_eq!(err.requested, Path::Hardware);
/// assert_eq!(err.stage, qpl_rs::Stage::Check);
/// let text = err.to_string();
/// assert!(text.starts_with(
///     "extract (asked for the hardware path, checked on the CPU before any path ran) \
///      failed with 232 SRC_IS_SHORT_ERR: "
/// ), "{text}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    /// The operation of the failed job.
    pub operation: Operation,
    /// The QPL status code.
    pub status: Status,
    /// The path the caller asked for (`Config::path` of the executor), possibly `Auto`.
    pub requested: Path,
    /// The path that reported the failure: for [`Stage::Run`] the one that ran the job (never
    /// `Auto`); for [`Stage::Check`] the route the job was headed for, or `Fallback` when the
    /// check ran before a route was chosen (the checks are the fallback's code, on the CPU);
    /// for [`Stage::Route`] the requested path.
    pub path: Path,
    /// Where the failure was found.
    pub stage: Stage,
    /// What went wrong, in plain words.
    pub message: String,
}

/// Where an [`Error`] was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The requested path cannot run here (QPL not linked, no accelerator); nothing was checked.
    Route,
    /// The job was refused by the checks every job passes on the CPU before any path runs it
    /// (the same checks, and so the same error, whatever the path).
    Check,
    /// The path in [`Error::path`] ran the job and reported the failure.
    Run,
}

impl Error {
    /// An error found at `stage`, whose message is the status's own explanation.
    pub(crate) fn from_status(
        operation: Operation,
        requested: Path,
        path: Path,
        stage: Stage,
        status: Status,
    ) -> Error {
        Error {
            operation,
            status,
            requested,
            path,
            stage,
            message: status.explanation().to_string(),
        }
    }

    /// `<code> <NAME>`, e.g. `232 SRC_IS_SHORT_ERR` (`UNKNOWN` for a code this version does not
    /// know).
    pub fn status_label(&self) -> String {
        format!("{} {}", self.status.0, status_name(self.status))
    }

    /// What the caller can do about this error, in a short sentence.
    pub fn hint(&self) -> &'static str {
        hint(self.status)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let requested = self.requested;
        write!(f, "{} (asked for the {requested} path, ", self.operation)?;
        match self.stage {
            Stage::Route => write!(f, "which cannot run here")?,
            Stage::Check => write!(f, "checked on the CPU before any path ran")?,
            Stage::Run if self.path == requested => write!(f, "ran on it")?,
            Stage::Run => write!(f, "ran on the {} path", self.path)?,
        }
        write!(
            f,
            ") failed with {}: {}; {}",
            self.status_label(),
            self.message,
            self.hint()
        )
    }
}

/// QPL's name of `status` without the `QPL_STS_` prefix, `UNKNOWN` for a code this version does
/// not know (what `qpl-replay` prints as `status_name`).
pub fn status_name(status: Status) -> &'static str {
    status.name().unwrap_or("UNKNOWN")
}

/// What to do about `status`: specific for the statuses the analytics calls report, else by
/// the status's kind.
fn hint(status: Status) -> &'static str {
    match status {
        Status::SRC_IS_SHORT_ERR => {
            "pass the whole stream, or ask for no more values than it holds"
        }
        Status::SRC2_IS_SHORT_ERR => "pass a mask of at least n bits",
        Status::SIZE_ERR => "ask for at least one value and pass non-empty buffers",
        Status::BUFFER_TOO_LARGE_ERR => {
            "raise Config::max_output_bytes, or decode into your own buffer in smaller parts"
        }
        Status::OUT_FORMAT_ERR => "decode into a wider integer type",
        Status::BIT_WIDTH_ERR => "use a bit width of 1..=32 (for select and expand, a 1-bit mask)",
        Status::DST_IS_SHORT_ERR => "pass a larger destination",
        Status::OUTPUT_OVERFLOW_ERR => "use a wider output format (out_bit_width)",
        Status::PRLE_FORMAT_ERR => "the stream is corrupt; re-read or re-encode it",
        _ => match status.kind() {
            StatusKind::InvalidInput => "the stream is corrupt or short; re-read or re-encode it",
            StatusKind::InvalidJob => "fix the job's fields or buffer lengths",
            StatusKind::OutputOverflow => "pass a larger destination or a wider output format",
            StatusKind::Unsupported => {
                "use Path::Auto or Path::Fallback, which run every job on the CPU when needed"
            }
            StatusKind::Busy => "retry, or use Path::Auto, which runs on the CPU when busy",
            StatusKind::Device => "use Path::Auto to run on the CPU, and check the device's log",
            StatusKind::Init => {
                "configure an IAA work queue (accel-config), or use Path::Auto or Path::Fallback"
            }
            StatusKind::Ok | StatusKind::Pending | StatusKind::Other => {
                "see QPL's status codes (status.h)"
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(stage: Stage, requested: Path, path: Path, status: Status) -> Error {
        Error::from_status(Operation::ScanEq, requested, path, stage, status)
    }

    #[test]
    fn the_text_names_the_request_the_stage_the_status_and_what_to_do() {
        let text = error(
            Stage::Run,
            Path::Auto,
            Path::Fallback,
            Status::DST_IS_SHORT_ERR,
        )
        .to_string();
        assert_eq!(
            text,
            "scan_eq (asked for the auto path, ran on the fallback path) failed with 225 \
             DST_IS_SHORT_ERR: the destination buffer is too small for the output; pass a larger \
             destination"
        );
        let text = error(Stage::Run, Path::Software, Path::Software, Status(7777)).to_string();
        assert!(
            text.starts_with(
                "scan_eq (asked for the software path, ran on it) failed with 7777 UNKNOWN: "
            ),
            "{text}"
        );
        let text = error(
            Stage::Route,
            Path::Hardware,
            Path::Hardware,
            Status::INIT_WORK_QUEUES_NOT_AVAILABLE,
        )
        .to_string();
        assert!(text.contains("(asked for the hardware path, which cannot run here) failed with 503 INIT_WORK_QUEUES_NOT_AVAILABLE: "), "{text}");
        assert!(
            text.ends_with(
                "; configure an IAA work queue (accel-config), or use Path::Auto or Path::Fallback"
            ),
            "{text}"
        );
    }

    #[test]
    fn every_status_has_a_name_label_and_a_hint() {
        for code in (0..600).chain([7777]) {
            let e = error(Stage::Check, Path::Fallback, Path::Fallback, Status(code));
            let label = e.status_label();
            assert!(label.starts_with(&format!("{code} ")), "{label}");
            assert!(!e.hint().is_empty());
            assert_eq!(label.split(' ').nth(1), Some(status_name(Status(code))));
        }
        assert_eq!(status_name(Status::SRC_IS_SHORT_ERR), "SRC_IS_SHORT_ERR");
    }
}
