//! Runs the built `qpl-replay` binary end to end: lines in on stdin, lines out on stdout.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `qpl-replay` with `args`, feeds it `input`, and returns (exit success, stdout lines).
fn replay(args: &[&str], input: &str) -> (bool, Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qpl-replay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qpl-replay starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (
        output.status.success(),
        stdout.lines().map(str::to_string).collect(),
        stderr,
    )
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// Values 1, 5, 3, 5, 7, 5, 0, 5 packed LSB first at 3 bits.
const SCAN: &str = r#"{"op":"scan_eq","parser":"le_packed","src1_bit_width":3,"num_input_elements":8,"param_low":5,"src1":"e9faa2"}"#;
/// The same values as Parquet RLE (width byte 3, one bit-packed group), extracted to bytes.
const EXTRACT: &str = r#"{"op":"extract","parser":"parquet_rle","num_input_elements":8,"param_low":2,"param_high":5,"out_bit_width":1,"src1":"0303E9FAA2"}"#;

#[test]
fn valid_malformed_valid_in_order() {
    // A blank line and a CRLF line end on the way, which change nothing.
    let input =
        format!("{SCAN}\n{{\"op\":\"scan_eq\",\"parser\":\"le_packed\"\n\n  \r\n{EXTRACT}\r\n");
    let (ok, lines, stderr) = replay(&["--path", "fallback"], &input);
    assert!(ok, "{stderr}");
    assert_eq!(lines.len(), 3, "{lines:#?}");

    let first = parse(&lines[0]);
    assert_eq!(first["status"], 0);
    assert_eq!(first["status_name"], "OK");
    assert_eq!(first["path"], "fallback");
    assert_eq!(first["total_out"], 1);
    assert_eq!(first["out"], "aa");
    assert_eq!(first["sum_value"], 4);
    assert_eq!(first["first_index_min_value"], 1);
    assert_eq!(first["last_index_max_value"], 7);

    let second = parse(&lines[1]);
    assert_eq!(second.as_object().unwrap().len(), 1, "{second}");
    assert!(
        second["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid JSON"),
        "{second}"
    );

    // Elements 2..=5 are 3, 5, 7, 5.
    let third = parse(&lines[2]);
    assert_eq!(third["status"], 0);
    assert_eq!(third["out"], "03050705");
    assert_eq!(third["total_out"], 4);
    assert_eq!(third["first_index_min_value"], 3);
    assert_eq!(third["last_index_max_value"], 7);
    assert_eq!(third["sum_value"], 20);
}

#[test]
fn every_error_kind_keeps_the_program_going() {
    let lines_in = [
        r#"{"op":"scan_eq","parser":"le_packed","src1":"00","param_hi":1}"#,
        r#"{"op":"scan_xx","parser":"le_packed","src1":"00"}"#,
        r#"{"op":"scan_eq","parser":"le_packed","src1":"0"}"#,
        r#"{"op":"scan_eq","parser":"le_packed","src1":"00","param_low":-1}"#,
        r#"{"op":"scan_eq","parser":"le_packed","src1":"00","available_out":2000000000}"#,
        r#"{"op":"scan_eq","src1":"00"}"#,
        SCAN,
    ];
    let (ok, lines, stderr) = replay(&["--path", "fallback"], &lines_in.join("\n"));
    assert!(ok, "{stderr}");
    assert_eq!(lines.len(), lines_in.len(), "{lines:#?}");
    let expected_starts = [
        "invalid job: unknown field `param_hi`",
        "field `op`: unknown operation `scan_xx`",
        "field `src1`: invalid hex",
        "field `param_low`: invalid value: integer `-1`",
        "field `available_out`: 2000000000 bytes is above the limit",
        "invalid job: missing field `parser`",
    ];
    for (line, start) in lines.iter().zip(expected_starts) {
        let error = parse(line)["error"].as_str().unwrap().to_string();
        assert!(
            error.starts_with(start),
            "{error:?} should start with {start:?}"
        );
    }
    assert_eq!(parse(&lines[6])["out"], "aa");
}

#[test]
fn invalid_utf8_gets_an_error_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qpl-replay"))
        .args(["--path", "fallback"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"op\":\"\xff\"}\n").unwrap();
    stdin.write_all(SCAN.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(parse(lines[0])["error"]
        .as_str()
        .unwrap()
        .contains("not valid UTF-8"));
    assert_eq!(parse(lines[1])["status"], 0);
}

#[test]
fn hardware_answers_every_line_or_says_why_not() {
    let (ok, lines, stderr) = replay(&["--path", "hardware"], &format!("{SCAN}\n{EXTRACT}\n"));
    assert!(ok, "{stderr}");
    assert_eq!(lines.len(), 2);
    for line in &lines {
        let value = parse(line);
        match value.get("error") {
            // No accelerator here: every line says so, in plain words.
            Some(error) => assert!(error.as_str().unwrap().contains("hardware"), "{error}"),
            None => assert_eq!(value["path"], "hardware"),
        }
    }
}

#[test]
fn auto_runs_every_line_and_names_the_path() {
    let (ok, lines, stderr) = replay(&["--path", "auto"], &format!("{SCAN}\n{EXTRACT}\n"));
    assert!(ok, "{stderr}");
    assert_eq!(lines.len(), 2);
    for line in &lines {
        let value = parse(line);
        assert_eq!(value["status"], 0, "{line}");
        let path = value["path"].as_str().unwrap();
        assert!(path == "hardware" || path == "fallback", "{path}");
    }
}

#[test]
fn command_line_is_checked() {
    let (ok, lines, stderr) = replay(&[], "");
    assert!(!ok);
    assert!(lines.is_empty());
    assert!(stderr.contains("--path"), "{stderr}");

    let (ok, _, stderr) = replay(&["--path", "gpu"], "");
    assert!(!ok);
    assert!(stderr.contains("gpu"), "{stderr}");

    let (ok, lines, _) = replay(&["--help"], "");
    assert!(ok);
    let help = lines.join("\n");
    assert!(
        help.contains("Unknown or repeated fields are rejected"),
        "{help}"
    );
    assert!(help.contains("Blank"), "{help}");
    assert!(help.contains("1 GiB"), "{help}");
    assert!(help.contains("status_name"), "{help}");
}

#[test]
fn a_failed_job_names_its_status() {
    // Eight 3-bit values need 3 bytes; 2 are given.
    let short = r#"{"op":"scan_eq","parser":"le_packed","src1_bit_width":3,"num_input_elements":8,"src1":"e9fa"}"#;
    let (ok, lines, stderr) = replay(&["--path", "fallback"], &format!("{short}\n"));
    assert!(ok, "{stderr}");
    let out = parse(&lines[0]);
    assert_eq!(out["status"], 232, "{out}");
    assert_eq!(out["status_name"], "SRC_IS_SHORT_ERR", "{out}");
}
