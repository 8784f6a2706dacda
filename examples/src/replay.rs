//! The `qpl-replay` line format: one JSON object per job in, one JSON object per job out.
//!
//! # Input line
//!
//! A JSON object. Required: `op` (`extract`, `select`, `expand`, `scan_eq`, `scan_ne`,
//! `scan_lt`, `scan_le`, `scan_gt`, `scan_ge`, `scan_range`, `scan_not_range`), `parser`
//! (`le_packed`, `be_packed`, `parquet_rle`) and `src1` (hex, either case). Optional, default 0,
//! JSON integers in `0..=4294967295`: `src1_bit_width`, `src2_bit_width`,
//! `num_input_elements`, `param_low`, `param_high`, `flags` (QPL's `QPL_FLAG_*` bits),
//! `out_bit_width` (QPL's numbers: 0 nominal, 1 → 8, 2 → 16, 3 → 32 bits; any other value is
//! passed through to the job, which rejects it with status 72), `drop_initial_bytes`,
//! `initial_output_index`. Optional: `src2` (hex; absent or `null` = no source-2) and
//! `available_out` (the destination size in bytes, default [`DEFAULT_AVAILABLE_OUT`], at most
//! [`MAX_AVAILABLE_OUT`]).
//!
//! Unknown fields and repeated fields are errors, so that a typo (`param_hi`) cannot silently
//! run a different job.
//!
//! # Output line
//!
//! `{"status":0,"status_name":"OK","path":"fallback","total_out":1,"out":"aa",
//! "first_index_min_value":1,"last_index_max_value":7,"sum_value":4,"crc":...,
//! "xor_checksum":...,"last_bit_offset":0}` — `status_name` is QPL's name of `status` without
//! the `QPL_STS_` prefix (`SRC_IS_SHORT_ERR` for 232; `UNKNOWN` for a code this version does
//! not know), `path` the path that really ran, `out` the hex of the first `total_out`
//! destination bytes.
//! A non-zero `status` comes with every other number 0 and `out` `""`. A line that cannot be run
//! (malformed, or the path is unavailable) gets `{"error":"<message>"}` instead.

use qpl_fallback::{Completion, Flags, Job, Operation, OutBitWidth, Parser};
use serde::{Deserialize, Serialize};

use crate::path::{execute_on, ExecPath};

/// The destination size when a line gives no `available_out`.
pub const DEFAULT_AVAILABLE_OUT: u32 = 65536;

/// The largest `available_out` a line may ask for (1 GiB). A replay line allocates its
/// destination, so without a bound a 40-byte line could make the tool allocate 4 GiB; with it,
/// the memory one line needs is at most this plus about twice the line's length.
pub const MAX_AVAILABLE_OUT: u32 = 1 << 30;

/// One parsed input line: the job and its buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayJob {
    /// The job fields.
    pub job: Job,
    /// Source-1 bytes.
    pub src1: Vec<u8>,
    /// Source-2 bytes (the select/expand mask), if the line has `src2`.
    pub src2: Option<Vec<u8>>,
    /// Destination size in bytes (at most [`MAX_AVAILABLE_OUT`]).
    pub available_out: usize,
}

/// The line as written, before names and hex are resolved.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    op: String,
    parser: String,
    #[serde(default)]
    src1_bit_width: u32,
    #[serde(default)]
    src2_bit_width: u32,
    #[serde(default)]
    num_input_elements: u32,
    #[serde(default)]
    param_low: u32,
    #[serde(default)]
    param_high: u32,
    #[serde(default)]
    flags: u32,
    #[serde(default)]
    out_bit_width: u32,
    #[serde(default)]
    drop_initial_bytes: u32,
    #[serde(default)]
    initial_output_index: u32,
    src1: String,
    #[serde(default)]
    src2: Option<String>,
    #[serde(default = "default_available_out")]
    available_out: u32,
}

fn default_available_out() -> u32 {
    DEFAULT_AVAILABLE_OUT
}

/// The result line of a job that ran (successfully or with a status).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobOutput {
    /// QPL status code: 0 on success.
    pub status: u32,
    /// QPL's name of `status` without the `QPL_STS_` prefix (`OK`, `SRC_IS_SHORT_ERR`, ...;
    /// `UNKNOWN` for a code this version does not know).
    pub status_name: &'static str,
    /// The path that really ran the job.
    pub path: &'static str,
    /// Bytes written to the destination.
    pub total_out: u32,
    /// Hex (lower case) of the first `total_out` destination bytes.
    pub out: String,
    /// Bit vectors: index of the first 1 bit; arrays: the minimum value.
    pub first_index_min_value: u32,
    /// Bit vectors: index of the last 1 bit; arrays: the maximum value.
    pub last_index_max_value: u32,
    /// Bit vectors: number of 1 bits; arrays: wrapping sum.
    pub sum_value: u32,
    /// CRC-32 (or CRC-32C) of source-1.
    pub crc: u32,
    /// 16-bit XOR checksum of source-1.
    pub xor_checksum: u32,
    /// Bits used in the last byte of a nominal bit-vector output.
    pub last_bit_offset: u32,
}

fn decode_hex(field: &str, text: &str) -> Result<Vec<u8>, String> {
    hex::decode(text).map_err(|e| format!("field `{field}`: invalid hex: {e}"))
}

/// Parses one input line (see the [module documentation](self) for the format).
///
/// The error names the problem and, where there is one, the field: `field `param_low`: invalid
/// value: integer `-1`, expected u32 ...`, `unknown op `scan_xx` ...`, `invalid JSON: ...`.
/// A blank line is an error here (`qpl-replay` skips blank lines before calling this).
pub fn parse_job_line(line: &str) -> Result<ReplayJob, String> {
    if line.trim().is_empty() {
        return Err("empty line: expected a JSON object describing a job".to_string());
    }
    // serde's derive also accepts a struct written as an array (`["scan_eq", ...]`); a job
    // line must be an object.
    if !line.trim_start().starts_with('{') {
        return Err(match serde_json::from_str::<serde_json::Value>(line) {
            Ok(value) => format!(
                "invalid job: expected a JSON object, found {}",
                json_kind(&value)
            ),
            Err(e) => format!("invalid JSON: {e}"),
        });
    }
    let mut de = serde_json::Deserializer::from_str(line);
    let raw: RawJob = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            format!("invalid JSON: {inner}")
        } else if field == "." || inner.to_string().starts_with("unknown field") {
            // Unknown fields are reported at their own path; the message names them already.
            format!("invalid job: {inner}")
        } else {
            format!("field `{field}`: {inner}")
        }
    })?;
    de.end().map_err(|e| format!("invalid JSON: {e}"))?;

    let operation = Operation::from_name(&raw.op).ok_or_else(|| {
        let names: Vec<&str> = Operation::ALL.iter().map(|op| op.name()).collect();
        format!(
            "field `op`: unknown operation `{}` (expected one of {})",
            raw.op,
            names.join(", ")
        )
    })?;
    let parser = Parser::from_name(&raw.parser).ok_or_else(|| {
        format!(
            "field `parser`: unknown parser `{}` (expected one of le_packed, be_packed, \
             parquet_rle)",
            raw.parser
        )
    })?;
    if raw.available_out > MAX_AVAILABLE_OUT {
        return Err(format!(
            "field `available_out`: {} bytes is above the limit of {MAX_AVAILABLE_OUT} (1 GiB)",
            raw.available_out
        ));
    }
    let src1 = decode_hex("src1", &raw.src1)?;
    let src2 = raw
        .src2
        .as_deref()
        .map(|text| decode_hex("src2", text))
        .transpose()?;
    Ok(ReplayJob {
        job: Job {
            operation,
            parser,
            src1_bit_width: raw.src1_bit_width,
            src2_bit_width: raw.src2_bit_width,
            num_input_elements: raw.num_input_elements,
            param_low: raw.param_low,
            param_high: raw.param_high,
            flags: Flags(raw.flags),
            out_bit_width: OutBitWidth(raw.out_bit_width),
            drop_initial_bytes: raw.drop_initial_bytes,
            initial_output_index: raw.initial_output_index,
        },
        src1,
        src2,
        available_out: raw.available_out as usize,
    })
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Runs a parsed job on `path`. `Err` only when the path cannot run jobs at all; a job the
/// path rejected is an `Ok` output with a non-zero `status`.
pub fn run_job(job: &ReplayJob, path: ExecPath) -> Result<JobOutput, String> {
    let mut dst = vec![0u8; job.available_out];
    let ran = execute_on(path, &job.job, &job.src1, job.src2.as_deref(), &mut dst)
        .map_err(|reason| format!("path `{path}`: {reason}"))?;
    Ok(match ran.result {
        Ok(done) => output(ran.path, 0, &done, &dst),
        Err(status) => output(ran.path, status.0, &Completion::default(), &[]),
    })
}

fn output(path: ExecPath, status: u32, done: &Completion, dst: &[u8]) -> JobOutput {
    let written = dst.get(..done.total_out as usize).unwrap_or(dst);
    JobOutput {
        status,
        status_name: qpl_rs::status_name(qpl_fallback::Status(status)),
        path: path.name(),
        total_out: done.total_out,
        out: hex::encode(written),
        first_index_min_value: done.first_index_min_value,
        last_index_max_value: done.last_index_max_value,
        sum_value: done.sum_value,
        crc: done.crc,
        xor_checksum: done.xor_checksum,
        last_bit_offset: done.last_bit_offset,
    }
}

/// The output line for a line that could not be run: `{"error":"<message>"}`.
pub fn error_line(message: &str) -> String {
    serde_json::json!({ "error": message }).to_string()
}

/// Parses `line`, runs it on `path` and returns the output line (without a newline): the
/// result object, or `{"error":...}` when the line is malformed (checked first) or the path is
/// unavailable.
pub fn run_line(line: &str, path: ExecPath) -> String {
    let output = parse_job_line(line).and_then(|job| run_job(&job, path));
    match output {
        Ok(output) => serde_json::to_string(&output)
            .unwrap_or_else(|e| error_line(&format!("cannot format the result: {e}"))),
        Err(message) => error_line(&message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// CRC-32 (zlib's: reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF), bit
    /// by bit, so the expected `crc` does not come from the engine's own CRC code.
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = u32::MAX;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn parse_output(line: &str) -> Value {
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn error_of(line: &str) -> String {
        let err = parse_job_line(line).expect_err(line);
        // run_line reports the same message as a one-field object.
        let out = parse_output(&run_line(line, ExecPath::Fallback));
        assert_eq!(out, serde_json::json!({ "error": err }), "{line}");
        err
    }

    /// Values 1, 5, 3, 5, 7, 5, 0, 5 at 3 bits, LSB first, packed by hand:
    /// byte 0 = v2[1:0] v1 v0 = 11 101 001, byte 1 = v5[0] v4 v3 v2[2] = 1 111 101 0,
    /// byte 2 = v7 v6 v5[2:1] = 101 000 10.
    const PACKED: [u8; 3] = [0b1110_1001, 0b1111_1010, 0b1010_0010];

    #[test]
    fn hand_packed_bytes_match_the_encoder() {
        assert_eq!(PACKED, [0xE9, 0xFA, 0xA2]);
        assert_eq!(
            qpl_fallback::pack_le(&[1, 5, 3, 5, 7, 5, 0, 5], 3).unwrap(),
            PACKED
        );
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn scan_eq_over_hand_packed_values() {
        let line = r#"{"op":"scan_eq","parser":"le_packed","src1_bit_width":3,
            "num_input_elements":8,"param_low":5,"src1":"e9faa2"}"#
            .replace('\n', " ");
        let out = parse_output(&run_line(&line, ExecPath::Fallback));
        // Elements 1, 3, 5, 7 equal 5: bits 1, 3, 5, 7 of one output byte.
        let expected = serde_json::json!({
            "status": 0,
            "status_name": "OK",
            "path": "fallback",
            "total_out": 1,
            "out": "aa",
            "first_index_min_value": 1,
            "last_index_max_value": 7,
            "sum_value": 4,
            "crc": crc32(&PACKED),
            "xor_checksum": 0xFAE9 ^ 0x00A2,
            "last_bit_offset": 0,
        });
        assert_eq!(out, expected);
        // Field order is part of the format (stable, diffable output).
        let text = run_line(&line, ExecPath::Fallback);
        assert!(text.starts_with(
            r#"{"status":0,"status_name":"OK","path":"fallback","total_out":1,"out":"aa","#
        ));
        assert!(text.ends_with(r#""last_bit_offset":0}"#), "{text}");
    }

    #[test]
    fn scan_range_to_an_index_list_and_partial_last_byte() {
        // Values 1, 5, 3, 5, 7: 3 <= x <= 5 at indices 1, 2, 3; 8-bit indices from 10.
        let line = r#"{"op":"scan_range","parser":"le_packed","src1_bit_width":3,"num_input_elements":5,"param_low":3,"param_high":5,"out_bit_width":1,"initial_output_index":10,"src1":"E9FAA2"}"#;
        let out = parse_output(&run_line(line, ExecPath::Fallback));
        assert_eq!(out["status"], 0);
        assert_eq!(out["out"], "0b0c0d");
        assert_eq!(out["total_out"], 3);
        assert_eq!(out["last_bit_offset"], 0);
        // The same scan to a bit vector: 5 bits used in the last (only) byte.
        let line = line.replace(r#""out_bit_width":1,"#, "");
        let out = parse_output(&run_line(&line, ExecPath::Fallback));
        assert_eq!(out["out"], "0e");
        assert_eq!(out["last_bit_offset"], 5);
    }

    #[test]
    fn defaults() {
        let job = parse_job_line(r#"{"op":"extract","parser":"be_packed","src1":""}"#).unwrap();
        assert_eq!(
            job,
            ReplayJob {
                job: Job {
                    parser: Parser::BE_PACKED,
                    ..Job::new(Operation::Extract)
                },
                src1: vec![],
                src2: None,
                available_out: 65536,
            }
        );
        // Every numeric field set, to make sure each lands in the right place.
        let job = parse_job_line(
            r#"{"op":"scan_not_range","parser":"parquet_rle","src1_bit_width":1,
                "src2_bit_width":2,"num_input_elements":3,"param_low":4,"param_high":5,
                "flags":256,"out_bit_width":7,"drop_initial_bytes":8,
                "initial_output_index":9,"src1":"00","available_out":10}"#,
        )
        .unwrap();
        assert_eq!(
            job.job,
            Job {
                operation: Operation::ScanNotRange,
                parser: Parser::PARQUET_RLE,
                src1_bit_width: 1,
                src2_bit_width: 2,
                num_input_elements: 3,
                param_low: 4,
                param_high: 5,
                flags: Flags::OUT_BE,
                out_bit_width: OutBitWidth(7),
                drop_initial_bytes: 8,
                initial_output_index: 9,
            }
        );
        assert_eq!(job.available_out, 10);
    }

    #[test]
    fn hex_in_either_case() {
        let lower = parse_job_line(r#"{"op":"extract","parser":"le_packed","src1":"abcdef"}"#);
        let upper = parse_job_line(r#"{"op":"extract","parser":"le_packed","src1":"ABCDEF"}"#);
        let mixed = parse_job_line(r#"{"op":"extract","parser":"le_packed","src1":"aBcDeF"}"#);
        assert_eq!(lower.as_ref().unwrap().src1, [0xAB, 0xCD, 0xEF]);
        assert_eq!(lower, upper);
        assert_eq!(lower, mixed);
    }

    #[test]
    fn src2_absent_null_and_present() {
        let base = r#""op":"select","parser":"le_packed","src1_bit_width":3,"src2_bit_width":1,"num_input_elements":8,"out_bit_width":1,"src1":"e9faa2""#;
        let absent = parse_job_line(&format!("{{{base}}}")).unwrap();
        assert_eq!(absent.src2, None);
        let null = parse_job_line(&format!(r#"{{{base},"src2":null}}"#)).unwrap();
        assert_eq!(null.src2, None);
        let present = parse_job_line(&format!(r#"{{{base},"src2":"55"}}"#)).unwrap();
        assert_eq!(present.src2, Some(vec![0x55]));

        // Without a mask, select is QPL's null-pointer status 50, with everything else 0.
        let out = parse_output(&run_line(&format!("{{{base}}}"), ExecPath::Fallback));
        assert_eq!(
            out,
            serde_json::json!({
                "status": 50, "status_name": "NULL_PTR_ERR", "path": "fallback", "total_out": 0, "out": "",
                "first_index_min_value": 0, "last_index_max_value": 0, "sum_value": 0,
                "crc": 0, "xor_checksum": 0, "last_bit_offset": 0,
            })
        );
        // Mask 0x55 keeps elements 0, 2, 4, 6: values 1, 3, 7, 0 as 8-bit array elements.
        let out = parse_output(&run_line(
            &format!(r#"{{{base},"src2":"55"}}"#),
            ExecPath::Fallback,
        ));
        assert_eq!(out["status"], 0);
        assert_eq!(out["out"], "01030700");
        assert_eq!(out["first_index_min_value"], 0);
        assert_eq!(out["last_index_max_value"], 7);
        assert_eq!(out["sum_value"], 11);
    }

    #[test]
    fn invalid_out_bit_width_is_passed_through_to_status_72() {
        let line = r#"{"op":"scan_eq","parser":"le_packed","src1_bit_width":3,"num_input_elements":8,"out_bit_width":4,"src1":"e9faa2"}"#;
        assert_eq!(
            parse_job_line(line).unwrap().job.out_bit_width,
            OutBitWidth(4)
        );
        let out = parse_output(&run_line(line, ExecPath::Fallback));
        assert_eq!(out["status"], 72);
        assert_eq!(out["status_name"], "OUT_FORMAT_ERR");
        assert_eq!(out["out"], "");
    }

    #[test]
    fn malformed_json() {
        assert!(error_of("{").starts_with("invalid JSON:"));
        assert!(error_of("not json").starts_with("invalid JSON:"));
        assert!(
            error_of(r#"{"op":"extract","parser":"le_packed","src1":""} x"#)
                .starts_with("invalid JSON:")
        );
        assert_eq!(
            error_of(r#"["scan_eq", "le_packed"]"#),
            "invalid job: expected a JSON object, found an array"
        );
        assert_eq!(
            error_of("42"),
            "invalid job: expected a JSON object, found a number"
        );
        assert!(error_of("[1, 2").starts_with("invalid JSON:"));
        assert!(error_of("   ").starts_with("empty line"));
    }

    #[test]
    fn missing_required_fields() {
        for field in ["op", "parser", "src1"] {
            let mut object =
                serde_json::json!({"op": "extract", "parser": "le_packed", "src1": "00"});
            object.as_object_mut().unwrap().remove(field);
            let err = error_of(&object.to_string());
            assert!(err.contains(&format!("missing field `{field}`")), "{err}");
        }
    }

    #[test]
    fn unknown_and_repeated_fields_are_rejected() {
        let err = error_of(r#"{"op":"extract","parser":"le_packed","src1":"","param_hi":3}"#);
        assert!(
            err.starts_with("invalid job: unknown field `param_hi`"),
            "{err}"
        );
        let err = error_of(r#"{"op":"extract","op":"scan_eq","parser":"le_packed","src1":""}"#);
        assert!(err.contains("duplicate field `op`"), "{err}");
    }

    #[test]
    fn unknown_names() {
        let err = error_of(r#"{"op":"scan_xx","parser":"le_packed","src1":""}"#);
        assert!(
            err.starts_with("field `op`: unknown operation `scan_xx`"),
            "{err}"
        );
        assert!(err.contains("scan_not_range"), "{err}");
        let err = error_of(r#"{"op":"scan_eq","parser":"rle","src1":""}"#);
        assert!(
            err.starts_with("field `parser`: unknown parser `rle`"),
            "{err}"
        );
        let err = error_of(r#"{"op":5,"parser":"le_packed","src1":""}"#);
        assert!(
            err.starts_with("field `op`: invalid type: integer"),
            "{err}"
        );
    }

    #[test]
    fn bad_hex() {
        let err = error_of(r#"{"op":"extract","parser":"le_packed","src1":"abc"}"#);
        assert!(err.starts_with("field `src1`: invalid hex:"), "{err}");
        let err = error_of(r#"{"op":"extract","parser":"le_packed","src1":"00","src2":"0g"}"#);
        assert!(err.starts_with("field `src2`: invalid hex:"), "{err}");
        assert!(err.contains("'g'"), "{err}");
        let err = error_of(r#"{"op":"extract","parser":"le_packed","src1":"0x00"}"#);
        assert!(err.starts_with("field `src1`: invalid hex:"), "{err}");
    }

    #[test]
    fn numbers_out_of_range() {
        let base = r#""op":"extract","parser":"le_packed","src1":"00""#;
        for (field, value) in [
            ("param_low", "-1"),
            ("param_high", "4294967296"),
            ("flags", "1.5"),
            ("num_input_elements", "1e3"),
            ("src1_bit_width", "\"3\""),
            ("available_out", "-5"),
            ("initial_output_index", "null"),
            ("drop_initial_bytes", "18446744073709551616"),
        ] {
            let err = error_of(&format!(r#"{{{base},"{field}":{value}}}"#));
            assert!(err.starts_with(&format!("field `{field}`: ")), "{err}");
        }
        // The largest u32 is fine.
        let job = parse_job_line(&format!(r#"{{{base},"param_high":4294967295}}"#)).unwrap();
        assert_eq!(job.job.param_high, u32::MAX);
    }

    #[test]
    fn available_out_is_bounded() {
        let base = r#""op":"extract","parser":"le_packed","src1":"00""#;
        let job = parse_job_line(&format!(
            r#"{{{base},"available_out":{MAX_AVAILABLE_OUT}}}"#
        ))
        .unwrap();
        assert_eq!(job.available_out, 1 << 30);
        let err = error_of(&format!(
            r#"{{{base},"available_out":{}}}"#,
            MAX_AVAILABLE_OUT + 1
        ));
        assert!(err.starts_with("field `available_out`:"), "{err}");
        assert!(err.contains("1 GiB"), "{err}");
        // Zero is allowed and is the job's business (QPL's size status 57).
        let out = parse_output(&run_line(
            &format!(r#"{{{base},"num_input_elements":1,"src1_bit_width":8,"available_out":0}}"#),
            ExecPath::Fallback,
        ));
        assert_eq!(out["status"], 57);
        assert_eq!(out["status_name"], "SIZE_ERR");
    }

    #[test]
    fn every_path_answers_or_says_why_not() {
        let line = r#"{"op":"scan_eq","parser":"le_packed","src1_bit_width":3,"num_input_elements":8,"src1":"e9faa2"}"#;
        let expected = parse_output(&run_line(line, ExecPath::Fallback));
        for path in [ExecPath::Software, ExecPath::Hardware, ExecPath::Auto] {
            let out = parse_output(&run_line(line, path));
            match crate::path::availability(path) {
                Ok(()) => {
                    assert_eq!(out["out"], expected["out"], "{path}");
                    assert_eq!(out["status"], 0);
                }
                Err(reason) => {
                    let message = out["error"].as_str().unwrap();
                    assert!(message.contains(&reason), "{message}");
                    assert!(message.contains(path.name()), "{message}");
                    assert_eq!(out.as_object().unwrap().len(), 1);
                }
            }
        }
        // Auto runs here, on the accelerator or else the fallback, and says which.
        let auto = parse_output(&run_line(line, ExecPath::Auto));
        let ran = auto["path"].as_str().unwrap();
        assert!(ran == "hardware" || ran == "fallback", "{ran}");
        // A malformed line reports the malformation, whatever the path.
        let out = parse_output(&run_line("{", ExecPath::Software));
        assert!(out["error"].as_str().unwrap().starts_with("invalid JSON"));
    }

    #[test]
    fn error_line_escapes() {
        assert_eq!(error_line(r#"a "b" \ c"#), r#"{"error":"a \"b\" \\ c"}"#);
    }
}
