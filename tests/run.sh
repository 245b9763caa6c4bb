#!/usr/bin/env bash
# The test runner: every test of the suite, one line each for failures and skips, and a last line
#   N passed, N failed, N skipped
# Exits 1 when anything failed.
#
# What it runs:
#   1. C unit tests, tests/unit/test_*.c, linked with the compiler's library, and test scripts
#      tests/*/test_*.sh (the command line's contract); each prints its own
#      `N passed, N failed, N skipped` line, which is added in.
#   2. The corpus: every .cairn file under tests/ with its expectation in header comments
#        // expect: accept                      cairn check exits 0
#        // expect: parse                       cairn expand exits 0 (syntax only: for forms whose
#                                               rules arrive later)
#        // expect: refuse E-CODE [at L:C]      cairn check exits 1 and reports E-CODE (at L:C);
#                                               several such lines: each must be reported
#        // expect: run exit N                  cairn run exits N
#        // stdout: TEXT                        ... and prints these lines, exactly, in order
#        // stderr: TEXT                        ... and its standard error contains TEXT
#        // skip: REASON                        counted as skipped, with the reason
#      tests/spec/ holds the specification's examples as they are; tests/spec/SKIP names those whose
#      rules belong to a later issue (skipped, with the reason).
#   3. Round trip: `cairn expand` of every corpus file parses back to the same program.
#
# CAIRNS="bin/cairn bin/cairn-asan" runs the corpus once with each compiler (make test does: the
# second is the compiler under ASan and UBSan). CAIRN=X alone runs it with X.
#
# It reports as it goes: a line for each unit test when it ends, and a line for each folder of the
# corpus (with each compiler), with its counts and seconds; failures are printed under their group's
# line. Unit tests run JOBS at a time (default: the cores), as the corpus does. The end says how long
# the whole run took, then the totals.
set -u
cd "$(dirname "$0")/.."
CAIRNS=${CAIRNS:-${CAIRN:-bin/cairn}}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
OUT=tests/out
rm -rf "$OUT"
mkdir -p "$OUT/results"

for c in $CAIRNS; do
    if [ ! -x "$c" ]; then
        echo "run.sh: $c is not built (run make first)" >&2
        exit 2
    fi
done

# ---- 1. unit tests -----------------------------------------------------------------------------
# Each job writes its result file ($OUT/results/unit-NAME: one UNIT or FAIL line, then FAIL lines)
# and prints its group line as soon as it ends.
LIB=$(ls build/obj-cc/libcairn.a 2>/dev/null || ls build/obj-*/libcairn.a 2>/dev/null | head -1)
export LIB

# "NAME: 3 passed, 0 failed, 0 skipped (2 s)" and the FAIL lines below it, from a result file.
report_group() {   # report_group LABEL RESULT_FILE SECONDS
    local line=$(head -1 "$2")
    case "$line" in
    UNIT*) echo "$1: $(echo "$line" | sed -n 's/.* \([0-9]* passed, [0-9]* failed, [0-9]* skipped\).*/\1/p') ($3 s)"
           tail -n +2 "$2" ;;
    *) echo "$1: FAILED ($3 s)"; echo "    $line" ;;
    esac
}

# The result file of a unit test from its log and exit status: its summary line, or a FAIL line when
# it printed none, then its FAIL lines.
record_unit() {   # record_unit NAME LOG RC RESULT
    local last
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -1)
    if [ -z "$last" ]; then
        echo "FAIL $1: exit $3 and no summary line (see $2)" >"$4"
        return
    fi
    echo "UNIT $1 $last rc=$3" >"$4"
    grep -E '^(FAIL|not ok)' "$2" | head -20 | sed "s/^/    /" >>"$4"
    [ "$3" = 0 ] || echo "    exit $3 (see $2)" >>"$4"
}

unit_script() {   # unit_script tests/DIR/test_NAME.sh
    local t=$1 name log start
    name=$(basename "$t" .sh)
    log="$OUT/results/unit-$name"
    start=$(date +%s)
    CAIRN=$(echo $CAIRNS | cut -d' ' -f1) bash "$t" >"$OUT/$name.log" 2>&1
    record_unit "$name" "$OUT/$name.log" $? "$log"
    report_group "unit $name" "$log" $(( $(date +%s) - start ))
}

unit_c() {   # unit_c tests/unit/test_NAME.c: built against the compiler's library, then run
    local t=$1 name exe log start
    name=$(basename "$t" .c)
    exe="$OUT/$name"
    log="$OUT/results/unit-$name"
    start=$(date +%s)
    if ! cc -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O2 -g -Isrc -Iruntime \
            -o "$exe" "$t" "$LIB" -lmpfr -lgmp -lm -lpthread 2>"$exe.build.log"; then
        echo "FAIL unit $name: does not build (see $exe.build.log)" >"$log"
    else
        local args=()
        [ "$name" = test_roundtrip ] && mapfile -t args < <(find tests -name '*.cairn' -not -path "$OUT/*" | sort)
        "$exe" "${args[@]}" >"$exe.log" 2>&1
        record_unit "$name" "$exe.log" $? "$log"
    fi
    report_group "unit $name" "$log" $(( $(date +%s) - start ))
}

unit_one() { case "$1" in *.sh) unit_script "$1" ;; *.c) unit_c "$1" ;; esac; }
export -f report_group record_unit unit_script unit_c unit_one
export CAIRNS

# ---- 2. corpus ---------------------------------------------------------------------------------
one_corpus_test() {
    local f=$1 id out log
    id=$TAG$(echo "$f" | tr '/.' '__')
    out="$OUT/$id"
    log="$OUT/results/$id"
    local head skip
    head=$(awk '!/^\/\//{exit} {print}' "$f")
    skip=$(echo "$head" | sed -n 's|^// skip: *||p' | head -1)
    if [ -z "$skip" ] && [ "$(dirname "$f")" = tests/spec ]; then
        local prefix
        prefix=$(basename "$f" | cut -c1-3)
        skip=$(sed -n "s/^$prefix //p" tests/spec/SKIP | head -1)
    fi
    if [ -n "$skip" ]; then
        # Skipped, but never accepted: a program whose rules are not applied yet must be refused.
        if [ "$(dirname "$f")" = tests/spec ] && "$CAIRN" check --device-target sm_90a "$f" >/dev/null 2>&1; then
            echo "FAIL $f: accepted, but its rules belong to a later issue ($skip)" >"$log"
        else
            echo "SKIP $f: $skip" >"$log"
        fi
        return
    fi
    local expect args
    expect=$(echo "$head" | sed -n 's|^// expect: *||p')
    # `// args: ...` are passed to check and run (a device test: --emulate --device-target sm_90a);
    # a spec example that "needs a device target" is judged against the H200's
    args=$(echo "$head" | sed -n 's|^// args: *||p' | head -1)
    if [ -z "$args" ] && echo "$head" | grep -q 'needs a device target'; then args="--device-target sm_90a"; fi
    case "$expect" in
    accept*)
        if "$CAIRN" check $args "$f" >"$out.stdout" 2>"$out.stderr"; then
            echo "PASS $f" >"$log"
        else
            echo "FAIL $f: expected accept, got exit $? -- $(head -3 "$out.stderr" | tr '\n' ' ')" >"$log"
        fi ;;
    parse*)
        if "$CAIRN" expand "$f" >"$out.stdout" 2>"$out.stderr"; then
            echo "PASS $f" >"$log"
        else
            echo "FAIL $f: expected to parse, got exit $? -- $(head -3 "$out.stderr" | tr '\n' ' ')" >"$log"
        fi ;;
    refuse*)
        "$CAIRN" check --json $args "$f" >"$out.stdout" 2>"$out.stderr"
        local rc=$? missing=""
        while read -r _ code _ at; do
            [ -n "$code" ] || continue
            local pat="\"code\": \"$code\""
            if [ -n "$at" ]; then
                pat="$pat, \"file\": \"[^\"]*\", \"line\": ${at%%:*}, \"column\": ${at##*:},"
            fi
            grep -qE "$pat" "$out.stderr" || missing="$missing $code${at:+ at $at}"
        done < <(echo "$expect" | grep '^refuse')
        if [ $rc -ne 1 ]; then
            echo "FAIL $f: expected refusal (exit 1), got exit $rc -- $(head -c 300 "$out.stderr" | tr '\n' ' ')" >"$log"
        elif [ -n "$missing" ]; then
            echo "FAIL $f: not reported:$missing -- got: $(grep -o '"code": "[^"]*", "file": "[^"]*", "line": [0-9]*, "column": [0-9]*' "$out.stderr" | sed 's/"file": "[^"]*", //' | head -5 | tr '\n' ' ')" >"$log"
        else
            echo "PASS $f" >"$log"
        fi ;;
    run*)
        local want rc
        want=$(echo "$expect" | sed -n 's/^run exit \([0-9]*\).*/\1/p')
        "$CAIRN" run $args --out "$out.build" "$f" >"$out.stdout" 2>"$out.stderr"
        rc=$?
        local why=""
        [ "$rc" = "$want" ] || why="exit $rc, expected $want -- $(grep -v '^cairn: built' "$out.stderr" | head -3 | tr '\n' ' ')"
        if [ -z "$why" ] && echo "$head" | grep -q '^// stdout:'; then
            echo "$head" | sed -n 's|^// stdout: \{0,1\}||p' >"$out.want"
            cmp -s "$out.want" "$out.stdout" || why="stdout differs: $(diff "$out.want" "$out.stdout" | head -4 | tr '\n' ' ')"
        fi
        if [ -z "$why" ]; then
            while IFS= read -r s; do
                grep -qF -- "$s" "$out.stderr" || why="stderr lacks: $s"
            done < <(echo "$head" | sed -n 's|^// stderr: *||p')
        fi
        if [ -z "$why" ]; then echo "PASS $f" >"$log"; else echo "FAIL $f: $why" >"$log"; fi ;;
    *)
        echo "FAIL $f: no // expect: line in its header" >"$log" ;;
    esac
}
export -f one_corpus_test
export OUT

T0=$(date +%s)
echo "tests/run.sh: unit tests and the corpus ($(echo $CAIRNS | wc -w) compiler(s)), $JOBS at a time"
# The longest unit tests first, so the pool stays full at the end.
{ ls tests/unit/test_sanitized_runtime.sh tests/unit/test_parse_errors.c 2>/dev/null
  ls tests/*/test_*.sh tests/unit/test_*.c 2>/dev/null | grep -v -e test_sanitized_runtime.sh -e test_parse_errors.c; } |
    xargs -P "$JOBS" -I{} bash -c 'unit_one "$1"' _ {}

# The corpus, a folder at a time, so each folder's line comes when it is done.
for CAIRN in $CAIRNS; do
    TAG=$(basename "$CAIRN")-
    export CAIRN TAG
    for dir in $(find tests -name '*.cairn' -not -path "$OUT/*" -printf '%h\n' | sort -u); do
        start=$(date +%s)
        find "$dir" -maxdepth 1 -name '*.cairn' | sort |
            xargs -P "$JOBS" -I{} bash -c 'one_corpus_test "$1"' _ {}
        p=0; fl=0; sk=0; bad=()
        for f in $(find "$dir" -maxdepth 1 -name '*.cairn' | sort); do
            r="$OUT/results/$TAG$(echo "$f" | tr '/.' '__')"
            case "$(head -1 "$r" 2>/dev/null)" in
            PASS*) p=$((p + 1)) ;;
            SKIP*) sk=$((sk + 1)) ;;
            *) fl=$((fl + 1)); bad+=("$r") ;;
            esac
        done
        echo "corpus $dir ($CAIRN): $p passed, $fl failed, $sk skipped ($(( $(date +%s) - start )) s)"
        for r in "${bad[@]}"; do sed 's/^/    /' "$r" 2>/dev/null || echo "    $r: no result"; done
    done
done

# ---- summary -----------------------------------------------------------------------------------
passed=0; failed=0; skipped=0
for r in "$OUT"/results/*; do
    [ -e "$r" ] || continue
    line=$(head -1 "$r")
    case "$line" in
    PASS*) passed=$((passed + 1)) ;;
    SKIP*) skipped=$((skipped + 1)); case "$r" in */cairn-tests_*) echo "$line" ;; esac ;;
    UNIT*)
        p=$(echo "$line" | sed -n 's/.* \([0-9]*\) passed.*/\1/p')
        fl=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
        s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
        rc=$(echo "$line" | sed -n 's/.* rc=\([0-9]*\).*/\1/p')
        passed=$((passed + p)); failed=$((failed + fl)); skipped=$((skipped + ${s:-0}))
        [ "$fl" = 0 ] && [ "$rc" != 0 ] && failed=$((failed + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
done
secs=$(( $(date +%s) - T0 ))
echo "took $((secs / 60)) min $((secs % 60)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
