//! The execution paths the example programs can run a job on, and the one function that
//! dispatches to them.
//!
//! This module is the only place that knows how a path executes a job: through the safe
//! `qpl_rs` crate, whose [`qpl_rs::Executor`] reports the path that really ran.

use std::fmt;
use std::str::FromStr;

use qpl_fallback::{Completion, Job, Status};

/// A path a job can be run on, as named on the command line (`--path fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ExecPath {
    /// The pure-Rust engine (`qpl_fallback`): runs everywhere.
    Fallback,
    /// QPL's own software path (needs QPL linked at build time).
    Software,
    /// The IAA accelerator (needs QPL and a usable device).
    Hardware,
    /// The accelerator when usable for the job, else the fallback.
    Auto,
}

impl ExecPath {
    /// Every path, in the order the demo tries them.
    pub const ALL: [ExecPath; 4] = [
        ExecPath::Fallback,
        ExecPath::Software,
        ExecPath::Hardware,
        ExecPath::Auto,
    ];

    /// The command-line and JSON name: `fallback`, `software`, `hardware`, `auto`.
    pub fn name(self) -> &'static str {
        match self {
            ExecPath::Fallback => "fallback",
            ExecPath::Software => "software",
            ExecPath::Hardware => "hardware",
            ExecPath::Auto => "auto",
        }
    }
}

impl fmt::Display for ExecPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for ExecPath {
    type Err = String;

    fn from_str(s: &str) -> Result<ExecPath, String> {
        ExecPath::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!("unknown path `{s}` (expected fallback, software, hardware or auto)")
            })
    }
}

/// The outcome of a job that a path accepted and ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ran {
    /// The path that really executed the job (for `Auto`: the one it chose).
    pub path: ExecPath,
    /// The job's result fields, or the status it failed with.
    pub result: Result<Completion, Status>,
}

impl ExecPath {
    /// The `qpl_rs` path of the same name.
    pub fn to_qpl(self) -> qpl_rs::Path {
        match self {
            ExecPath::Fallback => qpl_rs::Path::Fallback,
            ExecPath::Software => qpl_rs::Path::Software,
            ExecPath::Hardware => qpl_rs::Path::Hardware,
            ExecPath::Auto => qpl_rs::Path::Auto,
        }
    }

    fn from_qpl(path: qpl_rs::Path) -> ExecPath {
        match path {
            qpl_rs::Path::Fallback => ExecPath::Fallback,
            qpl_rs::Path::Software => ExecPath::Software,
            qpl_rs::Path::Hardware => ExecPath::Hardware,
            qpl_rs::Path::Auto => ExecPath::Auto,
        }
    }
}

/// Whether `path` can run jobs in this process; `Err` holds the reason, in plain words
/// (callers name the path themselves).
pub fn availability(path: ExecPath) -> Result<(), String> {
    path.to_qpl().availability()
}

/// Runs `job` on `path` over `src1`, the optional source-2 mask `src2` and the destination
/// `dst` (its length is the job's `available_out`).
///
/// `Err` means the path cannot run jobs at all (see [`availability`]); a job the path ran but
/// rejected is `Ok` with `result: Err(status)`.
pub fn execute_on(
    path: ExecPath,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<Ran, String> {
    availability(path)?;
    Ok(
        match qpl_rs::Executor::new(path.to_qpl()).run(job, src1, src2, dst) {
            Ok(output) => Ran {
                path: ExecPath::from_qpl(output.path),
                result: Ok(output.completion),
            },
            Err(error) => Ran {
                path: ExecPath::from_qpl(error.path),
                result: Err(error.status),
            },
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for path in ExecPath::ALL {
            assert_eq!(path.name().parse::<ExecPath>(), Ok(path));
        }
        assert!("gpu".parse::<ExecPath>().unwrap_err().contains("`gpu`"));
    }

    #[test]
    fn availability_follows_the_build_and_the_host() {
        assert_eq!(availability(ExecPath::Fallback), Ok(()));
        assert_eq!(availability(ExecPath::Auto), Ok(()));
        assert_eq!(availability(ExecPath::Software).is_ok(), qpl_rs::QPL_LINKED);
        let hardware = qpl_rs::hardware_info().unavailable.as_ref();
        assert_eq!(
            availability(ExecPath::Hardware).err(),
            hardware.map(ToString::to_string)
        );
    }
}
