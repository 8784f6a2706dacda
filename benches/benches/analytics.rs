//! The criterion suite: every group of [`qpl_benches::GROUPS`] at every width of
//! [`qpl_benches::WIDTHS`], on every engine that can run it here.
//!
//! Function ids (the criterion `BenchmarkId` function names):
//! - `fallback`: `qpl_fallback::execute`, the pure-Rust engine;
//! - `qpl_sw`: `qpl_rs::Executor::new(Path::Software).run`, QPL's CPU path through the safe
//!   API (pooled QPL job, so `qpl_init_job` is paid once, in the first warm-up iteration);
//! - `qpl_sw_raw`: QPL's C API directly, one job initialised once ([`RawQplJob`]), in a few
//!   groups, to show what the wrapper adds;
//! - `iaa`: `Executor::new(Path::Hardware)`, only when `qpl_rs::hardware_info()` reports a
//!   usable accelerator;
//! - `arrow_rs`: arrow-rs's decoders where they do the same work (`extract_u32` of Parquet
//!   hybrid streams with `RleDecoder`, of LE-packed arrays with `BitReader::get_batch`);
//! - `fallback+checks` / `qpl_sw+checks`: the same jobs with CRC-32/XOR checksums and
//!   aggregates computed, in `extract_u32/le_packed` and `scan_eq/parquet_bitpacked`;
//! - `memory`: [`qpl_benches::memory_reference`], in the `extract_u32` groups: reads the
//!   job's source-1 and writes n `u32`s without decoding, the rate at which a plain loop
//!   moves a decode's bytes (for RLE runs, whose source is a few bytes a run, a fill).
//!
//! Before the first measurement of each (group, width) every engine's output is checked
//! against the fallback's (bytes and result fields), and the fallback's against the values
//! where that is simple. An engine that disagrees is not measured (its cells stay empty in the
//! table) and a `NOT MEASURED (wrong or no result)` line says why: no wrong result is ever timed. A
//! wrong fallback stops the suite.
//!
//! Environment: `QPL_BENCH_ELEMENTS` (default 1M = 2^20 elements per job; `16M`, or a number).

mod common;

use std::hint::black_box;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::encodings::rle::RleDecoder;
use parquet::util::bit_util::BitReader;
use qpl_benches::{memory_reference, Case, Group, Input, Op, RawQplJob, GROUPS, WIDTHS};
use qpl_fallback::Job;
use qpl_rs::{Executor, Path};

/// A benchmarked implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Fallback,
    FallbackChecks,
    QplSw,
    QplSwChecks,
    QplSwRaw,
    Iaa,
    ArrowRs,
    Memory,
}

impl Engine {
    fn id(self) -> &'static str {
        match self {
            Engine::Fallback => "fallback",
            Engine::FallbackChecks => "fallback+checks",
            Engine::QplSw => "qpl_sw",
            Engine::QplSwChecks => "qpl_sw+checks",
            Engine::QplSwRaw => "qpl_sw_raw",
            Engine::Iaa => "iaa",
            Engine::ArrowRs => "arrow_rs",
            Engine::Memory => "memory",
        }
    }
}

/// Groups that also get the `+checks` pair.
fn has_checks_pair(group: Group) -> bool {
    matches!(
        (group.op, group.input),
        (Op::ExtractU32, Input::LePacked) | (Op::ScanEq, Input::ParquetBitpacked)
    )
}

/// Groups that also get `qpl_sw_raw` (a sample, to keep the suite's runtime down).
fn has_raw(group: Group) -> bool {
    matches!(
        (group.op, group.input),
        (Op::ExtractU32, Input::LePacked)
            | (Op::ExtractU32, Input::ParquetBitpacked)
            | (Op::ScanEq, Input::ParquetBitpacked)
            | (Op::Select, Input::LePacked)
    )
}

/// Groups where arrow-rs has the same operation.
fn has_arrow(group: Group) -> bool {
    matches!(
        (group.op, group.input),
        (Op::ExtractU32, Input::LePacked)
            | (Op::ExtractU32, Input::ParquetBitpacked)
            | (Op::ExtractU32, Input::ParquetRleRuns)
    )
}

/// The engines benchmarked for `group` at `width` on this machine.
fn engines(group: Group, width: u32) -> Vec<Engine> {
    let qpl = qpl_rs::QPL_LINKED;
    let checks = has_checks_pair(group);
    let mut engines = vec![Engine::Fallback];
    if qpl {
        engines.push(Engine::QplSw);
    }
    // QPL itself writes an index list for a 1-bit extract to u32 (FORCE_ARRAY_OUTPUT is an
    // IAA 2.0 feature that qpl-rs emulates), so the raw id would not do the same work there.
    if qpl && has_raw(group) && !(group.op == Op::ExtractU32 && width == 1) {
        engines.push(Engine::QplSwRaw);
    }
    if qpl_rs::hardware_info().unavailable.is_none() {
        engines.push(Engine::Iaa);
    }
    if has_arrow(group) {
        engines.push(Engine::ArrowRs);
    }
    if group.op == Op::ExtractU32 {
        engines.push(Engine::Memory);
    }
    if checks {
        engines.push(Engine::FallbackChecks);
        if qpl {
            engines.push(Engine::QplSwChecks);
        }
    }
    engines
}

/// A case with everything its engines need, and the engines whose output was checked.
struct Ready {
    case: Case,
    /// The engines to measure: those that produced the fallback's output.
    engines: Vec<Engine>,
    software: Executor,
    hardware: Executor,
    raw: Option<RawQplJob>,
    /// Source-1 for arrow-rs: Parquet streams without the bit-width byte (arrow-rs takes the
    /// width separately, as Parquet's page header gives it).
    arrow_data: Bytes,
    dst: Vec<u8>,
    values: Vec<u32>,
}

impl Ready {
    fn new(group: Group, width: u32, n: usize, engines: &[Engine]) -> Ready {
        let case = Case::new(group, width, n);
        let arrow_data = match group.input {
            Input::ParquetBitpacked | Input::ParquetRleRuns => Bytes::from(case.src1[1..].to_vec()),
            Input::LePacked | Input::BePacked => Bytes::from(case.src1.clone()),
        };
        let raw = engines
            .contains(&Engine::QplSwRaw)
            .then(|| RawQplJob::software().expect("raw QPL software job"));
        let mut ready = Ready {
            engines: Vec::new(),
            dst: vec![0xA5; case.dst_len],
            values: vec![u32::MAX; n],
            case,
            software: Executor::new(Path::Software),
            hardware: Executor::new(Path::Hardware),
            raw,
            arrow_data,
        };
        ready.engines = ready.verify(engines);
        ready
    }

    /// Runs `engine` once on this case: its output bytes and (for the QPL-job engines) its
    /// result fields; arrow-rs's values are returned as little-endian `u32` bytes. `Err` says
    /// why the engine cannot be measured here (an error, or a QPL job that ran elsewhere).
    #[allow(clippy::type_complexity)]
    fn output(
        &mut self,
        engine: Engine,
    ) -> Result<(Vec<u8>, Option<qpl_fallback::Completion>), String> {
        self.dst.fill(0xA5);
        self.values.fill(u32::MAX);
        let case = &self.case;
        let src2 = case.src2.as_deref();
        let job_for = |engine| match engine {
            Engine::FallbackChecks | Engine::QplSwChecks => &case.job_with_checks,
            _ => &case.job,
        };
        let completion = match engine {
            Engine::Fallback | Engine::FallbackChecks => {
                qpl_fallback::execute(job_for(engine), &case.src1, src2, &mut self.dst)
                    .map_err(|status| format!("status {}", status.0))?
            }
            Engine::QplSw | Engine::QplSwChecks | Engine::Iaa => {
                let (executor, path) = if engine == Engine::Iaa {
                    (&self.hardware, Path::Hardware)
                } else {
                    (&self.software, Path::Software)
                };
                let output = executor
                    .run(job_for(engine), &case.src1, src2, &mut self.dst)
                    .map_err(|e| e.to_string())?;
                if output.path != path {
                    // Timing it would time the fallback under QPL's name.
                    return Err(format!("the job ran on the {} path", output.path));
                }
                output.completion
            }
            Engine::QplSwRaw => self
                .raw
                .as_mut()
                .ok_or("no raw QPL job")?
                .run(&case.job, &case.src1, src2, &mut self.dst)
                .map_err(|status| format!("QPL status {status}"))?,
            Engine::Memory => return Err("the memory reference decodes nothing".to_owned()),
            Engine::ArrowRs => {
                let read = arrow_decode(
                    case.group.input,
                    case.width,
                    &self.arrow_data,
                    &mut self.values,
                )?;
                if read != case.n {
                    return Err(format!("decoded {read} of {} values", case.n));
                }
                let bytes = self.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                return Ok((bytes, None));
            }
        };
        let len = completion.total_out as usize;
        Ok((self.dst[..len].to_vec(), Some(completion)))
    }

    /// Checks every engine's output against the fallback's (bytes, and for QPL engines the
    /// result fields), and returns the engines that agree. The fallback itself must produce
    /// the expected result (checked from the values for extract_u32, select and expand), or
    /// this panics. An engine that disagrees is left out, loudly: a wrong result is never
    /// timed.
    fn verify(&mut self, engines: &[Engine]) -> Vec<Engine> {
        let name = self.case.group.name();
        let width = self.case.width;
        let fallback = |ready: &mut Ready, engine: Engine| {
            ready
                .output(engine)
                .unwrap_or_else(|e| panic!("{name} w={width}: {}: {e}", engine.id()))
        };
        let (reference, reference_done) = fallback(self, Engine::Fallback);
        if self.case.group.op == Op::ExtractU32 {
            let expected: Vec<u8> = self
                .case
                .values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert!(
                reference == expected,
                "{name} w={width}: fallback output is not the values"
            );
        }
        if let Some(expected) = expected_output(&self.case) {
            assert!(
                reference == expected,
                "{name} w={width}: fallback output is not the expected result"
            );
        }
        let (checked, checked_done) = fallback(self, Engine::FallbackChecks);
        assert!(
            checked == reference,
            "{name} w={width}: fallback+checks output differs"
        );
        let mut verified = Vec::new();
        for &engine in engines {
            if engine == Engine::Memory {
                // Moves the bytes without producing a result to check.
                verified.push(engine);
                continue;
            }
            let (want, want_done) = match engine {
                Engine::FallbackChecks | Engine::QplSwChecks => (&checked, checked_done),
                _ => (&reference, reference_done),
            };
            let problem = match self.output(engine) {
                Err(e) => Some(e),
                Ok((bytes, _)) if bytes != *want => {
                    let at = bytes.iter().zip(want).position(|(a, b)| a != b);
                    Some(format!(
                        "output differs from the fallback's ({} vs {} bytes, first difference \
                         at byte {at:?}: {:?} vs {:?})",
                        bytes.len(),
                        want.len(),
                        at.map(|i| bytes[i]),
                        at.map(|i| want[i]),
                    ))
                }
                Ok((_, Some(done))) if Some(done) != want_done => Some(format!(
                    "result fields differ from the fallback's: {done:?} vs {want_done:?}"
                )),
                Ok(_) => None,
            };
            match problem {
                None => verified.push(engine),
                Some(problem) => eprintln!(
                    "NOT MEASURED (wrong or no result): {name}/{}/{width}: {problem}",
                    engine.id()
                ),
            }
        }
        assert!(
            verified.contains(&Engine::Fallback),
            "{name} w={width}: the fallback disagrees with itself"
        );
        let ids: Vec<&str> = verified
            .iter()
            .filter(|&&e| e != Engine::Memory)
            .map(|e| e.id())
            .collect();
        eprintln!(
            "verified {name} w={width}: {} give the same {} output bytes",
            ids.join(", "),
            reference.len()
        );
        verified
    }
}

/// The output of `case`'s job computed from its values directly, for the operations where
/// that is short: select and expand (nominal output: packed at the source width).
fn expected_output(case: &Case) -> Option<Vec<u8>> {
    let mask = case.src2.as_deref()?;
    let bit = |i: usize| mask[i / 8] >> (i % 8) & 1 == 1;
    let out: Vec<u32> = match case.group.op {
        Op::Select => (0..case.n)
            .filter(|&i| bit(i))
            .map(|i| case.values[i])
            .collect(),
        Op::Expand => {
            let mut next = case.values.iter();
            (0..case.n)
                .map(|i| if bit(i) { *next.next().unwrap() } else { 0 })
                .collect()
        }
        _ => return None,
    };
    Some(qpl_fallback::pack_le(&out, case.width).expect("values fit"))
}

/// arrow-rs decoding `data` (`input`'s stream, Parquet streams without the width byte) into
/// `out`; returns the number of values read.
fn arrow_decode(input: Input, width: u32, data: &Bytes, out: &mut [u32]) -> Result<usize, String> {
    match input {
        Input::ParquetBitpacked | Input::ParquetRleRuns => {
            let mut decoder = RleDecoder::new(width as u8);
            decoder.set_data(data.clone()).map_err(|e| e.to_string())?;
            decoder.get_batch(out).map_err(|e| e.to_string())
        }
        Input::LePacked => Ok(BitReader::new(data.clone()).get_batch(out, width as usize)),
        Input::BePacked => Err("arrow-rs has no MSB-first unpacker".to_owned()),
    }
}

/// Measures `engine` on `ready`'s case. Everything but the job itself (executors, QPL job,
/// decoder, buffers) is set up outside the timed closure.
fn measure(b: &mut criterion::Bencher<'_>, engine: Engine, ready: &mut Ready) {
    let Ready {
        case,
        software,
        hardware,
        raw,
        arrow_data,
        dst,
        values,
        engines: _,
    } = ready;
    let src1 = case.src1.as_slice();
    let src2 = case.src2.as_deref();
    let arrow_data: &Bytes = arrow_data;
    let job: &Job = match engine {
        Engine::FallbackChecks | Engine::QplSwChecks => &case.job_with_checks,
        _ => &case.job,
    };
    match engine {
        Engine::Fallback | Engine::FallbackChecks => b.iter(|| {
            qpl_fallback::execute(black_box(job), black_box(src1), src2, dst).expect("fallback")
        }),
        Engine::QplSw | Engine::QplSwChecks => b.iter(|| {
            software
                .run(black_box(job), black_box(src1), src2, dst)
                .expect("qpl_sw")
        }),
        Engine::Iaa => b.iter(|| {
            hardware
                .run(black_box(job), black_box(src1), src2, dst)
                .expect("iaa")
        }),
        Engine::QplSwRaw => {
            let raw = raw.as_mut().expect("raw job");
            b.iter(|| {
                raw.run(black_box(job), black_box(src1), src2, dst)
                    .expect("qpl_sw_raw")
            })
        }
        Engine::ArrowRs => match case.group.input {
            Input::ParquetBitpacked | Input::ParquetRleRuns => {
                // A new decoder per iteration (a few words, no allocation): `set_data` does
                // not reset the run counters, so a decoder that stopped inside a run (the
                // padding of the last bit-packed group) misreads the next stream.
                // `Bytes::clone` is a reference-count increment.
                let width = case.width as u8;
                b.iter(|| {
                    let mut decoder = RleDecoder::new(width);
                    decoder
                        .set_data(black_box(arrow_data).clone())
                        .expect("set_data");
                    decoder.get_batch(values).expect("get_batch")
                })
            }
            Input::LePacked => {
                let mut reader = BitReader::new(arrow_data.clone());
                let width = case.width as usize;
                b.iter(|| {
                    reader.reset(black_box(arrow_data).clone());
                    reader.get_batch(values, width)
                })
            }
            Input::BePacked => unreachable!("no arrow_rs id for be_packed"),
        },
        Engine::Memory => b.iter(|| memory_reference(black_box(src1), values)),
    }
}

fn analytics(c: &mut Criterion) {
    let n = qpl_benches::elements();
    for group in GROUPS {
        let mut bench_group = c.benchmark_group(group.name());
        bench_group.throughput(Throughput::Elements(n as u64));
        for width in WIDTHS {
            // Built and checked before anything of this (group, width) is measured; dropped
            // before the next width is built.
            let mut ready = Ready::new(group, width, n, &engines(group, width));
            for engine in ready.engines.clone() {
                bench_group.bench_function(BenchmarkId::new(engine.id(), width), |b| {
                    measure(b, engine, &mut ready)
                });
            }
        }
        bench_group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = analytics
}
criterion_main!(benches);
