//! `replay_line`: an arbitrary UTF-8 string as one `qpl-replay` input line.
//!
//! Input: the raw bytes; inputs that are not UTF-8 are skipped (`qpl-replay` reads lines as
//! UTF-8 before it calls `parse_job_line`).
//!
//! Checks: `parse_job_line` never panics; an accepted line has `available_out` within
//! `MAX_AVAILABLE_OUT`; `run_line` on the fallback path (only when the line asks for at most
//! 64 KiB of destination, to keep each run cheap) never panics and always prints one JSON
//! object: `{"error":...}` exactly when the line was rejected, a result with `"status"` otherwise.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qpl_examples::replay::MAX_AVAILABLE_OUT;
use qpl_examples::{parse_job_line, run_line, ExecPath};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_job_line(line);
    if let Ok(job) = &parsed {
        assert!(job.available_out <= MAX_AVAILABLE_OUT as usize);
        if job.available_out > 1 << 16 {
            return;
        }
    }
    let out = run_line(line, ExecPath::Fallback);
    let value: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("output is not JSON ({e}): {out}"));
    let object = value.as_object().expect("output is a JSON object");
    match parsed {
        Err(message) => {
            assert_eq!(
                object.get("error").and_then(|v| v.as_str()),
                Some(&*message)
            );
            assert_eq!(object.len(), 1);
        }
        Ok(_) => {
            assert!(object.contains_key("status"), "no status: {out}");
            assert!(
                !object.contains_key("error"),
                "error for a parsed line: {out}"
            );
            assert!(!out.contains('\n'), "output spans lines: {out:?}");
        }
    }
});
