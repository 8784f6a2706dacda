//! [`Path`]: where a job runs, and which paths this build and host can run.

use std::fmt;

use crate::hardware::{hardware_info, Unavailable};

/// Where a job runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// The IAA accelerator through QPL's hardware path.
    Hardware,
    /// QPL's own CPU implementation (for comparison and differential testing).
    Software,
    /// The pure-Rust implementation of this project.
    Fallback,
    /// The accelerator when it is usable for this job, else the fallback.
    Auto,
}

impl Path {
    /// Every path, in the order `Auto`, `Fallback`, `Software`, `Hardware`.
    pub const ALL: [Path; 4] = [Path::Auto, Path::Fallback, Path::Software, Path::Hardware];

    /// The paths that can run on this machine ([`Path::availability`]), in [`Path::ALL`]'s
    /// order: `Auto` and `Fallback` always, `Software` where QPL is linked, `Hardware` where a
    /// device is usable.
    pub fn available() -> Vec<Path> {
        Path::ALL
            .into_iter()
            .filter(|p| p.availability().is_ok())
            .collect()
    }

    /// `hardware`, `software`, `fallback` or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            Path::Hardware => "hardware",
            Path::Software => "software",
            Path::Fallback => "fallback",
            Path::Auto => "auto",
        }
    }

    /// The path called `name` (see [`Path::name`]).
    pub fn from_name(name: &str) -> Option<Path> {
        Path::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether this path can run here, and if not, why.
    pub fn availability(self) -> Result<(), String> {
        match self {
            Path::Fallback | Path::Auto => Ok(()),
            Path::Software if QPL_LINKED => Ok(()),
            Path::Software => Err(Unavailable::NotLinked.to_string()),
            Path::Hardware => match &hardware_info().unavailable {
                None => Ok(()),
                Some(reason) => Err(reason.to_string()),
            },
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True when this build links QPL (so `Path::Software` works and `Path::Hardware` can).
pub const QPL_LINKED: bool = cfg!(qpl_linked);
