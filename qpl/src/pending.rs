//! Asynchronous jobs that own their buffers until they complete.
//!
//! The buffers are `Vec`s moved into the [`Pending`] handle: their heap memory does not move
//! with the handle, and the handle gives them back only after the device is done — from
//! [`Pending::wait`], or by waiting in `Drop` (QPL has no cancel). A leaked handle leaks its
//! buffers too, so the device can never write into freed memory.

use qpl_fallback::{Completion, Flags, Job, Operation, Parser, Status};

use crate::error::{Error, Stage};
use crate::executor::{is_device_fault, Executor, Output, Route};
use crate::gaps;
use crate::path::Path;
use crate::slot::{RawIo, Slot};

/// The buffers of one job: source-1, the optional select/expand mask, the destination.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffers {
    /// Source-1.
    pub src1: Vec<u8>,
    /// Source-2 (the select/expand mask).
    pub src2: Option<Vec<u8>>,
    /// The destination; its length is `available_out`.
    pub dst: Vec<u8>,
}

/// A completed asynchronous job and its buffers.
#[derive(Debug)]
pub struct Finished {
    /// The result, as [`Executor::run`] would give it.
    pub result: Result<Output, Error>,
    /// The buffers, given back.
    pub buffers: Buffers,
}

/// A submitted job. Poll it with [`Pending::is_finished`], collect it with [`Pending::wait`];
/// dropping it waits for the device.
pub struct Pending {
    state: State,
}

enum State {
    Done(Box<Finished>),
    Running {
        slot: Box<dyn Slot>,
        buffers: Buffers,
        job: Job,
        executor: Executor,
    },
    Empty,
}

impl Pending {
    fn done(result: Result<Output, Error>, buffers: Buffers) -> Pending {
        Pending {
            state: State::Done(Box::new(Finished { result, buffers })),
        }
    }

    /// True once the job has completed (never blocks).
    pub fn is_finished(&mut self) -> bool {
        if let State::Running { slot, .. } = &mut self.state {
            match slot.poll() {
                None => return false,
                Some(result) => self.complete(result),
            }
        }
        true
    }

    /// Blocks until the job completes and returns its result with the buffers.
    pub fn wait(mut self) -> Finished {
        if let State::Running { slot, .. } = &mut self.state {
            let result = slot.wait();
            self.complete(result);
        }
        match std::mem::replace(&mut self.state, State::Empty) {
            State::Done(finished) => *finished,
            _ => unreachable!("completed above"),
        }
    }

    /// Turns the device's answer into a `Done` state; a device fault reruns the job on the CPU
    /// (the buffers are still ours).
    fn complete(&mut self, result: Result<Completion, Status>) {
        let State::Running {
            buffers: mut b,
            job,
            executor,
            ..
        } = std::mem::replace(&mut self.state, State::Empty)
        else {
            return;
        };
        let result = match result {
            Err(status) if is_device_fault(status) => {
                executor.run_fallback(&job, &b.src1, b.src2.as_deref(), &mut b.dst)
            }
            other => other
                .map(|completion| Output {
                    completion,
                    path: Path::Hardware,
                })
                .map_err(|status| {
                    let requested = executor.config().path;
                    Error::from_status(job.operation, requested, Path::Hardware, Stage::Run, status)
                }),
        };
        self.state = State::Done(Box::new(Finished { result, buffers: b }));
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let State::Running { slot, .. } = &mut self.state {
            // The device may still write the destination: wait before the buffers go.
            let _ = slot.wait();
        }
    }
}

impl Executor {
    /// Starts `job` on buffers it owns until completion. On the accelerator the call returns
    /// as soon as the job is queued; on the CPU paths (and for jobs the wrapper must adapt
    /// first) the job has already run when this returns.
    pub fn submit(&self, job: &Job, mut buffers: Buffers) -> Pending {
        let direct = self.route(job.operation).ok() == Some(Route::Hardware)
            && self.runs_unchanged_on_device(job, &buffers);
        if direct {
            if let Ok(mut slot) = self.slot(Route::Hardware) {
                let io = RawIo::new(&buffers.src1, buffers.src2.as_deref(), &mut buffers.dst);
                // SAFETY: `io` points into the heap memory of `buffers`' Vecs, which moving
                // `buffers` into the returned `Pending` does not move; `Pending` keeps them
                // until the slot has completed (`wait`, `is_finished`, or `Drop`), and a
                // leaked `Pending` leaks them.
                let started = self.config().retry.start(|| unsafe { slot.start(job, io) });
                if started {
                    return Pending {
                        state: State::Running {
                            slot,
                            buffers,
                            job: *job,
                            executor: self.clone(),
                        },
                    };
                }
            }
        }
        let result = self.run(
            job,
            &buffers.src1,
            buffers.src2.as_deref(),
            &mut buffers.dst,
        );
        Pending::done(result, buffers)
    }

    /// True when `job` is valid and goes to the device exactly as given: no gap to close, no
    /// split, no bounce buffer.
    fn runs_unchanged_on_device(&self, job: &Job, b: &Buffers) -> bool {
        let Ok(Some(shape)) = qpl_fallback::validate(job, &b.src1, b.src2.as_deref(), b.dst.len())
        else {
            return false;
        };
        let out_bits = job.out_bit_width.bits().unwrap_or(0);
        let adapted = gaps::is_width_zero_stream(job, &b.src1)
            || job.flags.contains(Flags::FORCE_ARRAY_OUTPUT)
            // A deflate source: a header to strip, and inflate errors to rerun on the CPU.
            || job.flags.contains(Flags::DECOMPRESS_ENABLE)
            || (job.parser == Parser::PARQUET_RLE && job.drop_initial_bytes > 0)
            || (job.operation == Operation::Expand && job.parser != Parser::PARQUET_RLE)
            || (shape.nominal_width == 1
                && out_bits > 8
                && job.flags.contains(Flags::OUT_BE)
                && !b.dst.len().is_multiple_of(out_bits as usize / 8));
        !adapted && b.src1.len() as u64 <= self.transfer_limit()
    }
}
