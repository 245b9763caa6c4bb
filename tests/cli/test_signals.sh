#!/usr/bin/env bash
# Signals (docs/cli.md, "cairn run"): SIGINT or SIGTERM sent to `cairn run` alone is passed on to the
# program, which flushes what it printed and dies of the signal; cairn waits for it and exits 130 or
# 143, leaving no orphan. The same signal sent to the program itself keeps its output too. A SIGHUP
# cairn inherited ignored stays ignored. `cairn run` names the signal a program died of. A stack
# overflow in C code that the stack check does not cover (runtime/cairn_proc.h) says so on SIGSEGV,
# on the main thread and on a lane pool worker.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
RUNTIME=$PWD/runtime
T=$(mktemp -d)
cleanup() {   # programs a broken cairn would leave running
    [ -f "$T/progs" ] && while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$T/progs"
    rm -rf "$T"
}
trap cleanup EXIT
pass=0
fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL signals: $1"; fi
}

# Prints 300 numbered lines (less than stdout's buffer holds, so they are all still in it), then
# spins. `while true`: C lets a compiler drop a loop with no side effect and a non-constant condition.
cat >"$T/spin.cairn" <<'EOF'
fn main() -> i32 {
    for i in 0..300 { println("line", i); }
    let mut k:u64 = 1;
    while true { k = k * 1; }
    return 0;
}
EOF
(cd "$T" && "$CAIRN" build spin.cairn >/dev/null 2>&1)

program_of() {   # the PID of cairn $1's child named spin (the program, not the C compiler), waiting up to 20 s
    local n=0 c=""
    while [ -z "$c" ] && [ $n -lt 400 ]; do c=$(pgrep -P "$1" -x spin | head -1); [ -n "$c" ] || sleep 0.05; n=$((n + 1)); done
    [ -n "$c" ] && echo "$c" >>"$T/progs"
    echo "$c"
}
ended_within() {   # ended_within PID SECONDS: waits for PID (a child of this shell); its status in $T/rc
    local n=0
    echo none >"$T/rc"
    while kill -0 "$1" 2>/dev/null && [ $n -lt $(($2 * 20)) ]; do sleep 0.05; n=$((n + 1)); done
    kill -0 "$1" 2>/dev/null && return 1
    wait "$1"
    echo $? >"$T/rc"
}

# interrupted SIG STATUS: `cairn run` of the spinning program, SIG to cairn alone.
interrupted() {
    local sig=$1 want=$2
    (cd "$T" && exec "$CAIRN" run spin.cairn >"$T/out" 2>"$T/err") &
    local cairn=$!
    local prog
    prog=$(program_of $cairn)
    sleep 0.5
    kill -"$sig" $cairn
    ended_within $cairn 5
    ok "SIG$sig to cairn run alone: cairn ends within 5 s" $?
    ok "... with exit status $want" "$([ "$(cat "$T/rc")" = "$want" ]; echo $?)"
    ok "... and the program is gone, no orphan" "$([ -n "$prog" ] && ! kill -0 "$prog" 2>/dev/null; echo $?)"
    ok "... and all it printed is in the file" "$([ "$(wc -l <"$T/out")" = 300 ] && [ "$(tail -1 "$T/out")" = "line 299" ]; echo $?)"
    ok "... and cairn run names the signal" "$(grep -q "killed by signal $((want - 128)) (SIG$sig)" "$T/err"; echo $?)"
    [ -n "$prog" ] && kill -KILL "$prog" 2>/dev/null
}
interrupted INT 130
interrupted TERM 143

# The program alone, without cairn: SIGINT keeps its output too.
"$T/build/spin/spin" >"$T/out2" 2>/dev/null &
prog=$!
echo $prog >>"$T/progs"
sleep 0.5
kill -INT $prog
ended_within $prog 5
ok "SIGINT to the program itself: it dies of it (130)" "$([ "$(cat "$T/rc")" = 130 ]; echo $?)"
ok "... and what it printed is in the file" "$([ "$(wc -l <"$T/out2")" = 300 ]; echo $?)"

# nohup: a SIGHUP ignored when cairn starts stays ignored, by cairn and by the program.
(trap '' HUP; cd "$T" && exec "$CAIRN" run spin.cairn >/dev/null 2>&1) &
cairn=$!
prog=$(program_of $cairn)
sleep 0.5
kill -HUP $cairn
sleep 0.5
ok "an ignored SIGHUP stays ignored: cairn and the program still run" "$(kill -0 $cairn 2>/dev/null && [ -n "$prog" ] &&
    kill -0 "$prog" 2>/dev/null; echo $?)"
kill -TERM $cairn
ended_within $cairn 5 >/dev/null

# A program that dies of a signal is named by cairn run: a failed guard aborts.
cat >"$T/guard.cairn" <<'EOF'
fn main() -> i32 {
    let big:u8 = 200;
    println(big + big);
    return 0;
}
EOF
(cd "$T" && "$CAIRN" run guard.cairn >/dev/null 2>"$T/err"; echo $? >"$T/rc")
ok "a failed guard: 134, and cairn run says killed by signal 6 (SIGABRT)" "$([ "$(cat "$T/rc")" = 134 ] &&
    grep -q 'guard failed: integer overflow' "$T/err" && grep -q 'killed by signal 6 (SIGABRT)' "$T/err"; echo $?)"

# The second line of defence: C code with no stack check, and frames larger than the check's margin.
cat >"$T/deep.c" <<'EOF'
#include "cairn_par.h"
static int deep(int n)
{
    volatile char frame[4096];
    frame[0] = (char)n;
    return deep(n + 1) + frame[0];
}
static void lane(void *c, size_t lo, size_t hi)
{
    (void)c;
    if (lo == 0 && hi > 0)
        return;                 /* block 0 runs on the calling thread: let a worker overflow */
    deep((int)lo);
}
int main(int argc, char **argv)
{
    (void)argv;
    cn_program_begin();
    printf("started\n");
    fflush(stdout);             /* a SIGSEGV handler cannot flush: nothing may be left to */
    if (argc > 1)
        cn_pool_for(64, lane, NULL);
    return deep(0);
}
EOF
if cc -std=c17 -O1 -I"$RUNTIME" -o "$T/deep" "$T/deep.c" -lm -pthread 2>"$T/cc.err"; then
    "$T/deep" >"$T/out" 2>"$T/err"
    rc=$?   # (bash reports the SIGSEGV on stderr: expected)
    ok "a C stack overflow on the main thread: SIGSEGV (139), reported as a stack overflow" \
        "$([ $rc = 139 ] && grep -q 'cairn: stack overflow' "$T/err" && [ "$(cat "$T/out")" = started ]; echo $?)"
    # Many workers overflowing at once: the first fault's report must be out before a second fault
    # can kill the process (with SA_RESETHAND about 1 run in 20 said nothing). 30 runs of 16.
    bad=0
    for i in $(seq 30); do
        CAIRN_THREADS=16 "$T/deep" lanes >/dev/null 2>"$T/err"
        rc=$?
        [ $rc = 139 ] && grep -q 'cairn: stack overflow' "$T/err" || bad=$((bad + 1))
    done 2>/dev/null
    ok "the same on lane pool workers, 30 runs of 16 (failed: $bad)" "$([ $bad = 0 ]; echo $?)"
else
    ok "the C stack overflow program builds: $(head -3 "$T/cc.err")" 1
fi

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
