//! `qpl-replay --path fallback|software|hardware|auto`: runs analytics jobs read as JSON Lines
//! on stdin and writes one JSON result line per job on stdout, in order, flushed line by line.
//! The format is documented in `qpl_examples::replay` and in `--help`.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser as _;
use qpl_examples::path::ExecPath;
use qpl_examples::replay::{error_line, run_line};

const LONG_ABOUT: &str = "\
Runs QPL analytics jobs read as JSON Lines on stdin, one job per line, on the chosen path, and \
writes one JSON line per job on stdout, in input order, flushed after each line.

Input line: a JSON object.
  Required: op (extract, select, expand, scan_eq, scan_ne, scan_lt, scan_le, scan_gt, scan_ge,
            scan_range, scan_not_range), parser (le_packed, be_packed, parquet_rle),
            src1 (hex, upper or lower case).
  Optional integers in 0..=4294967295, default 0: src1_bit_width, src2_bit_width,
            num_input_elements, param_low, param_high, flags (QPL_FLAG_* bits),
            out_bit_width (0 nominal, 1 = 8, 2 = 16, 3 = 32 bits; other values are passed to
            the job, which answers status 72), drop_initial_bytes, initial_output_index.
  Optional: src2 (hex; absent or null = no source-2), available_out (destination size in
            bytes, default 65536, at most 1073741824 = 1 GiB so that no line can make the tool
            allocate unbounded memory).
  Unknown or repeated fields are rejected, so that a typo cannot silently run another job.
  Blank (empty or whitespace-only) lines are skipped without output.

Output line: {\"status\":..,\"status_name\":..,\"path\":..,\"total_out\":..,\"out\":..,
\"first_index_min_value\":..,\"last_index_max_value\":..,\"sum_value\":..,\"crc\":..,
\"xor_checksum\":..,\"last_bit_offset\":..}
  status is QPL's status code (0 = success) and status_name its name without the QPL_STS_
  prefix (OK, SRC_IS_SHORT_ERR for 232, ...; UNKNOWN for a code this version does not know).
  path is the path that really ran; out is the hex of the first total_out destination bytes.
  A non-zero status comes with the other numbers 0 and out \"\".
  A line that cannot be run (malformed JSON, unknown field or name, bad hex, a number out of
  range, not UTF-8, or a path that is not available) gets {\"error\":\"<message>\"} and the
  program goes on with the next line.

Exit status: 0 at the end of input, 1 if reading stdin or writing stdout fails.";

/// Command line of `qpl-replay`.
#[derive(clap::Parser)]
#[command(
    name = "qpl-replay",
    version,
    about = "Replay QPL analytics jobs from JSON Lines on stdin",
    long_about = LONG_ABOUT
)]
struct Cli {
    /// The path every job runs on. A path that cannot run here (software without QPL linked,
    /// hardware without a usable IAA device) answers each job line with an error line saying
    /// why; auto runs on the accelerator when usable, else on the fallback.
    #[arg(long, value_enum)]
    path: ExecPath,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match replay(cli.path, io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("qpl-replay: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads job lines from `input` until its end and writes one output line per non-blank line.
fn replay(path: ExecPath, mut input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut output = BufWriter::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let result = match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => run_line(text, path),
            Err(e) => error_line(&format!("the line is not valid UTF-8: {e}")),
        };
        output.write_all(result.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}
