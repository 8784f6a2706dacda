//! The only place that touches QPL's C API: one owner type for a `qpl_job` (initialised once,
//! finalised exactly once), a pool that reuses them, and the field conversion.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::Mutex;

use qpl_sys as sys;

use qpl_fallback::{Completion, Job, Status};

/// Which QPL path a job object is initialised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    Hardware,
    Software,
}

impl Engine {
    fn raw(self) -> sys::qpl_path_t {
        match self {
            Engine::Hardware => sys::qpl_path_t::qpl_path_hardware,
            Engine::Software => sys::qpl_path_t::qpl_path_software,
        }
    }
}

/// An initialised `qpl_job` in its own 64-byte-aligned allocation of QPL's reported size.
pub(crate) struct QplJob {
    ptr: NonNull<sys::qpl_job>,
    layout: Layout,
}

// SAFETY: a qpl_job holds no thread-affine state (docs/semantics.md, "Threads": its scratch lives in the
// allocation, process-wide state is read-only); `QplJob` is not `Sync`, so one thread at a
// time uses it.
unsafe impl Send for QplJob {}

impl QplJob {
    /// Allocates and initialises a job for `engine`. A hardware job whose init fails (no
    /// device) is finalised and the status returned: QPL would silently run it in software.
    pub(crate) fn new(engine: Engine) -> Result<QplJob, Status> {
        let mut size = 0u32;
        // SAFETY: `size` is a valid out-pointer for the duration of the call.
        let status = unsafe { sys::qpl_get_job_size(engine.raw(), &mut size) };
        if status.0 != 0 {
            return Err(Status(status.0));
        }
        let layout = Layout::from_size_align(size.max(1) as usize, 64)
            .map_err(|_| Status::LIBRARY_INTERNAL_ERR)?;
        // SAFETY: the layout has a nonzero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw.cast::<sys::qpl_job>()).ok_or(Status::NO_MEM_ERR)?;
        let job = QplJob { ptr, layout };
        // SAFETY: `ptr` points to `size` writable bytes, as qpl_init_job requires; on failure
        // `job`'s Drop calls qpl_fini_job, which accepts any job qpl_init_job has seen.
        let status = unsafe { sys::qpl_init_job(engine.raw(), job.ptr.as_ptr()) };
        if status.0 != 0 {
            return Err(Status(status.0));
        }
        Ok(job)
    }

    /// Sets every field analytics reads, and zeroes every result field (QPL keeps stale
    /// values in fields a run does not write).
    ///
    /// # Safety
    /// The buffers must stay valid, and `dst` unaliased, until the job has completed
    /// (`execute`/`wait` returned, or `check` returned something other than 1).
    pub(crate) unsafe fn prepare(
        &mut self,
        job: &Job,
        numa_id: i32,
        src1: *const [u8],
        src2: Option<*const [u8]>,
        dst: *mut [u8],
    ) {
        // SAFETY: `ptr` is an initialised job owned by `self`, and `&mut self` is exclusive.
        let j = unsafe { self.ptr.as_mut() };
        j.next_in_ptr = src1.cast::<u8>().cast_mut();
        j.available_in = src1.len() as u32;
        j.next_out_ptr = dst.cast::<u8>();
        j.available_out = dst.len() as u32;
        let (src2_ptr, src2_len) = match src2 {
            Some(mask) => (mask.cast::<u8>().cast_mut(), mask.len() as u32),
            None => (std::ptr::null_mut(), 0),
        };
        j.next_src2_ptr = src2_ptr;
        j.available_src2 = src2_len;
        j.op = sys::qpl_operation(job.operation.code());
        j.flags = job.flags.0;
        j.parser = sys::qpl_parser(job.parser.0);
        j.src1_bit_width = job.src1_bit_width;
        j.src2_bit_width = job.src2_bit_width;
        j.num_input_elements = job.num_input_elements;
        j.param_low = job.param_low;
        j.param_high = job.param_high;
        j.out_bit_width = sys::qpl_out_format(job.out_bit_width.0);
        j.drop_initial_bytes = job.drop_initial_bytes;
        j.initial_output_index = job.initial_output_index;
        j.numa_id = numa_id;
        j.total_in = 0;
        j.total_out = 0;
        j.crc = 0;
        j.xor_checksum = 0;
        j.last_bit_offset = 0;
        j.first_index_min_value = 0;
        j.last_index_max_value = 0;
        j.sum_value = 0;
    }

    /// `qpl_submit_job`: starts the prepared job.
    pub(crate) fn submit(&mut self) -> Status {
        // SAFETY: an initialised job; `prepare`'s contract keeps its buffers valid.
        Status(unsafe { sys::qpl_submit_job(self.ptr.as_ptr()) }.0)
    }

    /// `qpl_check_job`: 1 (`BEING_PROCESSED`) while running, else the final status.
    pub(crate) fn check(&mut self) -> Status {
        // SAFETY: an initialised job.
        Status(unsafe { sys::qpl_check_job(self.ptr.as_ptr()) }.0)
    }

    /// `qpl_wait_job`: blocks until the job completes and returns its final status.
    pub(crate) fn wait(&mut self) -> Status {
        // SAFETY: an initialised job.
        Status(unsafe { sys::qpl_wait_job(self.ptr.as_ptr()) }.0)
    }

    /// The result fields of the last run.
    pub(crate) fn completion(&self) -> Completion {
        // SAFETY: an initialised job owned by `self`.
        let j = unsafe { self.ptr.as_ref() };
        Completion {
            total_out: j.total_out,
            last_bit_offset: j.last_bit_offset,
            first_index_min_value: j.first_index_min_value,
            last_index_max_value: j.last_index_max_value,
            sum_value: j.sum_value,
            crc: j.crc,
            xor_checksum: j.xor_checksum,
        }
    }
}

impl Drop for QplJob {
    fn drop(&mut self) {
        // SAFETY: the job was initialised (or init was attempted) by `new` and is finalised
        // once, here; the allocation came from `alloc_zeroed` with `layout`.
        unsafe {
            sys::qpl_fini_job(self.ptr.as_ptr());
            dealloc(self.ptr.as_ptr().cast(), self.layout);
        }
    }
}

/// Idle jobs kept per engine: enough for a device's work-queue depth, bounded so that a burst
/// does not pin memory forever (a software job is ~740 KB).
const POOL_LIMIT: usize = 32;

static SOFTWARE_POOL: Mutex<Vec<QplJob>> = Mutex::new(Vec::new());
static HARDWARE_POOL: Mutex<Vec<QplJob>> = Mutex::new(Vec::new());

fn pool(engine: Engine) -> &'static Mutex<Vec<QplJob>> {
    match engine {
        Engine::Hardware => &HARDWARE_POOL,
        Engine::Software => &SOFTWARE_POOL,
    }
}

/// A job taken from the pool; it goes back when dropped.
pub(crate) struct PooledJob {
    job: Option<QplJob>,
    engine: Engine,
}

impl PooledJob {
    /// A reused job, or a new one (`qpl_init_job` is costly, hence the pool).
    pub(crate) fn take(engine: Engine) -> Result<PooledJob, Status> {
        let reused = pool(engine).lock().ok().and_then(|mut idle| idle.pop());
        let job = match reused {
            Some(job) => job,
            None => QplJob::new(engine)?,
        };
        Ok(PooledJob {
            job: Some(job),
            engine,
        })
    }

    pub(crate) fn job(&mut self) -> &mut QplJob {
        self.job.as_mut().expect("present until drop")
    }
}

impl Drop for PooledJob {
    fn drop(&mut self) {
        if let (Some(job), Ok(mut idle)) = (self.job.take(), pool(self.engine).lock()) {
            if idle.len() < POOL_LIMIT {
                idle.push(job);
            }
        }
    }
}

/// Jobs currently idle in the pool of `engine` (for tests and diagnostics).
pub(crate) fn idle_jobs(engine: Engine) -> usize {
    pool(engine).lock().map(|idle| idle.len()).unwrap_or(0)
}
