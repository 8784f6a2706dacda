//! A slot runs one job at a time, possibly asynchronously: a pooled QPL job (hardware or
//! software), the fallback, or a test double. Everything above this module is safe code.

use std::time::Duration;

use qpl_fallback::{Completion, Job, Status};

/// Raw views of a job's buffers, handed to a slot that may keep using them after `start`
/// returns (a device writes the destination later).
#[derive(Clone, Copy)]
pub(crate) struct RawIo {
    pub(crate) src1: *const [u8],
    pub(crate) src2: Option<*const [u8]>,
    pub(crate) dst: *mut [u8],
}

impl RawIo {
    pub(crate) fn new(src1: &[u8], src2: Option<&[u8]>, dst: &mut [u8]) -> RawIo {
        RawIo {
            src1,
            src2: src2.map(|m| m as *const [u8]),
            dst,
        }
    }
}

/// The state of a started job.
pub(crate) enum Started {
    /// Submitted; `poll`/`wait` give the result.
    Running,
    /// Not submitted: the work queues are full.
    // Only QPL's slot (and the tests' fake device) answers busy: unused without QPL.
    #[cfg_attr(not(qpl_linked), allow(dead_code))]
    Busy,
}

/// One job at a time.
pub(crate) trait Slot: Send {
    /// Starts `job` on `io`.
    ///
    /// # Safety
    /// The buffers behind `io` must stay valid and unmoved, and `dst` unaliased, until `poll`
    /// has returned `Some` or `wait` has returned (or `start` returned `Busy`).
    unsafe fn start(&mut self, job: &Job, io: RawIo) -> Started;
    /// `None` while the job runs, then its result.
    fn poll(&mut self) -> Option<Result<Completion, Status>>;
    /// Blocks until the job completes.
    fn wait(&mut self) -> Result<Completion, Status>;
}

/// Runs a job synchronously on a slot: the borrows outlive the job because we wait before
/// returning. `None`: the queues stayed busy for every attempt of `retry`.
pub(crate) fn run_blocking<S: Slot + ?Sized>(
    slot: &mut S,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst: &mut [u8],
    retry: &RetryPolicy,
) -> Option<Result<Completion, Status>> {
    let io = RawIo::new(src1, src2, dst);
    // SAFETY: `src1`, `src2` and `dst` are borrowed for this whole call, and we return only
    // after `wait` (or after `start` reported that nothing was submitted).
    let started = retry.start(|| unsafe { slot.start(job, io) });
    started.then(|| slot.wait())
}

/// How long to keep trying when the accelerator's work queues are full (status 5) before the
/// call runs on the CPU instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Submission attempts in all (at least 1).
    pub attempts: u32,
    /// Pause after the first busy answer; doubled after each further one.
    pub first_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 8,
            first_backoff: Duration::from_micros(1),
        }
    }
}

impl RetryPolicy {
    /// Calls `start` until it submits or the attempts run out; true when submitted.
    pub(crate) fn start(&self, mut start: impl FnMut() -> Started) -> bool {
        let mut backoff = self.first_backoff;
        for attempt in 0..self.attempts.max(1) {
            if attempt > 0 {
                std::thread::sleep(backoff);
                backoff = backoff.saturating_mul(2);
            }
            if let Started::Running = start() {
                return true;
            }
        }
        false
    }
}

/// The pure-Rust engine as a slot: it completes inside `start`.
#[derive(Default)]
pub(crate) struct FallbackSlot {
    result: Option<Result<Completion, Status>>,
}

impl Slot for FallbackSlot {
    unsafe fn start(&mut self, job: &Job, io: RawIo) -> Started {
        // SAFETY: the caller guarantees the buffers are valid and `dst` unaliased for now,
        // and nothing of them is kept after this call.
        let (src1, src2, dst) = unsafe { (&*io.src1, io.src2.map(|m| &*m), &mut *io.dst) };
        self.result = Some(qpl_fallback::execute(job, src1, src2, dst));
        Started::Running
    }

    fn poll(&mut self) -> Option<Result<Completion, Status>> {
        self.result.take()
    }

    fn wait(&mut self) -> Result<Completion, Status> {
        self.result.take().unwrap_or(Err(Status::JOB_NOT_SUBMITTED))
    }
}

/// A pooled QPL job as a slot.
#[cfg(qpl_linked)]
pub(crate) struct QplSlot {
    job: crate::ffi::PooledJob,
    numa_id: i32,
    /// A final status already known at submission.
    finished: Option<Status>,
}

#[cfg(qpl_linked)]
impl QplSlot {
    pub(crate) fn new(engine: crate::ffi::Engine, numa_id: i32) -> Result<QplSlot, Status> {
        Ok(QplSlot {
            job: crate::ffi::PooledJob::take(engine)?,
            numa_id,
            finished: None,
        })
    }

    fn result(&mut self, status: Status) -> Result<Completion, Status> {
        if status.is_ok() {
            Ok(self.job.job().completion())
        } else {
            Err(status)
        }
    }
}

#[cfg(qpl_linked)]
impl Slot for QplSlot {
    unsafe fn start(&mut self, job: &Job, io: RawIo) -> Started {
        // SAFETY: the caller's contract is `prepare`'s.
        unsafe {
            self.job
                .job()
                .prepare(job, self.numa_id, io.src1, io.src2, io.dst)
        };
        match self.job.job().submit() {
            Status::QUEUES_ARE_BUSY_ERR => Started::Busy,
            status => {
                // A nonzero status is final (a rejected job; or the software path, which runs
                // inside submit). After OK, check/wait give the final status: the software
                // path answers OK at once, the hardware path when the device is done.
                self.finished = (!status.is_ok()).then_some(status);
                Started::Running
            }
        }
    }

    fn poll(&mut self) -> Option<Result<Completion, Status>> {
        let status = match self.finished.take() {
            Some(status) => status,
            None => match self.job.job().check() {
                Status::BEING_PROCESSED => return None,
                status => status,
            },
        };
        Some(self.result(status))
    }

    fn wait(&mut self) -> Result<Completion, Status> {
        let status = match self.finished.take() {
            Some(status) => status,
            None => self.job.job().wait(),
        };
        self.result(status)
    }
}
