#!/usr/bin/env bash
# The C entries of a device library (cairn build --header), on the host machines:
#   - the header matches spec d07 for d06's smooth, plus a function listed under E-ENQUEUE;
#   - on the emulated machine, cf_ and cq_ compute what a plain loop does, and a NULL pointer with
#     elements is refused with a guard;
#   - on the counting machine, cq_smooth makes no stream, event, allocation or wait, even as the
#     thread's first device work; cf_smooth makes its context once and waits once a call.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

cat >"$T/smoothlib.cairn" <<'CAIRN'
fn smooth(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device, tmp:rw<f32>[n]@device) {
  parallel i in n { tmp[i] = 2.0 * x[i]; }
  parallel i in n { out[i] = tmp[i] + 1.0; }     // one wait for both, when smooth returns
}
fn total(n:usize, x:ro<f32>[n]@device, t:rw<f32>[1]@device) {
  reduce + t[0] parallel i in n yield x[i];
}
CAIRN
if "$CAIRN" build "$T/smoothlib.cairn" --header --emulate --device-target sm_90a --out "$T/lib" 2>"$T/build.err"; then
    ok "library build"
else
    bad "library build: $(cat "$T/build.err")"
fi
# The spec's header lines (d07), verbatim, in the generated header.
want=/work/shared/spec/examples/d07-smooth-header.h
[ -f "$want" ] || want=tests/spec/d07-smooth-header.h
missing=0
while IFS= read -r line; do
    case "$line" in "/* source"*|"/* expect"*|"/* note"*|"") continue ;; esac
    line=${line//total: it allocates/total: it allocates}
    grep -qF -- "$line" "$T/lib/smoothlib.h" || { missing=1; echo "  header lacks: $line"; }
done <"$want"
[ $missing = 0 ] && ok "header has d07's declarations and E-ENQUEUE block" || bad "header differs from d07"

cat >"$T/main.c" <<'C'
#include "smoothlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CAIRN_COUNT
#include "cairn_exec.h"
#endif
int main(int argc, char **argv)
{
    enum { N = 1003 };
    float *x = malloc(N * sizeof *x), *out = malloc(N * sizeof *out), *tmp = malloc(N * sizeof *tmp), t = 0;
    for (int i = 0; i < N; i++) x[i] = (float)(i * 7 % 13) - 3.0f;
    int bad = 0;
    if (argc > 1 && !strcmp(argv[1], "null")) { cf_smooth(N, out, NULL, tmp); return 0; }
#ifdef CAIRN_COUNT
    struct cn_dev_counts c0 = cn_dev_count_snapshot();
    int fake_stream = 0;
    cq_smooth(&fake_stream, N, out, x, tmp);
    struct cn_dev_counts c1 = cn_dev_count_snapshot();
    printf("cq: streams %lu events %lu mallocs %lu waits %lu launches %lu\n", c1.stream_create - c0.stream_create,
           c1.event_create - c0.event_create, c1.malloc - c0.malloc, c1.waits - c0.waits, c1.launch - c0.launch);
    for (int pass = 0; pass < 3; pass++) {
        c0 = cn_dev_count_snapshot();
        cf_smooth(N, out, x, tmp);
        c1 = cn_dev_count_snapshot();
        printf("cf %d: streams %lu waits %lu launches %lu\n", pass, c1.stream_create - c0.stream_create,
               c1.waits - c0.waits, c1.launch - c0.launch);
    }
#else
    cf_smooth(N, out, x, tmp);
    for (int i = 0; i < N; i++) bad += out[i] != 2.0f * x[i] + 1.0f;
    memset(out, 0, N * sizeof *out);
    cq_smooth(NULL, N, out, x, tmp);
    for (int i = 0; i < N; i++) bad += out[i] != 2.0f * x[i] + 1.0f;
    cf_total(N, x, &t);
    double s = 0;
    for (int i = 0; i < N; i++) s += x[i];
    printf("bad %d total %g expect %g\n", bad, t, s);
#endif
    return bad;
}
C
if cc -std=c17 -I"$T/lib" -o "$T/emu" "$T/main.c" "$T/lib/libsmoothlib.a" -lm -pthread 2>"$T/cc.err" &&
    out=$("$T/emu") && [ "$out" = "bad 0 total 3004 expect 3004" ]; then
    ok "emulated cf_smooth, cq_smooth and cf_total agree with plain loops ($out)"
else
    bad "emulated entries: $(cat "$T/cc.err") ${out:-}"
fi
"$T/emu" null 2>"$T/null.err"; rc=$?
if [ $rc = 134 ] && grep -q "guard failed: smooth: x is NULL, with 1003 elements" "$T/null.err"; then
    ok "a NULL pointer with elements is refused by cf_ (exit 134)"
else
    bad "NULL pointer: exit $rc, $(cat "$T/null.err")"
fi
if cc -std=c17 -DCAIRN_COUNT -Iruntime -I"$T/lib" -o "$T/count" "$T/main.c" "$T/lib/smoothlib.c" -lm -pthread \
        2>"$T/cc2.err"; then
    out=$("$T/count")
    want="cq: streams 0 events 0 mallocs 0 waits 0 launches 2
cf 0: streams 1 waits 1 launches 2
cf 1: streams 0 waits 1 launches 2
cf 2: streams 0 waits 1 launches 2"
    if [ "$out" = "$want" ]; then ok "counting machine: cq_ makes and waits for nothing; cf_ waits once a call"
    else bad "counting machine: got [$out] want [$want]"; fi
else
    bad "counting build: $(head -5 "$T/cc2.err")"
fi
# devices.md's normalize (d08) on the counting machine: its total stays on the device, so a call
# makes no copy and waits once, when it returns; the same function reading its total on the host
# makes one copy (device to host) and waits twice. The second and third calls allocate nothing.
mkdir -p "$T/norm"
cat >"$T/norm/normlib.cairn" <<'CAIRN'
fn normalize(n:usize, x:rw<f32>[n]@device, total:rw<f32>[1]@device) {
  reduce + total[0] for i in n yield x[i];
  parallel i in n { x[i] = x[i] / total[0]; }
}
fn normalize_host(n:usize, x:rw<f32>[n]@device) {
  let t = reduce + for i in n yield x[i];
  parallel i in n { x[i] = x[i] / t; }
}
CAIRN
cat >"$T/norm/main.c" <<'C'
#include "normlib.h"
#include "cairn_exec.h"
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    enum { N = 1000 };
    float *x = malloc(N * sizeof *x), total = 0;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++) x[i] = (float)(i % 7) + 1.0f;
        struct cn_dev_counts c0 = cn_dev_count_snapshot();
        cf_normalize(N, x, &total);
        struct cn_dev_counts c1 = cn_dev_count_snapshot();
        cf_normalize_host(N, x);
        struct cn_dev_counts c2 = cn_dev_count_snapshot();
        printf("call %d: device total: copies %lu waits %lu mallocs %lu; host total: copies %lu waits %lu mallocs %lu\n",
               k, (c1.copy_d2h + c1.copy_h2d) - (c0.copy_d2h + c0.copy_h2d), c1.waits - c0.waits, c1.malloc - c0.malloc,
               (c2.copy_d2h + c2.copy_h2d) - (c1.copy_d2h + c1.copy_h2d), c2.waits - c1.waits, c2.malloc - c1.malloc);
    }
    printf("total %g\n", (double)total);
    return 0;
}
C
if "$CAIRN" build "$T/norm/normlib.cairn" --header --emulate --device-target sm_90a --out "$T/norm/lib" \
        >"$T/norm/build.log" 2>&1 &&
    cc -std=c17 -DCAIRN_COUNT -Iruntime -I"$T/norm/lib" -o "$T/norm/count" "$T/norm/main.c" \
        "$T/norm/lib/normlib.c" -lm -pthread 2>"$T/norm/cc.err"; then
    out=$("$T/norm/count")
    want="call 0: device total: copies 0 waits 1 mallocs 1; host total: copies 1 waits 2 mallocs 0
call 1: device total: copies 0 waits 1 mallocs 0; host total: copies 1 waits 2 mallocs 0
call 2: device total: copies 0 waits 1 mallocs 0; host total: copies 1 waits 2 mallocs 0
total 3997"
    if [ "$out" = "$want" ]; then ok "counting machine: normalize makes no copy and one wait; reading the total on the host, one copy and two"
    else bad "normalize counts: got [$out] want [$want]"; fi
else
    bad "normalize build: $(head -5 "$T/norm/build.log" "$T/norm/cc.err" 2>/dev/null)"
fi

# Pinned and unified owners are device work: a function with one gets no cq_ entry, and the
# E-ENQUEUE block says it allocates (not that it does no device work); a host-only function says so.
mkdir -p "$T/owners"
cat >"$T/owners/ownlib.cairn" <<'CAIRN'
fn stage(n:usize, out:rw<u32>[n]@device) {
  buffer u:u32[n]@unified = zeroed;
  parallel i in n { out[i] = u[i] + 1; }
}
fn pin(n:usize, out:rw<u32>[n]@device) {
  buffer p:u32[n]@pinned = zeroed;
  transfer(out, p);
}
fn plain(n:usize, h:rw<u32>[n]) { for i in 0..n { h[i] = 1; } }
CAIRN
if "$CAIRN" build "$T/owners/ownlib.cairn" --header --emulate --device-target sm_90a --out "$T/owners/lib" \
        >"$T/owners/build.log" 2>&1; then
    H="$T/owners/lib/ownlib.h"
    if grep -q '^ \* stage: it allocates device memory' "$H" && grep -q '^ \* pin: it allocates device memory' "$H" &&
        grep -q '^ \* plain: it does no device work' "$H" && ! grep -q 'cq_stage\|cq_pin' "$H"; then
        ok "pinned and unified owners: no cq_ entry, E-ENQUEUE says they allocate"
    else
        bad "owners' E-ENQUEUE block: $(grep '^ \* ' "$H" | tr '\n' '|')"
    fi
else
    bad "owners library build: $(head -5 "$T/owners/build.log")"
fi
echo "$pass passed, $fail failed, 0 skipped"
[ $fail = 0 ]
