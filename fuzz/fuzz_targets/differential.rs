//! `differential`: the fallback against QPL's software path, on jobs a fuzzer steers.
//!
//! Input (`qpl_difftest::Case::from_fuzz_input`): the first byte chooses the mode. ≡ 0 mod 4
//! (`FUZZ_MODE_STRUCTURED`): the rest drives the differential test's random-job generator
//! (`gen_case` over `ByteChoices`: each choice reads the bytes it needs, zeros past the end),
//! so the fuzzer explores mostly valid jobs of the generator's shapes. ≡ 2 mod 4
//! (`FUZZ_MODE_DECOMPRESS`): the same through `gen_decompress_case`, source-1 deflate-
//! compressed (raw/gzip/zlib, any level, sometimes cut, corrupt or followed by junk;
//! docs/decompress.md). Odd (`FUZZ_MODE_RAW`):
//! the rest is the `job` target's layout (eleven `u32` job fields, `dst_len: u16`,
//! `src2_len: u16`, `has_src2`, source-2, source-1), so invalid jobs and odd flags reach both
//! paths too. `fuzz/gen-seeds.py` writes seeds of both kinds.
//!
//! With QPL linked, each case runs through QPL's software path (the safe wrapper,
//! `Executor::new(Path::Software)`) and through `qpl_fallback::execute`; a difference that
//! `qpl_difftest::known_divergence` (the divergences of `docs/semantics.md`, as the
//! differential test uses them) does not name is a crash, printed in full.
//!
//! Without QPL (`QPL_DISABLE=1`, or QPL not installed) there is nothing to compare with: the
//! target says so once, loudly, and only checks that the generator and the fallback never
//! panic.
//!
//! QPL's hardware probe (the first `Executor`) leaks 88 bytes once, which LeakSanitizer
//! reports as a crash: run this target with `ASAN_OPTIONS=detect_leaks=0` (fuzz/README.md).
#![no_main]

use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use qpl_difftest::{compare, describe, qpl_version, run_fallback, Case, Verdict, QPL_LINKED};

static ANNOUNCE: Once = Once::new();

fn announce() {
    ANNOUNCE.call_once(|| {
        if QPL_LINKED {
            eprintln!(
                "differential: QPL linked (version {}): comparing the fallback with QPL's \
                 software path",
                qpl_version().unwrap_or("unknown")
            );
        } else {
            eprintln!(
                "differential: QPL NOT LINKED: the differential comparison is OFF; this run \
                 only checks that the generator and the fallback never panic (build without \
                 QPL_DISABLE where QPL is installed)"
            );
        }
    });
}

fuzz_target!(|data: &[u8]| {
    announce();
    let case = Case::from_fuzz_input(data);
    if !QPL_LINKED {
        run_fallback(&case.job, &case.src1, case.src2.as_deref(), case.dst_len);
        return;
    }
    let comparison = compare(&case);
    if comparison.verdict == Verdict::Unexplained {
        panic!(
            "unexplained difference between QPL's software path and the fallback\n{}",
            describe(&case, &comparison.software, &comparison.fallback)
        );
    }
});
