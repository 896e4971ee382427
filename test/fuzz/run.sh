#!/bin/sh
# Runs the module fuzzer (see test/fuzz/fuzz.mk). Environment: FUZZ_BIN, FUZZ_DIR, FUZZ_FLAGS, FUZZ_SEEDS, and
# the driver and PoCL cache variables.
#   run.sh smoke RUNS SEED 1   make test's smoke: FUZZ_BIN is fuzz_smoke, which runs RUNS mutants of the .spv
#                              files in FUZZ_SEEDS from SEED, the same bytes on every machine; exits 1 on any
#                              finding (the input is saved in build/fuzz/smoke-findings/)
#   run.sh long SECONDS SEED JOBS   libFuzzer, guided by coverage; keeps build/fuzz/corpus between runs; goes on
#                              past findings (inputs saved in build/fuzz/findings/, logs in build/fuzz/long-<n>.log)
#                              and the summary sorts them by where they happened (kernel code or library), from
#                              the fuzzer's KRT_FUZZ_* lines
set -u
mode=$1 amount=$2 seed=$3 jobs=$4
export POCL_CACHE_DIR="$FUZZ_DIR/pocl-cache-$mode"
export KRT_FUZZ_ARTIFACTS="$FUZZ_DIR/findings"
rm -rf "$POCL_CACHE_DIR"
mkdir -p "$POCL_CACHE_DIR" "$FUZZ_DIR/findings"
if [ "$mode" = smoke ]; then
    # No coverage guides the smoke, so a run here and a run in CI meet the same inputs: a pass here is a pass
    # there, and a finding reproduces with the same command anywhere.
    export KRT_FUZZ_ARTIFACTS="$FUZZ_DIR/smoke-findings"
    rm -rf "$KRT_FUZZ_ARTIFACTS"
    mkdir -p "$KRT_FUZZ_ARTIFACTS"
    log="$FUZZ_DIR/smoke.log"
    start=$(date +%s)
    # shellcheck disable=SC2086 # FUZZ_SEEDS is a list of folders
    "$FUZZ_BIN" "$amount" "$seed" $FUZZ_SEEDS >"$log" 2>&1
    rc=$?
    grep -a -E "KRT_FUZZ_|fuzz_smoke|fuzz_module stats" "$log"
    if [ $rc -eq 0 ] && ! grep -q -a "KRT_FUZZ_" "$log"; then
        echo "fuzz smoke: passed ($amount inputs, seed $seed, $(($(date +%s) - start)) s)"
        exit 0
    fi
    echo "fuzz smoke: FAILED (exit $rc); log $log, input in $KRT_FUZZ_ARTIFACTS/"
    exit 1
fi
corpus="$FUZZ_DIR/corpus"
mkdir -p "$corpus"
rm -f "$FUZZ_DIR"/long-*.log
# One fuzzer process at a time, restarted after each finding until the time is used up: each process's whole
# output (libFuzzer's report and the KRT_FUZZ_* line) stays in its own log, long-<n>.log. JOBS > 1 uses
# libFuzzer's fork mode instead, which keeps only the counts.
start=$(date +%s)
n=0
rc=0
while :; do
    left=$((amount - ($(date +%s) - start)))
    [ "$left" -le 0 ] && break
    n=$((n + 1))
    if [ "$jobs" -gt 1 ]; then
        "$FUZZ_BIN" $FUZZ_FLAGS -seed="$seed" -max_total_time="$left" -fork="$jobs" -ignore_crashes=1 \
            -ignore_timeouts=1 -ignore_ooms=1 -artifact_prefix="$FUZZ_DIR/findings/" "$corpus" "$FUZZ_DIR/seeds" \
            >"$FUZZ_DIR/long-$n.log" 2>&1
        rc=$?
        break
    fi
    "$FUZZ_BIN" $FUZZ_FLAGS -seed=$((seed + n - 1)) -max_total_time="$left" -artifact_prefix="$FUZZ_DIR/findings/" \
        "$corpus" "$FUZZ_DIR/seeds" >"$FUZZ_DIR/long-$n.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] && break
    # A saved finding that is also in the corpus (libFuzzer names corpus files by their SHA-1) leaves it: each
    # new process replays the whole corpus first, and would meet the same kernel hang or fault again at once.
    for f in "$FUZZ_DIR"/findings/fatal-*.spv "$FUZZ_DIR"/findings/crash-*; do
        [ -f "$f" ] || continue
        h=$(sha1sum <"$f" | cut -c1-40)
        [ -f "$corpus/$h" ] && rm -f "$corpus/$h"
    done
done
end=$(date +%s)
all="$FUZZ_DIR/long-all.log"
cat "$FUZZ_DIR"/long-[0-9]*.log >"$all"
execs=$(grep -a -o "stat::number_of_executed_units: *[0-9]*" "$all" | awk '{s += $2} END {print s + 0}')
secs=$((end - start))
{
    echo "fuzz: $secs s, seed $seed, $jobs job(s), $n process(es), last exit $rc"
    echo "inputs executed: ${execs:-0}"
    [ "$secs" -gt 0 ] && echo "inputs per second: $(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN {printf "%.2f", e / s}')"
    echo "corpus: $(ls "$corpus" | wc -l) inputs"
    # One finding per fuzzer process: its first KRT_FUZZ_* line (several threads may fault at once).
    firsts=$(for f in "$FUZZ_DIR"/long-[0-9]*.log; do grep -a -m 1 -E "KRT_FUZZ_(FAULT|HANG|BAD_RESULT)" "$f"; done)
    count() { printf '%s\n' "$firsts" | grep -a -c -E "$1"; }
    echo "findings in kernel code (faults): $(count "KRT_FUZZ_FAULT.*where=kernel-code")"
    echo "findings in kernel code (hangs):  $(count "KRT_FUZZ_HANG")"
    echo "findings in libraries (faults):   $(count "KRT_FUZZ_FAULT.*where=library")"
    echo "bad results (no message, no module): $(count "KRT_FUZZ_BAD_RESULT")"
    echo "libFuzzer timeouts (an input over -timeout): $(grep -a -c "ERROR: libFuzzer: timeout" "$all")"
    echo "other deaths (exits, out-of-memory): $(grep -a -c -E "ERROR: libFuzzer: (fuzz target exited|out-of-memory)" "$all")"
    echo "saved inputs: $(ls "$FUZZ_DIR/findings" | grep -v -c "^slow-unit") in $FUZZ_DIR/findings/ (and $(ls "$FUZZ_DIR/findings" | grep -c "^slow-unit") slow-unit-* files: inputs over 10 s, not findings)"
    printf '%s\n' "$firsts" | sed 's|/pocl-cache-long/[^ ]*/\([^/]*\.so\)|/pocl-cache-long/.../\1|' | sort | uniq -c | \
        sort -rn | head -20
} | tee "$FUZZ_DIR/summary.txt"
