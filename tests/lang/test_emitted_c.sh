#!/usr/bin/env bash
# The emitted C of every run program in tests/lang, held to what docs/cli.md and DESIGN.md promise:
#   - it compiles without a warning as C17 (-Wall -Wextra) and as C++17 (g++ -x c++);
#   - compiled under ASan and UBSan it exits as its `// expect: run exit N` line says, with no
#     sanitizer report and no leak (every buffer and closure environment released), unless its
#     header says `// leak-check: off (REASON)`;
# and `cairn test` on tests/lang/test_fns.cairn reports each test fn as docs/cli.md says.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
WARN="-Wall -Wextra -Wno-unused-parameter -Wno-unused-function -Werror"

# One program: prints PASS or FAIL lines, one per check.
check_program() {
    local f=$1 n out want
    n=$(basename "$f" .cairn)
    out="$T/$n"
    mkdir -p "$out"
    want=$(sed -n 's|^// expect: run exit \([0-9]*\).*|\1|p' "$f")
    if ! "$CAIRN" build --out "$out" "$f" >/dev/null 2>"$out/build.err"; then
        echo "FAIL $f: cairn build failed: $(head -2 "$out/build.err" | tr '\n' ' ')"
        return
    fi
    if cc -std=c17 $WARN -Iruntime -fsyntax-only "$out/$n.c" 2>"$out/cc.err"; then echo "PASS"
    else echo "FAIL $f: C17 warns: $(grep -m1 -E 'warning|error' "$out/cc.err")"; fi
    if g++ -std=c++17 -x c++ $WARN -Iruntime -fsyntax-only "$out/$n.c" 2>"$out/cxx.err"; then echo "PASS"
    else echo "FAIL $f: C++17 warns: $(grep -m1 -E 'warning|error' "$out/cxx.err")"; fi
    if ! cc -std=c17 -O0 -ffp-contract=off -fno-fast-math -fsanitize=address,undefined \
            -fno-sanitize-recover=all -Iruntime -o "$out/asan" "$out/$n.c" -lm 2>"$out/asan.build"; then
        echo "FAIL $f: does not build under ASan"
        return
    fi
    local leaks=1
    grep -q '^// leak-check: off' "$f" && leaks=0
    local rc
    rc=$( (ASAN_OPTIONS=detect_leaks=$leaks "$out/asan" >/dev/null 2>"$out/asan.err"; echo $?) 2>/dev/null)
    if [ "$rc" = "$want" ] && ! grep -qE 'Sanitizer|runtime error' "$out/asan.err"; then echo "PASS"
    else echo "FAIL $f: under ASan/UBSan exit $rc (want $want): $(grep -m1 -E 'Sanitizer|runtime error' "$out/asan.err")"; fi
}
export -f check_program
export T CAIRN WARN

results=$(grep -l '^// expect: run' tests/lang/*.cairn | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} \
    bash -c 'check_program "$1"' _ {})

# cairn test: one line a test, the count, exit 1 when one failed.
"$CAIRN" test tests/lang/test_fns.cairn >"$T/test.out" 2>"$T/test.err"
rc=$?
t_ok() { if eval "$2"; then results="$results"$'\n'PASS; else results="$results"$'\n'"FAIL cairn test: $1"; fi; }
t_ok "exits 1 when a test fails" '[ $rc = 1 ]'
t_ok "sum_of_three passes" 'grep -q "::sum_of_three ... ok" "$T/test.out"'
t_ok "an assert fails its test" 'grep -q "::fails_on_assert ... FAILED" "$T/test.out"'
t_ok "a guard fails its test" 'grep -q "::fails_on_guard ... FAILED" "$T/test.out"'
t_ok "the count" 'grep -q "^1 passed, 2 failed" "$T/test.out"'
t_ok "the failed assertion is named" 'grep -q "assertion failed: v + 1 == 7" "$T/test.err"'

echo "$results" | grep '^FAIL'
pass=$(echo "$results" | grep -c '^PASS')
fail=$(echo "$results" | grep -c '^FAIL')
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
