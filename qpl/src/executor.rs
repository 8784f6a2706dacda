//! [`Executor`]: runs jobs on a [`Path`] with a [`Config`], routing each to the accelerator,
//! QPL's CPU code or the fallback, and falling back to the CPU when the accelerator is busy or
//! faulted.

use std::fmt;
use std::sync::Arc;

use qpl_fallback::{Completion, Flags, Job, Operation, Status, StatusKind};

use crate::error::{Error, Stage};
#[cfg(qpl_linked)]
use crate::ffi;
use crate::hardware::{hardware_info, Unavailable};
use crate::path::{Path, QPL_LINKED};
use crate::slot::{self, run_blocking, RetryPolicy, Slot};
use crate::{chunk, gaps};

/// A completed job: its result fields and the path that really ran (never `Auto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// The result fields.
    pub completion: Completion,
    /// The path that produced them.
    pub path: Path,
}

/// Settings of an [`Executor`].
#[derive(Clone, Debug)]
pub struct Config {
    /// Where jobs run.
    pub path: Path,
    /// `qpl_job.numa_id` for hardware jobs: -1 (QPL's default) uses devices of the calling
    /// thread's socket, -2 its NUMA node, -3 any device, n ≥ 0 node n.
    pub numa_id: i32,
    /// Input bytes one hardware descriptor may carry; `None`: the device's (sysfs), else 2 MiB.
    /// Larger jobs are split at element or run boundaries and merged.
    pub max_transfer_size: Option<u64>,
    /// What to do when the accelerator's queues are full.
    pub retry: RetryPolicy,
    /// The largest output the `Vec`-returning calls ([`Executor::decode`] and friends) allocate;
    /// a larger one is refused with 58 `BUFFER_TOO_LARGE_ERR` instead of trusting a count from
    /// the data. Raising it is the caller's consent.
    pub max_output_bytes: usize,
}

/// Default [`Config::max_output_bytes`]: 256 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 256 << 20;

impl Default for Config {
    fn default() -> Config {
        Config {
            path: Path::Auto,
            numa_id: -1,
            max_transfer_size: None,
            retry: RetryPolicy::default(),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// Makes hardware slots: QPL's hardware path, or a test double.
pub(crate) type DeviceFactory = Arc<dyn Fn() -> Result<Box<dyn Slot>, Status> + Send + Sync>;

/// Runs jobs on a path. Cheap to create and to clone; QPL job objects are pooled and reused
/// across executors.
#[derive(Clone)]
pub struct Executor {
    config: Config,
    /// `Some` where an accelerator is usable (or simulated in tests).
    device: Option<DeviceFactory>,
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("config", &self.config)
            .field("device", &self.device.is_some())
            .finish()
    }
}

/// The concrete path a job is routed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    Hardware,
    Software,
    Fallback,
}

impl Route {
    pub(crate) fn path(self) -> Path {
        match self {
            Route::Hardware => Path::Hardware,
            Route::Software => Path::Software,
            Route::Fallback => Path::Fallback,
        }
    }
}

impl Executor {
    /// An executor for `path` with default settings.
    pub fn new(path: Path) -> Executor {
        Executor::with_config(Config {
            path,
            ..Config::default()
        })
    }

    /// An executor with `config`.
    pub fn with_config(config: Config) -> Executor {
        Executor {
            device: hardware_device(config.numa_id),
            config,
        }
    }

    /// An executor whose "hardware" is `device` (a test double), available regardless of
    /// the host.
    #[cfg(test)]
    pub(crate) fn with_device(config: Config, device: DeviceFactory) -> Executor {
        Executor {
            config,
            device: Some(device),
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn transfer_limit(&self) -> u64 {
        self.config
            .max_transfer_size
            .unwrap_or_else(|| hardware_info().max_transfer_size)
            .max(64)
    }

    pub(crate) fn route(&self, operation: Operation) -> Result<Route, Error> {
        let unavailable = |reason: Unavailable, path| Error {
            operation,
            status: reason.status(),
            requested: path,
            path,
            stage: Stage::Route,
            message: reason.to_string(),
        };
        match self.config.path {
            Path::Fallback => Ok(Route::Fallback),
            Path::Software if QPL_LINKED => Ok(Route::Software),
            Path::Software => Err(unavailable(Unavailable::NotLinked, Path::Software)),
            Path::Hardware => match (&self.device, &hardware_info().unavailable) {
                (Some(_), _) => Ok(Route::Hardware),
                (None, Some(reason)) => Err(unavailable(reason.clone(), Path::Hardware)),
                (None, None) => Err(unavailable(Unavailable::NotLinked, Path::Hardware)),
            },
            Path::Auto if self.device.is_some() => Ok(Route::Hardware),
            Path::Auto => Ok(Route::Fallback),
        }
    }

    /// Runs `job` over caller-owned buffers and waits for it.
    ///
    /// `src1` is the source stream, `src2` the select/expand mask, `dst` the destination
    /// (its length is `available_out`). Returns the result fields and the path that ran, or an
    /// [`Error`] that is the same for the same bad input on every path. A busy or failing
    /// accelerator never fails the call: it runs on the CPU instead, and says so.
    pub fn run(
        &self,
        job: &Job,
        src1: &[u8],
        src2: Option<&[u8]>,
        dst: &mut [u8],
    ) -> Result<Output, Error> {
        let route = self.route(job.operation)?;
        if job.flags.contains(Flags::DECOMPRESS_ENABLE) {
            // Source-1 is a deflate stream: none of the uncompressed workarounds apply.
            return gaps::run_decompress(self, route, job, src1, src2, dst);
        }
        if gaps::is_width_zero_stream(job, src1) {
            return gaps::run_width_zero(self, route, job, src1, src2, dst);
        }
        self.run_routed(route, job, src1, src2, dst)
    }

    pub(crate) fn run_routed(
        &self,
        route: Route,
        job: &Job,
        src1: &[u8],
        src2: Option<&[u8]>,
        dst: &mut [u8],
    ) -> Result<Output, Error> {
        let requested = self.config.path;
        let fail = |status| {
            Error::from_status(job.operation, requested, route.path(), Stage::Check, status)
        };
        let shape = qpl_fallback::validate(job, src1, src2, dst.len()).map_err(fail)?;
        let Some(shape) = shape else {
            // Extract with param_low > param_high: complete, nothing to do (D2).
            let completion = qpl_fallback::execute(job, src1, src2, dst).map_err(fail)?;
            return Ok(Output {
                completion,
                path: route.path(),
            });
        };
        match route {
            Route::Fallback => self.run_fallback(job, src1, src2, dst),
            Route::Software | Route::Hardware => {
                match gaps::run_qpl(self, route, job, shape, src1, src2, dst) {
                    Some(result) => result.map(|completion| Output {
                        completion,
                        path: route.path(),
                    }),
                    // Busy queues, or a device fault: this call runs on the CPU.
                    None => self.run_fallback(job, src1, src2, dst),
                }
            }
        }
    }

    pub(crate) fn run_fallback(
        &self,
        job: &Job,
        src1: &[u8],
        src2: Option<&[u8]>,
        dst: &mut [u8],
    ) -> Result<Output, Error> {
        qpl_fallback::execute(job, src1, src2, dst)
            .map(|completion| Output {
                completion,
                path: Path::Fallback,
            })
            .map_err(|status| {
                let requested = self.config.path;
                Error::from_status(job.operation, requested, Path::Fallback, Stage::Run, status)
            })
    }

    /// A slot for one job on `route`'s engine. `Err` when none can be had (a hardware job
    /// that cannot initialise): the caller falls back to the CPU.
    pub(crate) fn slot(&self, route: Route) -> Result<Box<dyn Slot>, Status> {
        match route {
            Route::Hardware => match &self.device {
                Some(device) => device(),
                None => Err(Status::INIT_HW_NOT_SUPPORTED),
            },
            Route::Software => software_slot(),
            Route::Fallback => Ok(Box::new(slot::FallbackSlot::default())),
        }
    }

    /// Runs a prepared job on `route`, split into pieces when it exceeds the device's
    /// transfer limit; `None` when the accelerator is busy, faulted or cannot take it.
    pub(crate) fn run_job(
        &self,
        route: Route,
        job: &Job,
        src1: &[u8],
        src2: Option<&[u8]>,
        dst: &mut [u8],
    ) -> Option<Result<Completion, Status>> {
        if route == Route::Hardware && src1.len() as u64 > self.transfer_limit() {
            return chunk::run_chunked(self, route, job, src1, src2, dst);
        }
        self.run_on_slot(route, job, src1, src2, dst)
    }

    /// Runs a prepared job on one slot of `route`; `None` when the accelerator is busy or
    /// faulted (the caller then runs the job on the CPU).
    pub(crate) fn run_on_slot(
        &self,
        route: Route,
        job: &Job,
        src1: &[u8],
        src2: Option<&[u8]>,
        dst: &mut [u8],
    ) -> Option<Result<Completion, Status>> {
        let mut slot = self.slot(route).ok()?;
        let result = run_blocking(slot.as_mut(), job, src1, src2, dst, &self.config.retry)?;
        match result {
            Err(status) if route == Route::Hardware && is_device_fault(status) => None,
            other => Some(other),
        }
    }
}

/// Statuses that say the accelerator, not the job, failed: the CPU can still do the job.
pub(crate) fn is_device_fault(status: Status) -> bool {
    matches!(
        status.kind(),
        StatusKind::Busy | StatusKind::Device | StatusKind::Unsupported | StatusKind::Init
    )
}

#[cfg(qpl_linked)]
fn hardware_device(numa_id: i32) -> Option<DeviceFactory> {
    hardware_info().unavailable.is_none().then(|| {
        Arc::new(move || {
            slot::QplSlot::new(ffi::Engine::Hardware, numa_id).map(|s| Box::new(s) as Box<dyn Slot>)
        }) as DeviceFactory
    })
}

#[cfg(not(qpl_linked))]
fn hardware_device(_numa_id: i32) -> Option<DeviceFactory> {
    None
}

#[cfg(qpl_linked)]
fn software_slot() -> Result<Box<dyn Slot>, Status> {
    slot::QplSlot::new(ffi::Engine::Software, 0).map(|s| Box::new(s) as Box<dyn Slot>)
}

#[cfg(not(qpl_linked))]
fn software_slot() -> Result<Box<dyn Slot>, Status> {
    Err(Status::INIT_HW_NOT_SUPPORTED)
}

/// QPL jobs idle in the pools (software, hardware): reused by later jobs.
pub fn pooled_jobs() -> (usize, usize) {
    #[cfg(qpl_linked)]
    {
        (
            ffi::idle_jobs(ffi::Engine::Software),
            ffi::idle_jobs(ffi::Engine::Hardware),
        )
    }
    #[cfg(not(qpl_linked))]
    {
        (0, 0)
    }
}
