#!/usr/bin/env bash
# devices.md, "One wait, or none": under cq_NAME a failed guard is observed later than the call; it
# poisons the device context, and "the next CAIRN entry the process calls aborts" (issue 11: on the
# emulated machine cq_h then returned normally, its work skipped, and the process exited 0).
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL entry after trap: $1"; fi; }
cat >"$T/tl.cairn" <<'SRC'
fn g(n:usize, x:rw<u8>[n]@device) { parallel i in n { x[i] = x[i] * 16; } }
fn h(n:usize, x:rw<u8>[n]@device) { parallel i in n { x[i] = x[i] + 1; } }
SRC
"$CAIRN" build --header --emulate --device-target sm_90a --out "$T/lib" "$T/tl.cairn" >/dev/null 2>"$T/err"
ok "library builds" "$?"
cat >"$T/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "tl.h"
int main(int argc, char **argv)
{
    unsigned char x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (unsigned char)(argc > 1 ? 1 : i % 20);   /* "ok": no lane overflows */
    cq_g(NULL, 40, x);
    fprintf(stderr, "cq_g returned\n");
    if (argc > 2) cf_h(40, x); else cq_h(NULL, 40, x);
    fprintf(stderr, "h returned\n");
    return 0;
}
C
cc -std=c17 -I"$T/lib" -o "$T/main" "$T/main.c" "$T/lib/libtl.a" -lm -pthread 2>"$T/cc.err"
ok "a C caller links" "$?"
"$T/main" >"$T/out" 2>"$T/err"; rc=$?
ok "cq_g traps and returns (observed later), then cq_h aborts: exit 134" "$([ $rc = 134 ] && grep -q '^cq_g returned' "$T/err" &&
    ! grep -q 'h returned' "$T/err"; echo $?)"
ok "... naming the guard and the trapped region, reported by this entry" "$(grep -q 'tl.cairn:1:62: guard failed: integer overflow' "$T/err" &&
    grep -q 'a lane of the parallel region at .*tl.cairn:1:37 in fn g trapped in work an earlier call queued.*this CAIRN entry reports it' "$T/err"; echo $?)"
"$T/main" x cf >"$T/out" 2>"$T/err"; rc=$?
ok "near miss: with no trap, cq_g then cf_h run and return" "$([ $rc = 0 ] && grep -q 'h returned' "$T/err"; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
