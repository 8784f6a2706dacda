//! Which kernel tier runs: the best this CPU has, or the one `QPL_FALLBACK_KERNELS` names,
//! decided once per process.
//!
//! A tier that cannot run (an unknown name, or instructions this CPU lacks) is not a panic:
//! [`kernel_tier`] returns the reason, `execute` and `validate` fail every job with a status
//! (so a test run that asked for a tier never passes on another one), and the infallible
//! kernel functions, which have no error path, run the portable kernels, which are correct
//! everywhere.

use std::ffi::OsStr;
use std::fmt;
use std::sync::OnceLock;

use crate::status::Status;

/// The environment variable that forces a tier: `portable`, `avx2` or `avx512`.
pub(crate) const KERNELS_VAR: &str = "QPL_FALLBACK_KERNELS";
/// The older switch: `1` is `QPL_FALLBACK_KERNELS=portable`.
pub(crate) const PORTABLE_VAR: &str = "QPL_FALLBACK_PORTABLE";

/// A family of kernels, each for a set of CPU instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// Plain Rust, every target.
    Portable,
    /// x86-64 with AVX2, BMI2 and POPCNT (Haswell, Zen 1 and later).
    Avx2,
    /// x86-64 with AVX-512 F/BW/VBMI/VBMI2 and POPCNT (Ice Lake, Sapphire Rapids, Zen 4 and
    /// later).
    Avx512,
}

impl Tier {
    /// Every tier, from the most portable to the fastest.
    pub const ALL: [Tier; 3] = [Tier::Portable, Tier::Avx2, Tier::Avx512];

    /// The name `QPL_FALLBACK_KERNELS` takes for it.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Portable => "portable",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
        }
    }

    /// The tier `name` names (ASCII case ignored), as `QPL_FALLBACK_KERNELS` takes it.
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// Whether this CPU can run the tier: `None` when it can, else the instructions (or
    /// target) it lacks.
    pub fn missing(self) -> Option<&'static str> {
        match self {
            Tier::Portable => None,
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => (!(is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("popcnt")))
            .then_some("AVX2, BMI2 and POPCNT"),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => (!(is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vbmi")
                && is_x86_feature_detected!("avx512vbmi2")
                && is_x86_feature_detected!("popcnt")))
            .then_some("AVX-512 F/BW/VBMI/VBMI2 and POPCNT"),
            #[cfg(not(target_arch = "x86_64"))]
            Tier::Avx2 | Tier::Avx512 => Some("an x86-64 target"),
        }
    }

    /// Whether this CPU can run the tier.
    pub fn is_available(self) -> bool {
        self.missing().is_none()
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the tier `QPL_FALLBACK_KERNELS` asks for cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TierError {
    /// The variable names no tier (its value, lossily decoded).
    Unknown {
        /// The variable's value.
        value: String,
    },
    /// This CPU lacks the tier's instructions.
    Unsupported {
        /// The tier asked for.
        tier: Tier,
        /// What this CPU (or target) lacks.
        missing: &'static str,
    },
}

impl TierError {
    /// The status `execute` and `validate` return while the tier cannot run: 54
    /// `PATH_ERR` (a bad choice of path) for an unknown name, 52 `NOT_SUPPORTED_MODE_ERR`
    /// for a tier this CPU lacks.
    pub fn status(&self) -> Status {
        match self {
            TierError::Unknown { .. } => Status::PATH_ERR,
            TierError::Unsupported { .. } => Status::NOT_SUPPORTED_MODE_ERR,
        }
    }
}

impl fmt::Display for TierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TierError::Unknown { value } => write!(
                f,
                "{KERNELS_VAR}={value:?} names no kernel tier (portable, avx2 or avx512)"
            ),
            TierError::Unsupported { tier, missing } => write!(
                f,
                "{KERNELS_VAR}={tier}: this CPU cannot run the {tier} kernels (it lacks {missing})"
            ),
        }
    }
}

impl std::error::Error for TierError {}

/// The kernel tier this process runs, decided at the first call (or the first job) and the
/// same for the rest of the process: the one `QPL_FALLBACK_KERNELS` names
/// (`portable`/`avx2`/`avx512`; `QPL_FALLBACK_PORTABLE=1` is `portable`; an empty value is
/// unset), else the fastest this CPU has.
///
/// `Err` when the variable names no tier or one this CPU lacks: then `execute` and
/// `validate` fail every job with [`TierError::status`], and the crate's other functions run
/// the portable kernels.
///
/// ```
/// match qpl_fallback::kernel_tier() {
///     Ok(tier) => println!("qpl-fallback kernels: {tier}"),
///     Err(why) => eprintln!("qpl-fallback: {why}"),
/// }
/// ```
pub fn kernel_tier() -> Result<Tier, TierError> {
    static CHOSEN: OnceLock<Result<Tier, TierError>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| {
            let kernels = std::env::var_os(KERNELS_VAR);
            let portable = std::env::var_os(PORTABLE_VAR);
            choose(kernels.as_deref(), portable.as_deref(), Tier::missing)
        })
        .clone()
}

/// The tier asked for by the two variables' values: `QPL_FALLBACK_KERNELS` when set and not
/// empty, else `portable` when `QPL_FALLBACK_PORTABLE` is `1`, else none (the best
/// available).
pub(crate) fn requested(
    kernels: Option<&OsStr>,
    portable: Option<&OsStr>,
) -> Result<Option<Tier>, TierError> {
    match kernels.filter(|v| !v.is_empty()) {
        Some(value) => value
            .to_str()
            .and_then(Tier::from_name)
            .map(Some)
            .ok_or_else(|| TierError::Unknown {
                value: value.to_string_lossy().into_owned(),
            }),
        None => Ok(portable.is_some_and(|v| v == "1").then_some(Tier::Portable)),
    }
}

/// The tier to run, given the variables' values and what this CPU lacks for each tier.
pub(crate) fn choose(
    kernels: Option<&OsStr>,
    portable: Option<&OsStr>,
    missing: impl Fn(Tier) -> Option<&'static str>,
) -> Result<Tier, TierError> {
    match requested(kernels, portable)? {
        Some(tier) => match missing(tier) {
            None => Ok(tier),
            Some(missing) => Err(TierError::Unsupported { tier, missing }),
        },
        None => Ok(Tier::ALL
            .into_iter()
            .rev()
            .find(|&t| missing(t).is_none())
            .unwrap_or(Tier::Portable)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    /// A CPU with the tiers up to `best`.
    fn cpu_up_to(best: Tier) -> impl Fn(Tier) -> Option<&'static str> {
        move |t| (t > best).then_some("test CPU")
    }

    #[test]
    fn every_tier_name_parses_back_in_any_case() {
        for tier in Tier::ALL {
            assert_eq!(Tier::from_name(tier.name()), Some(tier));
            assert_eq!(Tier::from_name(&tier.name().to_uppercase()), Some(tier));
            assert_eq!(requested(os(tier.name()), None), Ok(Some(tier)));
            assert_eq!(tier.to_string(), tier.name());
        }
        assert_eq!(Tier::from_name("avx-512"), None);
        assert_eq!(Tier::from_name(""), None);
    }

    #[test]
    fn unset_or_empty_means_the_best_available_tier() {
        for best in Tier::ALL {
            assert_eq!(choose(None, None, cpu_up_to(best)), Ok(best));
            assert_eq!(choose(os(""), None, cpu_up_to(best)), Ok(best));
            assert_eq!(choose(None, os("0"), cpu_up_to(best)), Ok(best));
        }
    }

    #[test]
    fn portable_1_is_an_alias_that_the_kernels_variable_overrides() {
        let cpu = cpu_up_to(Tier::Avx512);
        assert_eq!(choose(None, os("1"), &cpu), Ok(Tier::Portable));
        assert_eq!(choose(os(""), os("1"), &cpu), Ok(Tier::Portable));
        assert_eq!(choose(os("avx2"), os("1"), &cpu), Ok(Tier::Avx2));
    }

    #[test]
    fn a_forced_tier_runs_only_where_the_cpu_has_it() {
        let cpu = cpu_up_to(Tier::Avx2);
        assert_eq!(choose(os("portable"), None, &cpu), Ok(Tier::Portable));
        assert_eq!(choose(os("AVX2"), None, &cpu), Ok(Tier::Avx2));
        let err = choose(os("avx512"), None, &cpu).unwrap_err();
        assert_eq!(
            err,
            TierError::Unsupported {
                tier: Tier::Avx512,
                missing: "test CPU"
            }
        );
        assert_eq!(err.status(), Status::NOT_SUPPORTED_MODE_ERR);
        let message = err.to_string();
        assert!(message.contains("QPL_FALLBACK_KERNELS=avx512"), "{message}");
        assert!(message.contains("test CPU"), "{message}");
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_the_value() {
        let cpu = cpu_up_to(Tier::Avx512);
        for bad in ["sse4", "avx-512", " avx2", "1"] {
            let err = choose(os(bad), None, &cpu).unwrap_err();
            assert_eq!(
                err,
                TierError::Unknown {
                    value: bad.to_string()
                }
            );
            assert_eq!(err.status(), Status::PATH_ERR);
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_utf8_is_unknown() {
        use std::os::unix::ffi::OsStrExt;
        let value = OsStr::from_bytes(b"avx\xFF");
        let err = choose(Some(value), None, cpu_up_to(Tier::Avx512)).unwrap_err();
        assert!(matches!(err, TierError::Unknown { .. }), "{err:?}");
    }

    #[test]
    fn the_portable_tier_is_always_available() {
        assert!(Tier::Portable.is_available());
        #[cfg(not(target_arch = "x86_64"))]
        assert!(!Tier::Avx2.is_available() && !Tier::Avx512.is_available());
    }

    /// A test run under `QPL_FALLBACK_KERNELS=<tier>` fails here, with the reason, when that
    /// tier cannot run, rather than passing on the portable kernels.
    #[test]
    fn the_tier_this_process_was_asked_for_runs() {
        if let Err(why) = kernel_tier() {
            panic!("{why}");
        }
    }
}
