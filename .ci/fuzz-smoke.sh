#!/usr/bin/env bash
# Fuzz smoke run: builds the cargo-fuzz targets in fuzz/ and runs each for FUZZ_SECONDS
# (default 20) from its committed seeds (fuzz/seeds/<target>/). Exits non-zero on a crash,
# a timeout or an out-of-memory, after printing the reproducer's hex (the file itself is left
# in fuzz/artifacts/<target>/). See fuzz/README.md.
#
# Two builds: the Rust-only targets (parquet_rle, parquet_encodings, job, replay_line, reader) without
# QPL, and the `differential` target (the fallback against QPL's software path) with QPL, in
# its own target directory (<target dir>/qpl) so that neither build invalidates the other.
# Where QPL is not installed (or the caller set QPL_DISABLE=1) the differential target is skipped, and
# the script says so.
#
# Stable toolchain: cargo-fuzz passes -Zsanitizer=address, which stable rustc accepts only
# with RUSTC_BOOTSTRAP=1 (set here, for these builds only).
#
# cargo-fuzz missing: installed with `cargo install --locked` (about a minute on 2 cores)
# unless FUZZ_SMOKE_INSTALL=0, in which case the script skips with exit 0. A failed install
# also skips (exit 0): the smoke run is a bonus, not a gate on registry access.
#
# The targets run two at a time (CI machines have 2 cores), so the fuzzing takes about
# 2 x FUZZ_SECONDS.
#
# libFuzzer's random seed is fixed (FUZZ_SEED, default 1): smoke runs of the same commit walk
# the same sequence of inputs (as far as the time allows), so CI turns red on a change, not on
# the luck of a draw. Finding new bugs is the job of longer runs with other seeds
# (fuzz/README.md).
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_SEED (default 1),
# FUZZ_SMOKE_INSTALL (default 1), FUZZ_TARGET_DIR (cargo target dir for the fuzz build;
# default fuzz/target, and under CI ~/.cache/qpl-rs/fuzz-target, so that CI runs from fresh
# clones on one machine reuse the instrumented dependencies instead of rebuilding them each
# time; the QPL build goes to its qpl/ subdirectory).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-20}"
seed="${FUZZ_SEED:-1}"
targets=(parquet_rle parquet_encodings job replay_line reader)
start=$(date +%s)
# Whether the caller asked for no QPL at all (before this script sets QPL_DISABLE below).
caller_qpl_disable="${QPL_DISABLE:-}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    if [ "${FUZZ_SMOKE_INSTALL:-1}" = 1 ]; then
        echo "== fuzz-smoke: cargo-fuzz not installed; installing it (cargo install cargo-fuzz --locked)"
        if ! cargo install cargo-fuzz --locked --version '^0.13' >/tmp/fuzz-smoke-install.log 2>&1; then
            tail -n 20 /tmp/fuzz-smoke-install.log
            echo "== fuzz-smoke: SKIPPED: cargo-fuzz could not be installed"
            exit 0
        fi
    else
        echo "== fuzz-smoke: SKIPPED: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)"
        exit 0
    fi
fi
echo "== fuzz-smoke: $(cargo fuzz --version), ${seconds}s per target"

# RUSTC_BOOTSTRAP=1: the -Z flags on stable. QPL_DISABLE=1: build qpl-sys without Intel QPL
# even where it is installed, so the Rust-only targets exercise the Rust code only (QPL's
# hardware probe leaks 88 bytes once, which LeakSanitizer would report as a crash).
export RUSTC_BOOTSTRAP=1 QPL_DISABLE=1
if [ -z "${FUZZ_TARGET_DIR:-}" ] && [ -n "${CI:-}" ]; then
    FUZZ_TARGET_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/qpl-rs/fuzz-target"
fi
target_dir="${FUZZ_TARGET_DIR:-fuzz/target}"
# A cache kept across CI runs gains each commit's instrumented crates and never loses any: past
# FUZZ_CACHE_MAX_GB (default 6; a fresh build is ~2.2 GB) it is emptied and built afresh.
if [ -d "$target_dir" ]; then
    cache_gb=$(( $(du -sk "$target_dir" | cut -f1) / 1048576 ))
    if [ "$cache_gb" -ge "${FUZZ_CACHE_MAX_GB:-6}" ]; then
        echo "== fuzz-smoke: $target_dir holds ${cache_gb} GB; emptied"
        rm -rf "$target_dir"
    fi
fi
# Features `replay` and `reader`: the five Rust-only targets, not `differential`. `cargo fuzz
# run` gets the same options, or it would rebuild.
build_args=(--fuzz-dir fuzz --target-dir "$target_dir" --no-default-features --features replay,reader)
# The differential target alone: building the reader's and the replayer's dependencies
# (parquet, arrow) a second time, instrumented, took ~15 minutes on 2 cores for nothing.
qpl_build_args=(--fuzz-dir fuzz --target-dir "$target_dir/qpl" --no-default-features --features differential)

cargo fuzz build "${build_args[@]}"
echo "== fuzz-smoke: built the Rust-only targets in $(($(date +%s) - start))s"

# The differential target, with QPL when qpl-sys finds it. Whether it did is asked of the
# built target itself (it prints "QPL linked" or "QPL NOT LINKED" on its first input).
if [ "$caller_qpl_disable" = 1 ]; then
    echo "== fuzz-smoke: differential SKIPPED: QPL_DISABLE=1 (the differential target compares with QPL)"
else
    env -u QPL_DISABLE cargo fuzz build "${qpl_build_args[@]}" differential
    probe=$(find "$target_dir/qpl" -path '*/release/differential' -type f | head -n 1)
    probe_output=$(ASAN_OPTIONS=detect_leaks=0 "$probe" \
        fuzz/seeds/differential/gen_extract_le_packed 2>&1 || true)
    if grep -q "QPL linked" <<<"$probe_output"; then
        targets+=(differential)
        echo "== fuzz-smoke: built differential with QPL in $(($(date +%s) - start))s"
    else
        echo "== fuzz-smoke: differential SKIPPED: QPL is not installed (qpl-sys did not find it), so there is nothing to compare the fallback with"
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs one target; its output goes to $work/<target>.log, its status to $work/<target>.rc.
run_target() {
    local target=$1 rc=0 run=(cargo fuzz run "${build_args[@]}")
    if [ "$target" = differential ]; then
        # Built with QPL, whose hardware probe leaks 88 bytes once: no leak detection.
        run=(env -u QPL_DISABLE ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
            cargo fuzz run "${qpl_build_args[@]}")
    fi
    mkdir -p "$work/$target" "fuzz/artifacts/$target"
    # The seeds are read, never written: new inputs go to the throw-away corpus in $work.
    "${run[@]}" "$target" "$work/$target" "fuzz/seeds/$target" -- \
        -seed="$seed" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        >"$work/$target.log" 2>&1 || rc=$?
    echo "$rc" >"$work/$target.rc"
}

touch "$work/stamp"
failed=()
# Two at a time.
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    pids=()
    for target in "${targets[@]:i:2}"; do
        echo "== fuzz-smoke: $target"
        run_target "$target" &
        pids+=($!)
    done
    wait "${pids[@]}"
done

for target in "${targets[@]}"; do
    if [ "$(cat "$work/$target.rc")" = 0 ]; then
        echo "== fuzz-smoke: $target passed"
        grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$target.log" ||
            tail -n 3 "$work/$target.log"
    else
        echo "== fuzz-smoke: $target FAILED"
        tail -n 60 "$work/$target.log"
        # Only this run's reproducers (crash-*, timeout-*, oom-*, leak-*).
        find "fuzz/artifacts/$target" -type f -newer "$work/stamp" | while read -r artifact; do
            echo "== fuzz-smoke: reproducer $artifact ($(wc -c <"$artifact") bytes):"
            od -An -tx1 -v "$artifact" | head -n 64
        done
        failed+=("$target")
    fi
done

echo "== fuzz-smoke: finished in $(($(date +%s) - start))s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "== fuzz-smoke: FAILED: ${failed[*]} (reproduce: RUSTC_BOOTSTRAP=1 QPL_DISABLE=1 cargo fuzz run <target> <artifact>; differential: RUSTC_BOOTSTRAP=1 ASAN_OPTIONS=detect_leaks=0 cargo fuzz run differential <artifact>)"
    exit 1
fi
echo "fuzz-smoke: ${#targets[@]} passed, 0 failed"
