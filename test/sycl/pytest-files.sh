#!/bin/bash
# pytest-files.sh: dpnp's tests of dpnp.tensor, each file in a pytest process of its own, JOBS files at a time, so
# that a file that crashes, hangs or loses the device costs that file only (test/sycl/sycl-check.sh calls it).
#   bash pytest-files.sh TESTDIR OUTDIR JOBS TIMEOUT FILE...     (FILE "all": every test_*.py under TESTDIR)
# Prints one line per file (its pytest counts, or "timed out after TIMEOUT s" / "exit N, no counts") and the
# totals ("pytest-files: N passed, N failed, N skipped, N errors; F of G files clean"); the exit status is 0 when
# every file ran to the end with no failure and no error. Each file's output is in OUTDIR/<file>.log.
set -u
T=$1 OUTDIR=$2 JOBS=$3 LIMIT=$4
shift 4
PY=${PYTHON:-python3}
mkdir -p "$OUTDIR"
files=()
for f in "$@"; do
    if [ "$f" = all ]; then
        while IFS= read -r p; do files+=("${p#"$T"/}"); done < <(find "$T" -name 'test_*.py' | sort)
    else
        files+=("$f")
    fi
done
one() { # one FILE: runs it, its output to OUTDIR/<FILE with / as _>.log, its exit status to .rc
    local log="$OUTDIR/${1//\//_}.log"
    # --confcutdir: only the tests' own conftest (dpnp/tests/conftest.py imports all of dpnp, which needs oneMKL).
    # No plugins of the Python's own site (the GPU image's pytest-timeout does not load under the pytest packed
    # with the wheels): only the one named.
    timeout "$LIMIT" env PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$PY" -m pytest -q -rfE -p no:cacheprovider \
        -p dpnp_tests_plugin --confcutdir="$T" -o addopts= "$T/$1" >"$log" 2>&1
    echo $? >"$log.rc"
}
running=0
for f in "${files[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
    one "$f" &
    running=$((running + 1))
done
wait
p=0 fl=0 s=0 e=0 clean=0
for f in "${files[@]}"; do
    log="$OUTDIR/${f//\//_}.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo "?")
    last=$(grep -a -E "^(=+ )?[0-9]+ (passed|failed|skipped|error|deselected)" "$log" | tail -n 1 | sed 's/=//g; s/^ *//; s/ *$//')
    count() { echo "$last" | grep -o -E "[0-9]+ $1" | grep -o -E "^[0-9]+" || echo 0; }
    if [ "$rc" = 124 ]; then
        line="timed out after $LIMIT s${last:+ ($last)}"
    elif [ -z "$last" ]; then
        line="exit $rc, no counts: $(tail -n 1 "$log" | cut -c 1-80)"
    else
        line=$last
    fi
    p=$((p + $(count passed))) fl=$((fl + $(count failed))) s=$((s + $(count skipped))) e=$((e + $(count error)))
    [ "$rc" = 0 ] || [ "$rc" = 5 ] && clean=$((clean + 1)) # 5: pytest collected nothing (every test deselected)
    printf '  %-52s %s\n' "$f" "$line"
    grep -a -E "^(FAILED|ERROR) " "$log" | head -n 3 | cut -c 1-150 | sed 's/^/      /'
done
echo "pytest-files: $p passed, $fl failed, $s skipped, $e errors; $clean of ${#files[@]} files clean"
[ "$clean" = "${#files[@]}" ]
