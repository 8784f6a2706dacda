//! Differential testing of `qpl-fallback` against QPL's software path, shared by
//! `qpl-rs`'s `tests/differential.rs` and the `differential` fuzz target (`fuzz/`).
//!
//! A [`Case`] (a job and its buffers) runs through QPL's software path, by way of the safe
//! wrapper (`Executor::new(Path::Software)`), and through the fallback
//! (`qpl_fallback::execute`); [`compare`] compares the status, every `Completion` field and the
//! output bytes `[..total_out]`. Where they differ, [`known_divergence`] names the divergence
//! of `docs/semantics.md` (D1–D21, with the behaviour measured behind them) that explains it,
//! or returns `None`: a bug of the fallback, of the wrapper, or a new QPL behaviour.
//!
//! Cases come from [`gen_case`], driven by any [`Choices`]: the seeded [`Rng`] of the test, or
//! [`ByteChoices`] over a fuzzer's input; [`Case::from_fuzz_input`] also reads jobs whose
//! fields are raw bytes.
//!
//! The crate builds with or without QPL. Without it ([`qpl_rs::QPL_LINKED`] is false) the
//! software path reports "not linked" for every job, so callers must not compare: check
//! `QPL_LINKED` first.

mod divergence;
mod fuzz_input;
mod generate;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use qpl_rs::{Completion, Error, Executor, Job, Output, Path, Status};

pub use divergence::known_divergence;
pub use fuzz_input::{FUZZ_MODE_DECOMPRESS, FUZZ_MODE_RAW, FUZZ_MODE_STRUCTURED, RAW_HEADER_LEN};
pub use generate::{gen_case, gen_decompress_case, ByteChoices, Choices, Rng};
pub use qpl_rs::QPL_LINKED;

/// QPL's version when it is linked and its install records one.
pub fn qpl_version() -> Option<&'static str> {
    qpl_sys::QPL_VERSION
}

/// One job with its buffers: source-1, the optional source-2 (select/expand mask) and the
/// destination's length (`available_out`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The job fields.
    pub job: Job,
    /// Source-1.
    pub src1: Vec<u8>,
    /// Source-2, if any.
    pub src2: Option<Vec<u8>>,
    /// Destination length in bytes.
    pub dst_len: usize,
}

/// What a path produced: its result and the output bytes `[..total_out]` (empty on error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<R> {
    /// The path's result.
    pub result: R,
    /// The destination's first `total_out` bytes.
    pub bytes: Vec<u8>,
}

/// The outcome of QPL's software path, run through the wrapper.
pub type Software = Outcome<Result<Output, Error>>;
/// The outcome of `qpl_fallback::execute`.
pub type Fallback = Outcome<Result<Completion, Status>>;

/// The destination is prefilled with this byte, so bytes a path leaves alone are visible.
const DST_FILL: u8 = 0x5A;

/// Runs `case` on QPL's software path through the safe wrapper. Without QPL linked every
/// job fails with the wrapper's "not linked" error.
pub fn run_software(case: &Case) -> Software {
    let mut dst = vec![DST_FILL; case.dst_len];
    let result =
        Executor::new(Path::Software).run(&case.job, &case.src1, case.src2.as_deref(), &mut dst);
    let bytes = match &result {
        Ok(out) => dst[..(out.completion.total_out as usize).min(dst.len())].to_vec(),
        Err(_) => Vec::new(),
    };
    Outcome { result, bytes }
}

/// Runs a job on the fallback (`qpl_fallback::execute`) into a destination of `dst_len` bytes.
pub fn run_fallback(job: &Job, src1: &[u8], src2: Option<&[u8]>, dst_len: usize) -> Fallback {
    let mut dst = vec![DST_FILL; dst_len];
    let result = qpl_fallback::execute(job, src1, src2, &mut dst);
    let bytes = match &result {
        Ok(c) => dst[..(c.total_out as usize).min(dst.len())].to_vec(),
        Err(_) => Vec::new(),
    };
    Outcome { result, bytes }
}

/// Equal on both paths: the same status; on success every field and the output bytes.
/// On an error the fallback reports only a status, so only the status is compared.
pub fn agree(sw: &Software, fb: &Fallback) -> bool {
    match (&sw.result, &fb.result) {
        (Ok(out), Ok(c)) => out.completion == *c && sw.bytes == fb.bytes,
        (Err(e), Err(s)) => e.status == *s,
        _ => false,
    }
}

/// How the two paths' results relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Same status; on success the same fields and output bytes.
    Identical,
    /// Different, by the named known divergence.
    Excused(&'static str),
    /// Different, and no known divergence explains it.
    Unexplained,
}

/// Both paths' outcomes for one case and their [`Verdict`].
#[derive(Clone, Debug)]
pub struct Comparison {
    /// QPL's software path.
    pub software: Software,
    /// The fallback.
    pub fallback: Fallback,
    /// How they relate.
    pub verdict: Verdict,
}

impl Comparison {
    /// The path that really ran the software side (the wrapper may run a job on the CPU
    /// fallback instead when QPL cannot take it).
    pub fn software_path(&self) -> Path {
        match &self.software.result {
            Ok(out) => out.path,
            Err(e) => e.path,
        }
    }
}

/// Runs `case` on both paths and judges the difference, if any. Meaningful only with QPL
/// linked ([`QPL_LINKED`]): otherwise every case is `Unexplained`.
pub fn compare(case: &Case) -> Comparison {
    let software = run_software(case);
    let fallback = run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
    let verdict = if agree(&software, &fallback) {
        Verdict::Identical
    } else {
        match known_divergence(
            &case.job,
            &case.src1,
            case.src2.as_deref(),
            case.dst_len,
            &software,
            &fallback,
        ) {
            Some(id) => Verdict::Excused(id),
            None => Verdict::Unexplained,
        }
    };
    Comparison {
        software,
        fallback,
        verdict,
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The case in full (job, buffers in hex, destination length), both results, and where the
/// output bytes first differ: enough to turn into a regression test.
pub fn describe(case: &Case, sw: &Software, fb: &Fallback) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "  job: {:?}", case.job);
    let _ = writeln!(s, "  src1 ({} bytes): {}", case.src1.len(), hex(&case.src1));
    if let Some(m) = &case.src2 {
        let _ = writeln!(s, "  src2 ({} bytes): {}", m.len(), hex(m));
    }
    let _ = writeln!(s, "  dst_len: {}", case.dst_len);
    let _ = writeln!(s, "  software: {:?}", sw.result);
    let _ = writeln!(s, "  fallback: {:?}", fb.result);
    if sw.bytes != fb.bytes {
        let at = sw
            .bytes
            .iter()
            .zip(&fb.bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(sw.bytes.len().min(fb.bytes.len()));
        let from = at.saturating_sub(8);
        let _ = writeln!(
            s,
            "  bytes differ from {at}: software {} / fallback {}",
            hex(&sw.bytes[from.min(sw.bytes.len())..(at + 24).min(sw.bytes.len())]),
            hex(&fb.bytes[from.min(fb.bytes.len())..(at + 24).min(fb.bytes.len())]),
        );
    }
    s
}

/// Counts of the cases compared and of each divergence that excused one, with the
/// unexplained differences described in full.
#[derive(Debug, Default)]
pub struct Tally {
    /// Cases compared.
    pub compared: usize,
    /// Cases the software side really ran on QPL (not on the wrapper's CPU fallback).
    pub on_qpl: usize,
    /// Cases with identical results.
    pub identical: usize,
    /// Excused cases per divergence name.
    pub excused: BTreeMap<&'static str, usize>,
    /// [`describe`]d unexplained differences, each headed by its label.
    pub failures: Vec<String>,
}

impl Tally {
    /// Compares `case` on both paths and counts the verdict; `label` heads its description
    /// when the difference is unexplained.
    pub fn check(&mut self, label: &str, case: &Case) {
        let comparison = compare(case);
        self.compared += 1;
        if comparison.software_path() == Path::Software {
            self.on_qpl += 1;
        }
        match comparison.verdict {
            Verdict::Identical => self.identical += 1,
            Verdict::Excused(id) => *self.excused.entry(id).or_default() += 1,
            Verdict::Unexplained => self.failures.push(format!(
                "{label}: unexplained difference\n{}",
                describe(case, &comparison.software, &comparison.fallback)
            )),
        }
    }

    /// Prints the counts (headed by `name`) and the first unexplained differences.
    ///
    /// # Panics
    /// When any difference was unexplained: this is the test's verdict.
    pub fn finish(&self, name: &str) {
        eprintln!(
            "{name}: {} jobs compared ({} reached QPL), {} identical, {} excused",
            self.compared,
            self.on_qpl,
            self.identical,
            self.excused.values().sum::<usize>()
        );
        for (id, count) in &self.excused {
            eprintln!("  {id}: {count} cases");
        }
        // DIFF_SHOW=n prints the first n unexplained differences (default 12).
        let show = std::env::var("DIFF_SHOW")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(12);
        for f in self.failures.iter().take(show) {
            eprintln!("{f}");
        }
        assert!(
            self.failures.is_empty(),
            "{} unexplained differences between QPL's software path and the fallback",
            self.failures.len()
        );
    }
}

/// All ones in the low `bw` bits (`u32::MAX` from 32 on).
pub fn width_mask(bw: u32) -> u32 {
    if bw >= 32 {
        u32::MAX
    } else {
        (1 << bw) - 1
    }
}

/// Appends `v` as a ULEB128 varint of at least `min_len` bytes (padded with continuation
/// bytes, as Parquet allows).
fn push_varint(out: &mut Vec<u8>, mut v: u64, min_len: usize) {
    let mut len = 0;
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        len += 1;
        if v == 0 && len >= min_len {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
}
