//! The wrapper's own logic against a test-double accelerator: splitting and merging, busy
//! retries, device faults, asynchronous lifetimes, and the gaps closed on every path.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use proptest::prelude::*;

use crate::executor::DeviceFactory;
use crate::slot::{RawIo, Slot, Started};
use crate::*;

/// What the fake device did, shared with the test.
#[derive(Default)]
struct Log {
    busy_answers_left: AtomicU32,
    started: AtomicU32,
    completed: AtomicU32,
    oversized: AtomicU32,
}

/// A device that runs the fallback when waited on (late, like hardware), answers busy while
/// `busy_answers_left > 0`, rejects inputs over `limit` with 319, and can fail every job.
struct FakeDevice {
    log: Arc<Log>,
    limit: usize,
    fault: Option<Status>,
    queued: Option<(Job, RawIo)>,
}

// SAFETY: the raw pointers in `queued` are only dereferenced in `wait`, under `Slot::start`'s
// contract, whichever thread calls it.
unsafe impl Send for FakeDevice {}

impl Slot for FakeDevice {
    unsafe fn start(&mut self, job: &Job, io: RawIo) -> Started {
        if self
            .log
            .busy_answers_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Started::Busy;
        }
        self.log.started.fetch_add(1, Ordering::SeqCst);
        self.queued = Some((*job, io));
        Started::Running
    }

    fn poll(&mut self) -> Option<Result<Completion, Status>> {
        Some(self.wait())
    }

    fn wait(&mut self) -> Result<Completion, Status> {
        let (job, io) = self.queued.take().ok_or(Status::JOB_NOT_SUBMITTED)?;
        self.log.completed.fetch_add(1, Ordering::SeqCst);
        // SAFETY: `start`'s contract keeps the buffers valid until this returns.
        let (src1, src2, dst) = unsafe { (&*io.src1, io.src2.map(|m| &*m), &mut *io.dst) };
        if src1.len() > self.limit {
            self.log.oversized.fetch_add(1, Ordering::SeqCst);
            return Err(Status::TRANSFER_SIZE_INVALID);
        }
        if let Some(status) = self.fault {
            return Err(status);
        }
        qpl_fallback::execute(&job, src1, src2, dst)
    }
}

fn fake(limit: usize, fault: Option<Status>, retry: RetryPolicy) -> (Executor, Arc<Log>) {
    let log = Arc::new(Log::default());
    let device_log = log.clone();
    let device: DeviceFactory = Arc::new(move || {
        Ok(Box::new(FakeDevice {
            log: device_log.clone(),
            limit,
            fault,
            queued: None,
        }) as Box<dyn Slot>)
    });
    let config = Config {
        path: Path::Hardware,
        max_transfer_size: Some(limit as u64),
        retry,
        ..Config::default()
    };
    (Executor::with_device(config, device), log)
}

fn values(n: usize, width: u32, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    let mask = u32::MAX >> (32 - width);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = (x as u32) & mask & if x.is_multiple_of(3) { 3 } else { u32::MAX };
        let repeat = if x.is_multiple_of(5) {
            (x >> 40) as usize % 40
        } else {
            1
        };
        out.extend(std::iter::repeat_n(v, repeat.min(n - out.len())));
    }
    out
}

/// The job, its source and mask, on the test double with `limit`, against the fallback on
/// the whole job.
fn assert_split_equals_whole(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    limit: usize,
    dst_len: usize,
) {
    let (executor, log) = fake(limit, None, RetryPolicy::default());
    let mut whole = vec![0u8; dst_len];
    let expected = qpl_fallback::execute(job, src1, src2, &mut whole);
    let mut split = vec![0u8; dst_len];
    let got = executor.run(job, src1, src2, &mut split);
    match expected {
        Ok(completion) => {
            let output = got.expect("split job succeeds");
            assert_eq!(output.completion, completion, "{job:?}");
            let on_device = src1.len() <= limit || crate::chunk::splits(job);
            let want = if on_device {
                Path::Hardware
            } else {
                Path::Fallback
            };
            assert_eq!(output.path, want, "{job:?}");
            let n = completion.total_out as usize;
            assert_eq!(split[..n], whole[..n], "{job:?}");
        }
        Err(status) => assert_eq!(got.map_err(|e| e.status), Err(status), "{job:?}"),
    }
    assert_eq!(
        log.oversized.load(Ordering::SeqCst),
        0,
        "a piece exceeded the limit"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn split_jobs_merge_into_the_whole_result(
        width in 1u32..=32,
        n in 1usize..3000,
        seed in any::<u64>(),
        parser in 0u32..3,
        op_index in 0usize..11,
        out in 0u32..4,
        flags in prop::sample::select(vec![0u32, 0x100, 0x20_0000, 0x10_0004, 0x80]),
        low in 0u32..3000,
        span in 0u32..3000,
        iidx in 0u32..50,
        limit in 64usize..400,
    ) {
        let operation = Operation::ALL[op_index];
        let vals = values(n, width, seed);
        let src1 = match parser {
            0 => pack_le(&vals, width).unwrap(),
            1 => pack_be(&vals, width).unwrap(),
            _ => encode_parquet_rle(&vals, width).unwrap(),
        };
        let mask: Vec<u8> = values(n.div_ceil(8), 8, seed ^ 0xABCD).iter().map(|&v| v as u8).collect();
        let mask_width = (width % 8) + 1;
        let (param_low, param_high) = if operation == Operation::Extract {
            (low, low.saturating_add(span))
        } else {
            (low & (u32::MAX >> (32 - mask_width)), span)
        };
        let job = Job {
            operation,
            parser: Parser(parser),
            src1_bit_width: width,
            src2_bit_width: 1,
            num_input_elements: n as u32,
            param_low,
            param_high,
            flags: Flags(flags),
            out_bit_width: OutBitWidth(out),
            initial_output_index: if operation.uses_mask() { 0 } else { iidx },
            ..Job::default()
        };
        let src2 = operation.uses_mask().then_some(&mask[..]);
        assert_split_equals_whole(&job, &src1, src2, limit, n * 4 + 8);
    }
}

#[test]
fn a_short_destination_fails_the_same_when_split() {
    let vals = values(5000, 7, 3);
    let src1 = pack_le(&vals, 7).unwrap();
    for dst_len in [1, 100, 624, 625, 4374] {
        let job = Job {
            src1_bit_width: 7,
            num_input_elements: 5000,
            param_high: 4999,
            ..Job::new(Operation::Extract)
        };
        assert_split_equals_whole(&job, &src1, None, 128, dst_len);
    }
}

#[test]
fn busy_queues_are_retried_then_the_cpu_takes_the_call() {
    let vals = values(100, 5, 9);
    let src1 = pack_le(&vals, 5).unwrap();
    let job = Job {
        src1_bit_width: 5,
        num_input_elements: 100,
        param_high: 99,
        ..Job::new(Operation::Extract)
    };
    let retry = RetryPolicy {
        attempts: 4,
        first_backoff: std::time::Duration::from_micros(1),
    };
    let mut expected = vec![0u8; 100];
    qpl_fallback::execute(&job, &src1, None, &mut expected).unwrap();

    let (executor, log) = fake(1 << 20, None, retry);
    log.busy_answers_left.store(3, Ordering::SeqCst);
    let mut dst = vec![0u8; 100];
    assert_eq!(
        executor.run(&job, &src1, None, &mut dst).unwrap().path,
        Path::Hardware
    );
    assert_eq!(dst, expected);

    log.busy_answers_left.store(4, Ordering::SeqCst);
    let mut dst = vec![0u8; 100];
    assert_eq!(
        executor.run(&job, &src1, None, &mut dst).unwrap().path,
        Path::Fallback
    );
    assert_eq!(dst, expected);
    assert_eq!(
        log.started.load(Ordering::SeqCst),
        1,
        "no submission after the attempts ran out"
    );
}

#[test]
fn device_faults_rerun_on_the_cpu_but_job_errors_do_not() {
    let src1 = pack_le(&[1, 2, 3, 4], 4).unwrap();
    let job = Job {
        src1_bit_width: 4,
        num_input_elements: 4,
        param_low: 2,
        ..Job::new(Operation::ScanEq)
    };
    for fault in [
        Status::NOT_SUPPORTED_BY_WQ,
        Status(326),
        Status::LIBRARY_INTERNAL_ERR,
    ] {
        let (executor, _) = fake(1 << 20, Some(fault), RetryPolicy::default());
        let mut dst = [0u8; 1];
        let output = executor.run(&job, &src1, None, &mut dst).unwrap();
        assert_eq!((output.path, dst), (Path::Fallback, [0b0010]));
    }
    let (executor, _) = fake(
        1 << 20,
        Some(Status::DST_IS_SHORT_ERR),
        RetryPolicy::default(),
    );
    let err = executor.run(&job, &src1, None, &mut [0u8; 1]).unwrap_err();
    assert_eq!(
        (err.status, err.path),
        (Status::DST_IS_SHORT_ERR, Path::Hardware)
    );
}

fn scan_buffers() -> (Job, Buffers) {
    let vals = values(3000, 6, 5);
    let job = Job {
        src1_bit_width: 6,
        num_input_elements: 3000,
        param_low: 7,
        ..Job::new(Operation::ScanGt)
    };
    let buffers = Buffers {
        src1: pack_le(&vals, 6).unwrap(),
        src2: None,
        dst: vec![0; 375],
    };
    (job, buffers)
}

#[test]
fn a_pending_job_gives_its_buffers_back_only_when_complete() {
    let (job, buffers) = scan_buffers();
    let mut expected = vec![0u8; 375];
    let done = qpl_fallback::execute(&job, &buffers.src1, None, &mut expected).unwrap();
    let (executor, log) = fake(1 << 20, None, RetryPolicy::default());
    let mut pending = executor.submit(&job, buffers.clone());
    assert_eq!(
        log.completed.load(Ordering::SeqCst),
        0,
        "still on the device"
    );
    assert!(pending.is_finished());
    let finished = pending.wait();
    let output = finished.result.unwrap();
    assert_eq!((output.path, output.completion), (Path::Hardware, done));
    assert_eq!(finished.buffers.dst, expected);
    assert_eq!(finished.buffers.src1, buffers.src1);
}

#[test]
fn dropping_a_pending_job_waits_for_the_device() {
    let (job, buffers) = scan_buffers();
    let (executor, log) = fake(1 << 20, None, RetryPolicy::default());
    let pending = executor.submit(&job, buffers);
    assert_eq!(log.completed.load(Ordering::SeqCst), 0);
    drop(pending);
    assert_eq!(log.completed.load(Ordering::SeqCst), 1, "drop waited");
}

#[test]
fn hardware_without_a_device_says_why_and_auto_falls_back() {
    let Some(reason) = hardware_info().unavailable.clone() else {
        return; // A host with a usable accelerator: nothing to show here.
    };
    let src1 = pack_le(&[3, 1, 3], 2).unwrap();
    let job = Job {
        src1_bit_width: 2,
        num_input_elements: 3,
        param_low: 3,
        ..Job::new(Operation::ScanEq)
    };
    let err = Executor::new(Path::Hardware)
        .run(&job, &src1, None, &mut [0u8; 1])
        .unwrap_err();
    assert_eq!(err.path, Path::Hardware);
    assert_eq!(err.status, reason.status());
    assert_eq!(err.message, reason.to_string());
    assert!(Path::Hardware.availability().is_err());
    let mut bits = [0u8; 1];
    let output = Executor::new(Path::Auto)
        .run(&job, &src1, None, &mut bits)
        .unwrap();
    assert_eq!((output.path, bits), (Path::Fallback, [0b101]));
}

#[test]
fn width_zero_parquet_streams_decode_as_zeros_on_every_cpu_path() {
    // Width 0, an RLE run of 5 (no value bytes), a bit-packed group (no payload).
    let stream = [0u8, 5 << 1, 0x03];
    for path in [Path::Fallback, Path::Auto, Path::Software] {
        if path.availability().is_err() {
            continue;
        }
        let (decoded, output) = decode::<u8>(path, &Stream::parquet_rle(&stream), 13).unwrap();
        assert_eq!(decoded, vec![0u8; 13], "{path}");
        assert_eq!(output.completion.crc, 0, "decode omits checksums");
        let (bits, output) =
            scan(path, &Stream::parquet_rle(&stream), 13, Comparison::Eq(0)).unwrap();
        assert_eq!(bits, [0xFF, 0x1F], "{path}");
        assert_eq!(output.completion.sum_value, 13);
        let err = decode::<u8>(path, &Stream::parquet_rle(&stream), 14).unwrap_err();
        assert_eq!(err.status, Status::SRC_IS_SHORT_ERR, "{path}");
    }
}

#[test]
fn forced_arrays_are_widened_bit_vectors_on_every_path() {
    let vals = values(77, 3, 11);
    let src1 = pack_le(&vals, 3).unwrap();
    for flags in [
        Flags::FORCE_ARRAY_OUTPUT,
        Flags::FORCE_ARRAY_OUTPUT | Flags::OUT_BE,
    ] {
        let job = Job {
            src1_bit_width: 3,
            num_input_elements: 77,
            param_low: 2,
            out_bit_width: OutBitWidth::W16,
            flags,
            ..Job::new(Operation::ScanLe)
        };
        let mut expected = vec![0u8; 154];
        let want = qpl_fallback::execute(&job, &src1, None, &mut expected).unwrap();
        for path in [Path::Fallback, Path::Software] {
            if path.availability().is_err() {
                continue;
            }
            let mut dst = vec![0u8; 154];
            let output = Executor::new(path)
                .run(&job, &src1, None, &mut dst)
                .unwrap();
            assert_eq!((output.completion, &dst), (want, &expected), "{path}");
        }
    }
}

#[test]
fn high_level_calls_agree_with_a_plain_computation() {
    let vals = values(2000, 11, 21);
    let encoded = encode_parquet_rle(&vals, 11).unwrap();
    let stream = Stream::parquet_rle(&encoded);
    let (decoded, _) = decode::<u16>(Path::Auto, &stream, 2000).unwrap();
    assert_eq!(decoded, vals.iter().map(|&v| v as u16).collect::<Vec<_>>());
    let (indices, output) =
        scan_indices(Path::Auto, &stream, 2000, Comparison::Range(5, 300)).unwrap();
    let want: Vec<u32> = (0..2000u32)
        .filter(|&i| (5..=300).contains(&vals[i as usize]))
        .collect();
    assert_eq!(indices, want);
    assert_eq!(output.completion.sum_value as usize, want.len());
    let mask: Vec<u8> = (0..250).map(|i| (i * 37) as u8).collect();
    let bit = |i: usize| (mask[i / 8] >> (i % 8)) & 1 == 1;
    let (selected, _) = select(Path::Auto, &stream, 2000, &mask).unwrap();
    assert_eq!(
        selected,
        (0..2000)
            .filter(|&i| bit(i))
            .map(|i| vals[i])
            .collect::<Vec<_>>()
    );
    let (expanded, _) = expand(Path::Auto, &stream, 2000, &mask).unwrap();
    let mut next = vals.iter();
    let want: Vec<u32> = (0..2000)
        .map(|i| if bit(i) { *next.next().unwrap() } else { 0 })
        .collect();
    assert_eq!(expanded, want);
    // A 4-byte stream holding 100 million values (one RLE run) is refused above the limit,
    // and decoded once the caller raises it.
    let run = [3u8, 0x80, 0x84, 0xAF, 0x5F, 1];
    let hundred_million = Stream::parquet_rle(&run);
    let err = decode::<u32>(Path::Fallback, &hundred_million, 100_000_000).unwrap_err();
    assert_eq!(err.status, Status::BUFFER_TOO_LARGE_ERR);
    assert!(err.message.contains("max_output_bytes"), "{}", err.message);
    let roomy = Executor::with_config(Config {
        path: Path::Fallback,
        max_output_bytes: 100_000_000,
        ..Config::default()
    });
    let (ids, _) = roomy.decode::<u8>(&hundred_million, 100_000_000).unwrap();
    assert!(ids.len() == 100_000_000 && ids.iter().all(|&v| v == 1));
    // Asking for more values than the stream holds fails before allocating.
    let err = decode::<u32>(Path::Auto, &Stream::parquet_rle(&[3, 0x02, 1]), u32::MAX).unwrap_err();
    assert_eq!(err.status, Status::SRC_IS_SHORT_ERR);
}

#[test]
fn scans_compare_unmasked_parameters_against_every_value() {
    // Width 3: values 0..=7; parameters up to 12 must never be masked into range.
    let values: Vec<u32> = (0..64).map(|i| (i * 5 + i / 7) % 8).collect();
    let packed = pack_le(&values, 3).unwrap();
    let stream = Stream::le_packed(&packed, 3);
    type Plain = fn(u32, u32, u32) -> bool;
    for l in 0..13 {
        for h in 0..13 {
            let cases: [(Comparison, Plain); 8] = [
                (Comparison::Eq(l), |x, l, _| x == l),
                (Comparison::Ne(l), |x, l, _| x != l),
                (Comparison::Lt(l), |x, l, _| x < l),
                (Comparison::Le(l), |x, l, _| x <= l),
                (Comparison::Gt(l), |x, l, _| x > l),
                (Comparison::Ge(l), |x, l, _| x >= l),
                (Comparison::Range(l, h), |x, l, h| l <= x && x <= h),
                (Comparison::NotRange(l, h), |x, l, h| x < l || x > h),
            ];
            for (comparison, plain) in cases {
                let (bits, _) = scan(Path::Fallback, &stream, 64, comparison).unwrap();
                for (i, &x) in values.iter().enumerate() {
                    let got = (bits[i / 8] >> (i % 8)) & 1 == 1;
                    assert_eq!(got, plain(x, l, h), "{comparison:?} on {x}");
                }
            }
        }
    }
}

/// `data` as a raw deflate stream of stored blocks (at most 65535 bytes each).
fn stored_deflate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let chunks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

fn decompress_case() -> (Job, Vec<u8>, Vec<u8>) {
    let vals = values(5000, 7, 9);
    let plain = pack_le(&vals, 7).unwrap();
    // A gzip header (no optional fields) in front; the trailer after the final block is
    // ignored like any bytes there (DZ5).
    let mut gzip = vec![0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3];
    gzip.extend(stored_deflate(&plain));
    gzip.extend_from_slice(&[0; 8]);
    let job = Job {
        src1_bit_width: 7,
        num_input_elements: 5000,
        param_low: 3,
        flags: Flags::DECOMPRESS_ENABLE | Flags::GZIP_MODE,
        ..Job::new(Operation::ScanLe)
    };
    (job, plain, gzip)
}

#[test]
fn decompress_jobs_run_on_the_device_unsplit_and_equal_the_uncompressed_job() {
    let (job, plain, gzip) = decompress_case();
    let plain_job = Job {
        flags: Flags::NONE,
        ..job
    };
    let mut expected = vec![0u8; 625];
    let want = qpl_fallback::execute(&plain_job, &plain, None, &mut expected).unwrap();
    // Under the transfer limit: one descriptor on the device.
    let (executor, log) = fake(1 << 20, None, RetryPolicy::default());
    let mut dst = vec![0u8; 625];
    let output = executor.run(&job, &gzip, None, &mut dst).unwrap();
    assert_eq!(
        (output.path, output.completion, &dst),
        (Path::Hardware, want, &expected)
    );
    assert_eq!(log.started.load(Ordering::SeqCst), 1);
    // Over it: not split (a deflate stream cannot be cut), run on the CPU, and said so.
    let (executor, log) = fake(1024, None, RetryPolicy::default());
    let mut dst = vec![0u8; 625];
    let output = executor.run(&job, &gzip, None, &mut dst).unwrap();
    assert_eq!(
        (output.path, output.completion, &dst),
        (Path::Fallback, want, &expected)
    );
    assert_eq!(log.started.load(Ordering::SeqCst), 0);
}

#[test]
fn a_device_inflate_refusal_reruns_on_the_cpu() {
    let (job, plain, gzip) = decompress_case();
    let mut expected = vec![0u8; 625];
    let plain_job = Job {
        flags: Flags::NONE,
        ..job
    };
    let want = qpl_fallback::execute(&plain_job, &plain, None, &mut expected).unwrap();
    // IAA 1.0 refuses streams whose history window exceeds 4 KB with an inflate error: the
    // CPU takes the job and the output says so.
    for refusal in [Status::BAD_DIST_ERR, Status::REF_BEFORE_START_ERR] {
        let (executor, _) = fake(1 << 20, Some(refusal), RetryPolicy::default());
        let mut dst = vec![0u8; 625];
        let output = executor.run(&job, &gzip, None, &mut dst).unwrap();
        assert_eq!(
            (output.path, output.completion, &dst),
            (Path::Fallback, want, &expected)
        );
    }
    // A stream that really is corrupt fails on the CPU too, with the fallback's status.
    let (executor, _) = fake(1 << 20, None, RetryPolicy::default());
    let mut corrupt = gzip.clone();
    corrupt[10] = 0x07; // BTYPE 11
    let err = executor
        .run(&job, &corrupt, None, &mut [0u8; 625])
        .unwrap_err();
    assert_eq!(
        (err.status, err.path),
        (Status::INVALID_BLOCK_TYPE, Path::Fallback)
    );
    // A malformed gzip header is refused before anything runs, on every path.
    let mut bad_header = gzip.clone();
    bad_header[0] = 0;
    let err = executor
        .run(&job, &bad_header, None, &mut [0u8; 625])
        .unwrap_err();
    assert_eq!(err.status, Status::ARCHIVE_HEADER_ERR);
}
