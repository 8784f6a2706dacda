//! Workloads of the qpl-rs benchmark suite (`cargo bench -p qpl-benches`): the benchmark
//! groups, their inputs and jobs, and a raw QPL job for measuring QPL without the safe wrapper.
//!
//! Every group is named `<operation>/<input>` and is run at each bit width of [`WIDTHS`] over
//! [`elements`] values. The criterion harness is `benches/analytics.rs`; the report is the
//! `bench-table` binary. See `RESULTS.md` beside this crate for the numbers and the commands.
//!
//! The Parquet encodings' suite (`benches/parquet.rs`) runs the cases of [`PARQUET_CASES`].

use qpl_fallback::{
    encode_parquet_rle, pack_be, pack_le, read_run_header, Flags, Job, Operation, OutBitWidth,
    Parser,
};

/// The source bit widths every group runs at.
pub const WIDTHS: [u32; 6] = [1, 3, 8, 13, 17, 32];

/// Elements per job when `QPL_BENCH_ELEMENTS` is not set: 1M (2^20).
pub const DEFAULT_ELEMENTS: usize = 1 << 20;

/// The largest accepted element count: keeps every buffer (4 bytes per element at most)
/// within QPL's 32-bit buffer lengths.
pub const MAX_ELEMENTS: usize = 1 << 28;

/// Flags of the decoding-speed comparison: no CRC-32/XOR checksums and no aggregates, on every
/// path. The `+checks` ids run without them.
pub const FAST_FLAGS: Flags = Flags(Flags::OMIT_CHECKSUMS.0 | Flags::OMIT_AGGREGATES.0);

/// Elements per job: `QPL_BENCH_ELEMENTS` (a number, or one with a `K` or `M` suffix meaning
/// 2^10 or 2^20: `16M`), else [`DEFAULT_ELEMENTS`].
///
/// # Panics
/// When the variable is set but is not such a count in `1..=MAX_ELEMENTS`: a typo should not
/// silently benchmark the default size.
pub fn elements() -> usize {
    match std::env::var("QPL_BENCH_ELEMENTS") {
        Ok(text) => parse_elements(&text).unwrap_or_else(|| {
            panic!("QPL_BENCH_ELEMENTS={text:?}: expected a count such as 1000000, 1M or 16M")
        }),
        Err(_) => DEFAULT_ELEMENTS,
    }
}

/// Parses an element count: digits, optionally followed by `K`/`k` (2^10) or `M`/`m` (2^20).
/// `None` unless the result is in `1..=MAX_ELEMENTS`.
pub fn parse_elements(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, scale) = match text.char_indices().last()? {
        (i, 'K' | 'k') => (&text[..i], 1 << 10),
        (i, 'M' | 'm') => (&text[..i], 1 << 20),
        _ => (text, 1),
    };
    let n = digits.parse::<usize>().ok()?.checked_mul(scale)?;
    (1..=MAX_ELEMENTS).contains(&n).then_some(n)
}

/// The memory traffic of decoding to `u32` without the decoding: reads every byte of `src`
/// (a job's source-1) and writes every value of `dst`, 64 values at a time, each chunk filled
/// with a running XOR of its share of the source's 8-byte words (so neither stream can be
/// optimised away). The `memory` id of the `extract_u32` groups: past the L2 cache (the
/// suite's default size here) memory sets this rate, and a decoder near it is bound by the
/// bytes it moves, not by decoding. Not a strict bound: a plain loop, compiled for the
/// baseline target, whose stores a SIMD kernel can issue somewhat better; in cache it is
/// its loop that limits it.
pub fn memory_reference(src: &[u8], dst: &mut [u32]) {
    let chunks = dst.len().div_ceil(64).max(1);
    let share = src.len().div_ceil(chunks).next_multiple_of(8);
    let mut shares = src.chunks(share.max(8));
    let mut acc = 0u32;
    for out in dst.chunks_mut(64) {
        let words = shares.next().unwrap_or_default().chunks_exact(8);
        let tail = words
            .remainder()
            .iter()
            .fold(0u64, |a, &b| a ^ u64::from(b));
        let mixed = words.fold(tail, |a, w| {
            a ^ u64::from_le_bytes(w.try_into().expect("8-byte chunk"))
        });
        acc = acc.wrapping_add(mixed as u32 ^ (mixed >> 32) as u32);
        out.fill(acc);
    }
}

/// How source-1 is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Random values below 2^w, packed LSB first.
    LePacked,
    /// Random values below 2^w, packed MSB first.
    BePacked,
    /// Parquet RLE/bit-packing hybrid holding one long bit-packed run of random values (no
    /// value repeats 8 times in a row, so the encoder never starts an RLE run).
    ParquetBitpacked,
    /// Parquet hybrid of runs of one repeated value, run lengths uniform in 8..=200, each
    /// value different from the one before: RLE runs only, but for a last repeat shorter than
    /// 8 values (one bit-packed group).
    ParquetRleRuns,
}

impl Input {
    /// The group-name suffix: `le_packed`, `be_packed`, `parquet_bitpacked`,
    /// `parquet_rle_runs`.
    pub fn name(self) -> &'static str {
        match self {
            Input::LePacked => "le_packed",
            Input::BePacked => "be_packed",
            Input::ParquetBitpacked => "parquet_bitpacked",
            Input::ParquetRleRuns => "parquet_rle_runs",
        }
    }
}

/// The benchmarked operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Extract all n elements as 32-bit array elements (`OutBitWidth::W32`). At width 1 with
    /// `FORCE_ARRAY_OUTPUT`, so the output is a 0/1 `u32` array on every path rather than an
    /// index list (qpl-rs widens QPL's bit vector for that flag).
    ExtractU32,
    /// Extract all n elements at the nominal output width (packed at the source width).
    ExtractNominal,
    /// `x == v` for a value `v` present in the input, to a bit vector.
    ScanEq,
    /// `max/4 <= x <= max/2` (`max` = 2^w - 1), to a bit vector.
    ScanRange,
    /// Keep the elements whose bit in a random ~50% mask is 1; nominal (packed) output.
    Select,
    /// Spread the elements over the 1 bits of a random ~50% mask of n bits, zeros elsewhere;
    /// nominal (packed) output of n elements.
    Expand,
}

impl Op {
    /// The group-name prefix: `extract_u32`, `extract_nominal`, `scan_eq`, `scan_range`,
    /// `select`, `expand`.
    pub fn name(self) -> &'static str {
        match self {
            Op::ExtractU32 => "extract_u32",
            Op::ExtractNominal => "extract_nominal",
            Op::ScanEq => "scan_eq",
            Op::ScanRange => "scan_range",
            Op::Select => "select",
            Op::Expand => "expand",
        }
    }
}

/// One criterion group: an operation over one kind of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// What is done.
    pub op: Op,
    /// To what.
    pub input: Input,
}

impl Group {
    /// `<operation>/<input>`, the criterion group name.
    pub fn name(self) -> String {
        format!("{}/{}", self.op.name(), self.input.name())
    }
}

/// Every group of the suite, in report order.
pub const GROUPS: [Group; 9] = [
    Group {
        op: Op::ExtractU32,
        input: Input::LePacked,
    },
    Group {
        op: Op::ExtractU32,
        input: Input::BePacked,
    },
    Group {
        op: Op::ExtractU32,
        input: Input::ParquetBitpacked,
    },
    Group {
        op: Op::ExtractU32,
        input: Input::ParquetRleRuns,
    },
    Group {
        op: Op::ExtractNominal,
        input: Input::LePacked,
    },
    Group {
        op: Op::ScanEq,
        input: Input::ParquetBitpacked,
    },
    Group {
        op: Op::ScanRange,
        input: Input::LePacked,
    },
    Group {
        op: Op::Select,
        input: Input::LePacked,
    },
    Group {
        op: Op::Expand,
        input: Input::LePacked,
    },
];

/// The cases of the Parquet encodings' suite (`benches/parquet.rs`), in report order: each is
/// the criterion group `parquet/<case>`, one page of [`elements`] values decoded by the
/// fallback (`fallback`), by arrow-rs (`arrow_rs`, but for GroupVarInt, which arrow-rs
/// lacks) and moved by [`memory_reference`] (`memory`).
pub const PARQUET_CASES: [&str; 15] = [
    "plain_i32",
    "plain_boolean",
    "dictionary_i32",
    "dictionary_bytes",
    "delta_binary_packed_i32_sorted",
    "delta_binary_packed_i32_random",
    "delta_binary_packed_i64_sorted",
    "delta_binary_packed_i64_random",
    "delta_length_byte_array",
    "delta_byte_array",
    "byte_stream_split_f32",
    "byte_stream_split_f64",
    "group_varint_i32",
    "group_varint_i64",
    "levels_v1",
];

/// A small deterministic generator (xorshift64*): the inputs are the same on every run, and
/// the suite needs no random-number crate.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value; 0 is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A random value below 2^width (`width` 1..=32).
    pub fn bits(&mut self, width: u32) -> u32 {
        (self.next_u64() >> (64 - width)) as u32
    }

    /// A random value in `low..=high`.
    pub fn range(&mut self, low: u32, high: u32) -> u32 {
        low + (self.next_u64() % u64::from(high - low + 1)) as u32
    }
}

/// The largest value of `width` bits.
pub fn max_value(width: u32) -> u32 {
    u32::MAX >> (32 - width)
}

/// `n` random values below 2^width.
pub fn random_values(rng: &mut Rng, n: usize, width: u32) -> Vec<u32> {
    (0..n).map(|_| rng.bits(width)).collect()
}

/// `n` random values below 2^width with no value repeated 8 times in a row (the 8th repeat
/// gets its lowest bit flipped), so Parquet's hybrid encoder bit-packs all of them.
pub fn values_without_runs(rng: &mut Rng, n: usize, width: u32) -> Vec<u32> {
    let mut values = Vec::with_capacity(n);
    let mut repeat = 0;
    for _ in 0..n {
        let mut v = rng.bits(width);
        if values.last() == Some(&v) {
            repeat += 1;
            if repeat == 7 {
                v ^= 1;
                repeat = 0;
            }
        } else {
            repeat = 0;
        }
        values.push(v);
    }
    values
}

/// `n` values in runs of one repeated value, run lengths uniform in `8..=200` (the last run
/// cut at n), each run's value different from the previous one.
pub fn values_in_runs(rng: &mut Rng, n: usize, width: u32) -> Vec<u32> {
    let mut values = Vec::with_capacity(n);
    let mut previous = None;
    while values.len() < n {
        let length = (rng.range(8, 200) as usize).min(n - values.len());
        let mut v = rng.bits(width);
        if previous == Some(v) {
            v ^= 1;
        }
        previous = Some(v);
        values.extend(std::iter::repeat_n(v, length));
    }
    values
}

/// Bytes of the unsigned LEB128 varint of `v` (the hybrid's run headers).
fn varint_len(mut v: u64) -> usize {
    let mut len = 1;
    while v >= 0x80 {
        v >>= 7;
        len += 1;
    }
    len
}

/// A ready benchmark case: one group at one width, its input and its jobs.
#[derive(Clone, Debug)]
pub struct Case {
    /// The group.
    pub group: Group,
    /// Source bit width.
    pub width: u32,
    /// Elements per job (mask bits for expand).
    pub n: usize,
    /// The decoded source values (`n` of them), for reference checks.
    pub values: Vec<u32>,
    /// Source-1 as the job reads it (Parquet streams with their bit-width byte).
    pub src1: Vec<u8>,
    /// The select/expand mask, `None` for other operations.
    pub src2: Option<Vec<u8>>,
    /// The job of the decoding-speed comparison ([`FAST_FLAGS`]).
    pub job: Job,
    /// The same job with checksums and aggregates computed (the `+checks` ids).
    pub job_with_checks: Job,
    /// A destination length every path accepts for this job.
    pub dst_len: usize,
}

impl Case {
    /// Builds the input and jobs of `group` at `width` over `n` elements. The inputs are
    /// deterministic (seeded from the group and width).
    ///
    /// # Panics
    /// On a width outside 1..=32, `n` outside `1..=MAX_ELEMENTS`, or when the Parquet encoder
    /// does not produce the run structure the input promises.
    pub fn new(group: Group, width: u32, n: usize) -> Case {
        assert!((1..=32).contains(&width), "bit width {width}");
        assert!((1..=MAX_ELEMENTS).contains(&n), "{n} elements");
        let seed = (group.op as u64) << 40 ^ (group.input as u64) << 32 ^ u64::from(width);
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ seed);
        let values = match group.input {
            Input::LePacked | Input::BePacked => random_values(&mut rng, n, width),
            Input::ParquetBitpacked => values_without_runs(&mut rng, n, width),
            Input::ParquetRleRuns => values_in_runs(&mut rng, n, width),
        };
        let src1 = match group.input {
            Input::LePacked => pack_le(&values, width),
            Input::BePacked => pack_be(&values, width),
            Input::ParquetBitpacked | Input::ParquetRleRuns => encode_parquet_rle(&values, width),
        }
        .expect("values fit the width");
        if group.input == Input::ParquetBitpacked {
            // One bit-packed run: width byte, one header, every group of 8 values packed.
            let groups = n.div_ceil(8);
            let header = ((groups as u64) << 1) | 1;
            assert_eq!(
                src1.len(),
                1 + varint_len(header) + groups * width as usize,
                "parquet_bitpacked at width {width} is not one bit-packed run"
            );
        }
        if group.input == Input::ParquetRleRuns {
            // One RLE run per repeat (each has 8 values or more and starts where the RLE run
            // before it ends), but for a last repeat of fewer than 8 values: one bit-packed
            // group.
            let mut pos = 1;
            for repeat in values.chunk_by(|a, b| a == b) {
                let header = read_run_header(&src1, &mut pos).expect("a whole run header");
                let (expected, payload) = match repeat.len() {
                    len @ 8.. => ((len as u32) << 1, width.div_ceil(8)),
                    _ => ((1 << 1) | 1, width),
                };
                assert_eq!(
                    header,
                    expected,
                    "parquet_rle_runs at width {width}: a repeat of {} values is not one run",
                    repeat.len()
                );
                pos += payload as usize;
            }
            assert_eq!(
                pos,
                src1.len(),
                "parquet_rle_runs at width {width}: bytes left"
            );
        }
        let parser = match group.input {
            Input::LePacked => Parser::LE_PACKED,
            Input::BePacked => Parser::BE_PACKED,
            Input::ParquetBitpacked | Input::ParquetRleRuns => Parser::PARQUET_RLE,
        };
        let packed_len = (n * width as usize).div_ceil(8);
        let base = Job {
            parser,
            src1_bit_width: width,
            num_input_elements: n as u32,
            flags: FAST_FLAGS,
            ..Job::default()
        };
        let (job, src2, dst_len) = match group.op {
            Op::ExtractU32 => {
                let mut flags = FAST_FLAGS;
                if width == 1 {
                    flags |= Flags::FORCE_ARRAY_OUTPUT;
                }
                let job = Job {
                    operation: Operation::Extract,
                    param_low: 0,
                    param_high: n as u32 - 1,
                    out_bit_width: OutBitWidth::W32,
                    flags,
                    ..base
                };
                (job, None, 4 * n)
            }
            Op::ExtractNominal => {
                let job = Job {
                    operation: Operation::Extract,
                    param_low: 0,
                    param_high: n as u32 - 1,
                    ..base
                };
                (job, None, packed_len)
            }
            Op::ScanEq => {
                let job = Job {
                    operation: Operation::ScanEq,
                    param_low: values[n / 2],
                    ..base
                };
                (job, None, n.div_ceil(8))
            }
            Op::ScanRange => {
                let max = max_value(width);
                let job = Job {
                    operation: Operation::ScanRange,
                    param_low: max / 4,
                    param_high: max / 2,
                    ..base
                };
                (job, None, n.div_ceil(8))
            }
            Op::Select | Op::Expand => {
                let operation = if group.op == Op::Select {
                    Operation::Select
                } else {
                    Operation::Expand
                };
                let job = Job {
                    operation,
                    src2_bit_width: 1,
                    ..base
                };
                let mask: Vec<u8> = (0..n.div_ceil(8)).map(|_| rng.next_u64() as u8).collect();
                (job, Some(mask), packed_len)
            }
        };
        let job_with_checks = Job {
            flags: Flags(job.flags.0 & !FAST_FLAGS.0),
            ..job
        };
        Case {
            group,
            width,
            n,
            values,
            src1,
            src2,
            job,
            job_with_checks,
            dst_len,
        }
    }
}

pub use raw::RawQplJob;

/// QPL's C API used directly: one `qpl_job` initialised once and executed again and again,
/// the cheapest way to run QPL. The `qpl_sw_raw` id measures it.
#[cfg(qpl_linked)]
mod raw {
    use std::alloc::{alloc_zeroed, dealloc, Layout};
    use std::ptr::NonNull;

    use qpl_fallback::{Completion, Job};
    use qpl_sys as sys;

    /// An initialised `qpl_job` on QPL's software path, in its own allocation of the size
    /// QPL reports; finalised and freed on drop.
    #[derive(Debug)]
    pub struct RawQplJob {
        ptr: NonNull<sys::qpl_job>,
        layout: Layout,
    }

    impl RawQplJob {
        /// `qpl_get_job_size` and `qpl_init_job` for the software path; `Err` with QPL's
        /// status (or a message) when that fails.
        pub fn software() -> Result<RawQplJob, String> {
            let path = sys::qpl_path_t::qpl_path_software;
            let mut size = 0u32;
            // SAFETY: `size` is a valid out-pointer for the duration of the call.
            let status = unsafe { sys::qpl_get_job_size(path, &mut size) };
            if status.0 != 0 {
                return Err(format!("qpl_get_job_size: status {}", status.0));
            }
            let layout = Layout::from_size_align(size.max(1) as usize, 64)
                .map_err(|e| format!("job layout: {e}"))?;
            // SAFETY: the layout has a nonzero size.
            let raw = unsafe { alloc_zeroed(layout) };
            let ptr = NonNull::new(raw.cast::<sys::qpl_job>()).ok_or("out of memory")?;
            let job = RawQplJob { ptr, layout };
            // SAFETY: `ptr` points to `size` zeroed, writable bytes as qpl_init_job requires;
            // on failure Drop calls qpl_fini_job, which accepts a job qpl_init_job has seen.
            let status = unsafe { sys::qpl_init_job(path, job.ptr.as_ptr()) };
            if status.0 != 0 {
                return Err(format!("qpl_init_job: status {}", status.0));
            }
            Ok(job)
        }

        /// Sets the job's fields and runs it with `qpl_execute_job`; `Err` with QPL's status.
        ///
        /// The caller must give a job QPL runs within these buffers (the benchmark checks each
        /// job against the fallback first): unlike `qpl_rs::Executor`, nothing here validates
        /// it, which is the point of this id.
        pub fn run(
            &mut self,
            job: &Job,
            src1: &[u8],
            src2: Option<&[u8]>,
            dst: &mut [u8],
        ) -> Result<Completion, u32> {
            // SAFETY: `ptr` is an initialised job owned by `self`; `&mut self` is exclusive.
            let j = unsafe { self.ptr.as_mut() };
            j.next_in_ptr = src1.as_ptr().cast_mut();
            j.available_in = src1.len() as u32;
            j.next_out_ptr = dst.as_mut_ptr();
            j.available_out = dst.len() as u32;
            let (src2_ptr, src2_len) = match src2 {
                Some(mask) => (mask.as_ptr().cast_mut(), mask.len() as u32),
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
            // QPL leaves stale values in result fields a run does not write.
            j.total_in = 0;
            j.total_out = 0;
            j.crc = 0;
            j.xor_checksum = 0;
            j.last_bit_offset = 0;
            j.first_index_min_value = 0;
            j.last_index_max_value = 0;
            j.sum_value = 0;
            // SAFETY: an initialised job whose pointers were just set to live buffers of the
            // given lengths, borrowed (dst exclusively) until this synchronous call returns.
            let status = unsafe { sys::qpl_execute_job(self.ptr.as_ptr()) };
            if status.0 != 0 {
                return Err(status.0);
            }
            Ok(Completion {
                total_out: j.total_out,
                last_bit_offset: j.last_bit_offset,
                first_index_min_value: j.first_index_min_value,
                last_index_max_value: j.last_index_max_value,
                sum_value: j.sum_value,
                crc: j.crc,
                xor_checksum: j.xor_checksum,
            })
        }
    }

    impl Drop for RawQplJob {
        fn drop(&mut self) {
            // SAFETY: the job was initialised (or init attempted) in `software` and is
            // finalised once, here; the allocation came from `alloc_zeroed` with `layout`.
            unsafe {
                sys::qpl_fini_job(self.ptr.as_ptr());
                dealloc(self.ptr.as_ptr().cast(), self.layout);
            }
        }
    }
}

/// Without QPL there is no raw job: [`RawQplJob::software`] says so.
#[cfg(not(qpl_linked))]
mod raw {
    use qpl_fallback::{Completion, Job};

    /// Stand-in for the raw QPL job in builds without QPL: it cannot be created.
    #[derive(Debug)]
    pub struct RawQplJob(());

    impl RawQplJob {
        /// Always `Err`: this build does not link QPL.
        pub fn software() -> Result<RawQplJob, String> {
            Err("QPL is not linked".to_string())
        }

        /// Unreachable (no value of this type exists).
        pub fn run(
            &mut self,
            _job: &Job,
            _src1: &[u8],
            _src2: Option<&[u8]>,
            _dst: &mut [u8],
        ) -> Result<Completion, u32> {
            unreachable!("RawQplJob cannot be created without QPL")
        }
    }
}
