#!/bin/sh
# Runs the test suite: Criterion binaries (before "--") plain and under the Level Zero validation layer,
# then programs (after "--") judged by their exit code. Prints one closing line "N passed, N failed".
# Environment: VALIDATION_ENV (assignments for the validation run), CRITERION_ARGS; SKIP_VALIDATION=1 runs the
# Criterion binaries plain only (make sanitize).
passed=0; failed=0; failures=""
tally() { # $1 = label, $2 = log file, $3 = exit code
    line=$(grep -a "Synthesis:" "$2" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
        f=$(echo "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
        c=$(echo "$line" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
        passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0} + ${c:-0}))
        if [ "$3" != 0 ] && [ "${f:-0}" = 0 ] && [ "${c:-0}" = 0 ]; then failed=$((failed + 1)); fi
    elif [ "$3" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    [ "$3" = 0 ] || failures="$failures
  $1"
}
log=$(mktemp); trap 'rm -f "$log"' EXIT
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    t=$1; shift
    echo "== $t"
    "$t" $CRITERION_ARGS >"$log" 2>&1; rc=$?; cat "$log"; tally "$t" "$log" $rc
    [ "${SKIP_VALIDATION:-0}" = 1 ] && continue
    echo "== $t (validation layer)"
    env $VALIDATION_ENV "$t" $CRITERION_ARGS >"$log" 2>&1; rc=$?; cat "$log"; tally "$t (validation layer)" "$log" $rc
done
[ "$1" = "--" ] && shift
for t in "$@"; do
    echo "== $t"
    sh -c "$t" >"$log" 2>&1; rc=$?; cat "$log"; tally "$t" "$log" $rc
done
[ -n "$failures" ] && printf 'failed:%s\n' "$failures"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
