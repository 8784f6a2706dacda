#!/usr/bin/env bash
# Fuzz smoke run: builds the cargo-fuzz targets in fuzz/ and runs each for FUZZ_SECONDS
# (default 20) from its committed seeds (fuzz/seeds/<target>/). Exits non-zero on a crash,
# a timeout or an out-of-memory, after printing the reproducer's hex (the file itself is left
# in fuzz/artifacts/<target>/). See fuzz/README.md.
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
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_SMOKE_INSTALL (default 1),
# FUZZ_TARGET_DIR (cargo target dir for the fuzz build; default fuzz/target, and under CI
# ~/.cache/qpl-rs/fuzz-target, so that CI runs from fresh clones on one machine reuse the
# instrumented dependencies instead of rebuilding them each time).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-20}"
targets=(parquet_rle job replay_line)
start=$(date +%s)

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
# even where it is installed, so the targets exercise the Rust code only (QPL's hardware
# probe leaks 88 bytes once, which LeakSanitizer would report as a crash).
export RUSTC_BOOTSTRAP=1 QPL_DISABLE=1
build_args=(--fuzz-dir fuzz)
if [ -z "${FUZZ_TARGET_DIR:-}" ] && [ -n "${CI:-}" ]; then
    FUZZ_TARGET_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/qpl-rs/fuzz-target"
fi
if [ -n "${FUZZ_TARGET_DIR:-}" ]; then
    build_args+=(--target-dir "$FUZZ_TARGET_DIR")
fi

cargo fuzz build "${build_args[@]}"
echo "== fuzz-smoke: built in $(($(date +%s) - start))s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs one target; its output goes to $work/<target>.log, its status to $work/<target>.rc.
run_target() {
    local target=$1 rc=0
    mkdir -p "$work/$target" "fuzz/artifacts/$target"
    # The seeds are read, never written: new inputs go to the throw-away corpus in $work.
    cargo fuzz run "${build_args[@]}" "$target" "$work/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
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
    echo "== fuzz-smoke: FAILED: ${failed[*]} (reproduce: RUSTC_BOOTSTRAP=1 QPL_DISABLE=1 cargo fuzz run <target> <artifact>)"
    exit 1
fi
echo "fuzz-smoke: ${#targets[@]} passed, 0 failed"
