#!/usr/bin/env bash
# The cooperative rules matter on the emulated machine too (issue 13; the host's version is
# tests/coop/test_coop_sanitizers.sh): a device region's blocks run emulated as teams of real threads
# (runtime/cairn_coopdev.h on runtime/cairn_coop.h), so
#   1. the emulated build of every tests/dev/run_coop_*.cairn and run_pipeline.cairn (block sums, block max with an unzeroed
#      array, the tiled transpose, the one-pass total with its finish and an empty grid, every warp
#      operation) runs clean under the thread sanitizer and prints its expected lines;
#   2. with the barriers taken out of the emulated block sums' C, the sanitizer reports the race the
#      phase rule refused, between two threads of the emulated region's body (cn_coopK_ebody);
#   3. a thread's index guard in an emulated region stops the read past x's end (the emulated trap,
#      no sanitizer report), and with the guards taken out the address sanitizer reports the overflow
#      of x's device allocation (host memory of exactly its bytes on the emulated machine).
# The emitted file is the one nvcc would compile; cc builds it with -DCAIRN_EMULATE, as `cairn build
# --emulate` does, plus the sanitizer. gcc's sanitizers.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL coop_emulate_sanitizers: $*"; fail=$((fail + 1)); }
CC="${CC:-cc} -std=c17 -O1 -g -Iruntime -DCAIRN_EMULATE"
EMU="--emulate --device-target sm_90a"

# 1. clean under TSan, with the expected lines
for f in tests/dev/run_coop_*.cairn tests/dev/run_pipeline.cairn; do
    n=$(basename "$f" .cairn)
    "$CAIRN" build $EMU "$f" --out "$T/$n" >"$T/$n.b.log" 2>&1 || { bad "$n does not build emulated: $(head -3 "$T/$n.b.log")"; continue; }
    c="$T/$n/$n.c"
    grep -q '^CN_COOP_TEAMS' "$c" && ok || bad "$n: no emulated region in its C"
    $CC -fsanitize=thread -o "$T/${n}_tsan" "$c" -lm -lpthread 2>"$T/$n.cc.log" || { bad "$n: TSan build: $(head -3 "$T/$n.cc.log")"; continue; }
    (cd "$T" && timeout 300 "./${n}_tsan" >"$T/$n.run.log" 2>&1); rc=$?
    { [ $rc -eq 0 ] && ! grep -q "ThreadSanitizer" "$T/$n.run.log"; } && ok ||
        bad "$n under TSan: exit $rc, $(grep -m1 ThreadSanitizer "$T/$n.run.log")"
    sed -n '1,40{/^\/\//p}' "$f" | sed -n 's|^// stdout: \{0,1\}||p' >"$T/$n.want"
    grep -v ThreadSanitizer "$T/$n.run.log" | cmp -s "$T/$n.want" - && ok ||
        bad "$n under TSan: stdout differs: $(diff "$T/$n.want" "$T/$n.run.log" | head -3 | tr '\n' ' ')"
done

# 2. the emulated block sums without its barriers: a data race between two threads of its body
c="$T/run_coop_sums/run_coop_sums.c"
if [ -f "$c" ]; then
    [ "$(grep -c 'cn_coop_barrier(cn_th);' "$c")" -ge 3 ] && ok || bad "block sums: fewer than 3 barriers in its emulated C"
    sed '/cn_coop_barrier(cn_th);/d' "$c" >"$T/nobar.c"
    $CC -fsanitize=thread -o "$T/nobar" "$T/nobar.c" -lm -lpthread 2>"$T/nobar.cc.log" || bad "no barriers: TSan build"
    if [ -x "$T/nobar" ]; then
        (cd "$T" && timeout 300 ./nobar >"$T/nobar.log" 2>&1)
        grep -q "WARNING: ThreadSanitizer: data race" "$T/nobar.log" && ok ||
            bad "emulated block sums without barriers: TSan reported no data race"
        # both sides of the first report are in the emulated body, at lines of the .cairn file
        sed -n '/WARNING: ThreadSanitizer: data race/,/Location is/p' "$T/nobar.log" | grep '#0 ' | head -2 >"$T/frames"
        { [ "$(wc -l <"$T/frames")" = 2 ] && ! grep -qv '#0 cn_coop[0-9]*_ebody tests/dev/run_coop_sums.cairn:[0-9]' "$T/frames"; } && ok ||
            bad "the race is not between two threads of the emulated body: $(tr '\n' ' ' <"$T/frames")"
    fi
fi

# 3. a read past x's end in an emulated region: the guard traps; without the guards ASan reports it
g=tests/dev/guard_coop_block.cairn
"$CAIRN" build $EMU "$g" --out "$T/guard" >"$T/g.b.log" 2>&1 || bad "guard_coop_block does not build emulated: $(head -3 "$T/g.b.log")"
c="$T/guard/guard_coop_block.c"
if [ -f "$c" ]; then
    $CC -fsanitize=address -o "$T/guarded" "$c" -lm -lpthread 2>"$T/g.cc.log" || bad "guarded: ASan build"
    if [ -x "$T/guarded" ]; then
        (cd "$T" && timeout 120 ./guarded >"$T/g1.log" 2>&1) 2>/dev/null; rc=$?
        { [ $rc -ne 0 ] && grep -q "guard failed: index 63 out of bounds for x of length 63" "$T/g1.log" &&
          grep -q "a lane of the cooperative region at .* trapped" "$T/g1.log" &&
          ! grep -q "AddressSanitizer" "$T/g1.log"; } && ok || bad "guarded emulated read: exit $rc, $(head -3 "$T/g1.log" | tr '\n' ' ')"
    fi
    awk '{print} /^#define CN_AT\(line, col\)/{print "#define cn_idx_u(i, n, ...) ((size_t)(i))"}' "$c" >"$T/unguarded.c"
    grep -q '^#define cn_idx_u' "$T/unguarded.c" && ok || bad "could not take the guards out"
    $CC -fsanitize=address -o "$T/unguarded" "$T/unguarded.c" -lm -lpthread 2>"$T/g2.cc.log" || bad "unguarded: ASan build"
    if [ -x "$T/unguarded" ]; then
        (cd "$T" && timeout 120 ./unguarded >"$T/g2.log" 2>&1)
        grep -q "AddressSanitizer: heap-buffer-overflow" "$T/g2.log" && grep -q "cn_coop[0-9]*_ebody" "$T/g2.log" && ok ||
            bad "emulated read past x without its guard: ASan reported no overflow in the emulated body: $(head -3 "$T/g2.log" | tr '\n' ' ')"
    fi
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
