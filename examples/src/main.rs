//! `qpl-demo`: the README's main job, end to end, on every usable path.
//!
//! Generates a million dictionary-index-like values (skewed towards small ids, with runs, as a
//! dictionary-encoded Parquet column has) at several bit widths; encodes them as Parquet RLE,
//! LE packed and BE packed; then on each path decodes them (extract to a `u32` array), scans
//! them (`scan_eq` to a bit vector, `scan_range` to an index list), and gathers and scatters
//! them by a mask (select, expand). Every output is checked against a plain computation from
//! the values, and a table shows the time and throughput of each job. Exits non-zero on any
//! mismatch of the fallback, the accelerator or auto. QPL's software path is compared too, but
//! where it differs it is reported, not failed: it has known bugs that the accelerator and the
//! fallback do not share (`docs/semantics.md`), and it is here for comparison.
//!
//! Paths that cannot run here are listed with the reason.
//!
//! The timings are a demo printout (best of a few runs, `Instant`), not a benchmark: see the
//! `benches` crate for measurements.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser as _;

use qpl_examples::path::{availability, execute_on, ExecPath};
use qpl_fallback::{encode_parquet_rle, pack_be, pack_le, Job, Operation, OutBitWidth, Parser};

/// Values per column ("a million").
const ELEMENTS: usize = 1 << 20;
/// Bit widths of the generated columns: tiny, byte-sized, odd, above 16, and full.
const WIDTHS: [u32; 5] = [3, 8, 13, 17, 32];
/// Each job runs this many times; the table shows the fastest.
const RUNS: usize = 3;
/// The mask of select and expand keeps about this many elements in ten.
const MASK_DENSITY_IN_TEN: u64 = 3;

const LONG_ABOUT: &str = "\
Generates a million dictionary-index-like values at bit widths 3, 8, 13, 17 and 32, encodes them
as Parquet RLE, LE packed and BE packed, and on every usable path (hardware = the IAA
accelerator, software = QPL's CPU code, fallback = the pure-Rust implementation, auto = the
accelerator when usable, else the fallback) decodes, scans, selects and expands them. Every
output is checked against a plain computation from the values. Takes no arguments.

Columns of the table (one row per job):
  path        the path asked for
  parser      how the source is encoded: parquet_rle, le_packed or be_packed
  width       bits per value
  operation   the job: extract to u32, scan_eq to a bit vector, scan_range to an index list,
              select and expand by a mask keeping about 3 values in 10
  elements    values the job reads (1048576)
  src bytes   size of the encoded source
  time ms     fastest of 3 runs, in milliseconds (a demo printout, not a benchmark)
  M values/s  elements / time, in millions of values per second
  check       ok, or MISMATCH and what differs; (ran on X) when another path ran the job
              (auto, or a busy or faulted accelerator handing the job to the CPU)

Paths that cannot run here are listed after the table with the reason.
Exit status: 0 when every fallback, hardware and auto result is correct (QPL's software path
is compared but its known differences are reported, not failed); 1 on a mismatch or when no
path could run.";

/// Command line of `qpl-demo` (no options: `--help` and `--version` only).
#[derive(clap::Parser)]
#[command(
    name = "qpl-demo",
    version,
    about = "Decode, scan, select and expand a million values on every usable path, checked and timed",
    long_about = LONG_ABOUT
)]
struct Cli {}

fn main() -> ExitCode {
    let Cli {} = Cli::parse();
    let started = Instant::now();
    let mut unusable = Vec::new();
    let mut checked = 0usize;
    let mut mismatches = 0usize;
    let mut software_differences = 0usize;
    println!(
        "{:<9} {:<11} {:>5}  {:<18} {:>9} {:>10} {:>9} {:>12}  check",
        "path", "parser", "width", "operation", "elements", "src bytes", "time ms", "M values/s"
    );
    for path in ExecPath::ALL {
        if let Err(reason) = availability(path) {
            unusable.push((path, reason));
            continue;
        }
        let result = run_path(path, ELEMENTS, &WIDTHS, RUNS, &mut |row| {
            println!("{row}");
            checked += 1;
            if row.path == ExecPath::Software {
                software_differences += usize::from(!row.ok);
            } else {
                mismatches += usize::from(!row.ok);
            }
        });
        if let Err(reason) = result {
            unusable.push((path, reason));
        }
    }
    if !unusable.is_empty() {
        println!();
        println!("unusable paths:");
        for (path, reason) in &unusable {
            println!("  {path:<9} {reason}");
        }
    }
    println!();
    println!(
        "{checked} jobs checked, {mismatches} mismatches, {:.2} s in all",
        started.elapsed().as_secs_f64()
    );
    if software_differences > 0 {
        println!(
            "{software_differences} results of QPL's software path differ from the accelerator's \
             semantics (known QPL software bugs: docs/semantics.md, e.g. D10, D16; not failures)"
        );
    }
    if checked == 0 {
        println!("no path could run");
        return ExitCode::FAILURE;
    }
    if mismatches > 0 {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// One line of the table.
struct Row {
    path: ExecPath,
    parser: Parser,
    width: u32,
    operation: &'static str,
    elements: usize,
    src_bytes: usize,
    best: Duration,
    ok: bool,
    check: String,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seconds = self.best.as_secs_f64();
        let rate = if seconds > 0.0 {
            format!("{:.0}", self.elements as f64 / seconds / 1e6)
        } else {
            "-".to_string()
        };
        write!(
            f,
            "{:<9} {:<11} {:>5}  {:<18} {:>9} {:>10} {:>9.3} {:>12}  {}",
            self.path.name(),
            self.parser.name().unwrap_or("?"),
            self.width,
            self.operation,
            self.elements,
            self.src_bytes,
            seconds * 1e3,
            rate,
            self.check
        )
    }
}

/// A job with its inputs and the output a plain computation expects.
struct Case<'a> {
    operation: &'static str,
    job: Job,
    src1: &'a [u8],
    src2: Option<&'a [u8]>,
    dst_len: usize,
    expected_out: Vec<u8>,
    /// Bit vectors and index lists: the number of matches; arrays: the wrapping sum.
    expected_sum: u32,
}

/// Runs every case for every width and parser on `path`, handing each row to `on_row` as it
/// completes. `Err` when the path cannot run jobs (its reason).
fn run_path(
    path: ExecPath,
    elements: usize,
    widths: &[u32],
    runs: usize,
    on_row: &mut dyn FnMut(&Row),
) -> Result<(), String> {
    let mut rng = SplitMix64(0x5EED_D1C7);
    let mask = random_mask(&mut rng, elements);
    for &width in widths {
        let values = dictionary_indices(&mut rng, elements, width);
        let selected: Vec<u32> = (0..elements)
            .filter(|&i| bit(&mask, i))
            .map(|i| values[i])
            .collect();
        for parser in [Parser::PARQUET_RLE, Parser::LE_PACKED, Parser::BE_PACKED] {
            let src = encode(parser, &values, width);
            let selected_src = encode(parser, &selected, width);
            for case in cases(parser, width, &values, &mask, &src, &selected_src) {
                let row = run_case(path, &case, width, runs)?;
                on_row(&row);
            }
        }
    }
    Ok(())
}

/// Runs one case `runs` times on `path` and checks the last output.
fn run_case(path: ExecPath, case: &Case<'_>, width: u32, runs: usize) -> Result<Row, String> {
    let mut dst = vec![0u8; case.dst_len];
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let ran = execute_on(path, &case.job, case.src1, case.src2, &mut dst)?;
        best = best.min(start.elapsed());
        last = Some(ran);
    }
    let ran = last.ok_or("no run")?;
    let check = match ran.result {
        Err(status) => Err(format!("status {} ({status})", status.0)),
        Ok(done) => {
            let out = &dst[..done.total_out as usize];
            if out != case.expected_out.as_slice() {
                Err(describe_difference(out, &case.expected_out))
            } else if done.sum_value != case.expected_sum {
                Err(format!(
                    "sum_value {}, expected {}",
                    done.sum_value, case.expected_sum
                ))
            } else {
                Ok(())
            }
        }
    };
    let label = if ran.path == path {
        String::new()
    } else {
        format!(" (ran on {})", ran.path)
    };
    Ok(Row {
        path,
        parser: case.job.parser,
        width,
        operation: case.operation,
        elements: case.job.num_input_elements as usize,
        src_bytes: case.src1.len(),
        best,
        ok: check.is_ok(),
        check: match check {
            Ok(()) => format!("ok{label}"),
            Err(why) => format!("MISMATCH: {why}{label}"),
        },
    })
}

fn describe_difference(out: &[u8], expected: &[u8]) -> String {
    if out.len() != expected.len() {
        return format!("{} output bytes, expected {}", out.len(), expected.len());
    }
    let at = out
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    format!(
        "byte {at} is {:#04x}, expected {:#04x}",
        out[at], expected[at]
    )
}

/// The five jobs of one column: decode, two scans, select and expand.
fn cases<'a>(
    parser: Parser,
    width: u32,
    values: &[u32],
    mask: &'a [u8],
    src: &'a [u8],
    selected_src: &'a [u8],
) -> Vec<Case<'a>> {
    let n = values.len();
    let n32 = n as u32;
    let base = Job {
        parser,
        src1_bit_width: width,
        num_input_elements: n32,
        ..Job::default()
    };
    // The id of one row in the middle: a typical `WHERE col = 'x'` after the dictionary lookup.
    let needle = values[n / 2];
    // About a quarter of a skewed column.
    let domain = 1u64 << width;
    let low = (domain >> 8) as u32;
    let high = ((domain >> 4) as u32).max(low + 1);

    let extract = Case {
        operation: "extract->u32[]",
        job: Job {
            operation: Operation::Extract,
            param_low: 0,
            param_high: n32 - 1,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
        src1: src,
        src2: None,
        dst_len: n * 4,
        expected_out: u32s_le(values.iter().copied()),
        expected_sum: wrapping_sum(values.iter().copied()),
    };

    let scan_eq = Case {
        operation: "scan_eq->bits",
        job: Job {
            operation: Operation::ScanEq,
            param_low: needle,
            ..base
        },
        src1: src,
        src2: None,
        dst_len: n.div_ceil(8),
        expected_out: bit_vector(values.iter().map(|&v| v == needle)),
        expected_sum: values.iter().filter(|&&v| v == needle).count() as u32,
    };

    let in_range: Vec<u32> = (0..n32)
        .filter(|&i| (low..=high).contains(&values[i as usize]))
        .collect();
    let scan_range = Case {
        operation: "scan_range->idx32",
        job: Job {
            operation: Operation::ScanRange,
            param_low: low,
            param_high: high,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
        src1: src,
        src2: None,
        dst_len: n * 4,
        expected_sum: in_range.len() as u32,
        expected_out: u32s_le(in_range.into_iter()),
    };

    let selected: Vec<u32> = (0..n)
        .filter(|&i| bit(mask, i))
        .map(|i| values[i])
        .collect();
    let select = Case {
        operation: "select->u32[]",
        job: Job {
            operation: Operation::Select,
            src2_bit_width: 1,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
        src1: src,
        src2: Some(mask),
        dst_len: n * 4,
        expected_out: u32s_le(selected.iter().copied()),
        expected_sum: wrapping_sum(selected.iter().copied()),
    };

    // Expand puts the selected values back at their mask positions, zeros elsewhere.
    let mut next = selected.iter().copied();
    let expanded: Vec<u32> = (0..n)
        .map(|i| {
            if bit(mask, i) {
                next.next().unwrap_or(0)
            } else {
                0
            }
        })
        .collect();
    let expand = Case {
        operation: "expand->u32[]",
        job: Job {
            operation: Operation::Expand,
            src2_bit_width: 1,
            out_bit_width: OutBitWidth::W32,
            ..base
        },
        src1: selected_src,
        src2: Some(mask),
        dst_len: n * 4,
        expected_out: u32s_le(expanded.iter().copied()),
        expected_sum: wrapping_sum(expanded.iter().copied()),
    };

    vec![extract, scan_eq, scan_range, select, expand]
}

/// `values` in the parser's format.
fn encode(parser: Parser, values: &[u32], width: u32) -> Vec<u8> {
    let encoded = match parser {
        Parser::PARQUET_RLE => encode_parquet_rle(values, width),
        Parser::BE_PACKED => pack_be(values, width),
        _ => pack_le(values, width),
    };
    // The generator never exceeds the width.
    encoded.unwrap_or_else(|e| panic!("encoding {parser:?} at width {width}: {e}"))
}

fn u32s_le(values: impl Iterator<Item = u32>) -> Vec<u8> {
    values.flat_map(u32::to_le_bytes).collect()
}

fn wrapping_sum(values: impl Iterator<Item = u32>) -> u32 {
    values.fold(0, u32::wrapping_add)
}

/// A bit vector, bit `i` of the sequence at bit `i % 8` of byte `i / 8` (QPL's LE order).
fn bit_vector(bits: impl Iterator<Item = bool>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in bits.enumerate() {
        if i % 8 == 0 {
            out.push(0);
        }
        if b {
            let last = out.len() - 1;
            out[last] |= 1 << (i % 8);
        }
    }
    out
}

fn bit(vector: &[u8], i: usize) -> bool {
    vector[i / 8] >> (i % 8) & 1 == 1
}

/// A deterministic generator (SplitMix64), so every run checks the same data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` dictionary ids below `2^width`: skewed towards small ids (a few values dominate, as in
/// real dictionaries), and a quarter of the time a run of 8 to 64 repeats (sorted or clustered
/// data), which Parquet RLE stores as RLE runs.
fn dictionary_indices(rng: &mut SplitMix64, n: usize, width: u32) -> Vec<u32> {
    let max = u32::MAX >> (32 - width);
    let domain = (1u64 << width) as f64;
    let mut values = Vec::with_capacity(n);
    while values.len() < n {
        let u = rng.unit();
        let id = ((u * u * u * u * domain) as u64).min(u64::from(max)) as u32;
        let repeat = if rng.next().is_multiple_of(4) {
            8 + (rng.next() % 57) as usize
        } else {
            1
        };
        let repeat = repeat.min(n - values.len());
        values.extend(std::iter::repeat_n(id, repeat));
    }
    values
}

/// A bit vector of `n` bits, each set with probability [`MASK_DENSITY_IN_TEN`] / 10.
fn random_mask(rng: &mut SplitMix64, n: usize) -> Vec<u8> {
    bit_vector((0..n).map(|_| rng.next() % 10 < MASK_DENSITY_IN_TEN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_vector_is_lsb_first() {
        assert_eq!(
            bit_vector([true, false, false, true, false, false, false, false, true].into_iter()),
            [0b0000_1001, 0b0000_0001]
        );
        assert!(bit(&[0b0000_1001], 3));
        assert!(!bit(&[0b0000_1001], 2));
    }

    #[test]
    fn generated_values_fit_and_are_skewed_with_runs() {
        let mut rng = SplitMix64(1);
        for width in WIDTHS {
            let values = dictionary_indices(&mut rng, 10_000, width);
            assert_eq!(values.len(), 10_000);
            let max = u32::MAX >> (32 - width);
            assert!(values.iter().all(|&v| v <= max));
            let sixteenth = (1u64 << width) as f64 / 16.0;
            let small = values.iter().filter(|&&v| f64::from(v) < sixteenth).count();
            assert!(small > values.len() / 3, "width {width}: {small} small ids");
        }
    }

    /// The whole demo, small, on the fallback: every job must match the plain computation.
    #[test]
    fn small_run_on_the_fallback_has_no_mismatch() {
        let mut rows = 0;
        run_path(ExecPath::Fallback, 1000 + 5, &WIDTHS, 1, &mut |row| {
            rows += 1;
            assert!(row.ok, "{row}");
        })
        .unwrap();
        assert_eq!(rows, WIDTHS.len() * 3 * 5);
    }

    #[test]
    fn a_wrong_expectation_is_reported_as_a_mismatch() {
        let values = [1, 2, 3];
        let src = pack_le(&values, 3).unwrap();
        let mut case = cases(Parser::LE_PACKED, 3, &values, &[0b101], &src, &src)
            .into_iter()
            .next()
            .unwrap();
        case.expected_out[0] ^= 1;
        let row = run_case(ExecPath::Fallback, &case, 3, 1).unwrap();
        assert!(!row.ok);
        assert!(row.check.starts_with("MISMATCH: byte 0"), "{}", row.check);
    }
}
