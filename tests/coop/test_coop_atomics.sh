#!/usr/bin/env bash
# Atomics in cooperative regions (issue 13; devices.md's rows "Atomics on device memory" and "Atomics on
# shared memory"; numerics.md, "Atomic float addition"), on a machine without a GPU:
#   1. the exact oracle of atomic_add_unordered's contract (tests/coop/atomic_oracle.py) passes its own
#      checks, and the three programs that carry its intervals are what it writes (no drift);
#   2. every tests/coop/run_atomics*.cairn, built once, runs five times on host threads with 1, 2, 3, 8
#      and the default number of pool workers (other arrival orders), each run exiting 0 and printing
#      its header's lines: every kind of update on shared and outside arrays against plain loops, the
#      cas claims, and the float adds inside the oracle's bounds, in regions and in lanes;
#   3. the thread sanitizer: the histogram's emitted C runs clean; with its barriers taken out it
#      races (a shared array's atomics and its plain reads need the barrier between them, as
#      E-ATOMIC-MIXED says), and with its shared bins' atomic adds made plain loads and stores, it
#      races too (the atomics are what keep the threads apart);
#   4. the device lowering (nvcc): every region update of runtime/cairn_atomic.h, on every type,
#      compiles for sm_90a, the shared forms to shared-memory instructions only (atom.shared.*, the
#      8- and 16-bit ones and the f32 add as loops on atom.shared.cas.b32, the f32 add around
#      add.rn.ftz.f32) and the outside forms to relaxed atomics (no fence); the device programs
#      tests/dev/run_coop_atomics_*.cairn call only those in their regions;
#   5. subnormals: on host threads the f32 adds of tests/dev/run_atomics_flush.cairn keep them (its
#      header says what the GPU must print instead); the emulated machine does not model the device's
#      flush (it runs the host's add, and its receipt says "kept"), and a device build's receipt says
#      "flushed" for f32, in shared memory too, and "kept" for f64;
#   6. the receipt lists the contract with its bound for a region's float atomics, where the region
#      runs: host for a region on host threads, device for a device region's shared arrays.
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL coop_atomics: $1"; fi
}
want_lines() { sed -n '1,40{/^\/\//p}' "$1" | sed -n 's|^// stdout: \{0,1\}||p'; }

# 1. the oracle
python3 tests/coop/atomic_oracle.py selftest >"$T/self.log" 2>&1
ok "the oracle's selftest ($(tail -1 "$T/self.log"))" "$?"
python3 tests/coop/atomic_oracle.py check >"$T/drift.log" 2>&1
ok "the contract's programs are the oracle's ($(head -2 "$T/drift.log" | tr '\n' ' '))" "$?"

# 2. on host threads, five times each
for f in tests/coop/run_atomics*.cairn; do
    n=$(basename "$f" .cairn)
    if ! "$CAIRN" build "$f" --out "$T/$n" >"$T/$n.build" 2>&1; then
        ok "$n builds: $(head -3 "$T/$n.build")" 1
        continue
    fi
    want_lines "$f" >"$T/$n.want"
    for w in 1 2 3 8 ""; do
        CAIRN_THREADS=$w "$T/$n/$n" >"$T/$n.out" 2>"$T/$n.err"
        rc=$?
        ok "$n with ${w:-the default} workers: exit $rc, $(diff "$T/$n.want" "$T/$n.out" | head -3 | tr '\n' ' ')" \
            "$([ $rc = 0 ] && cmp -s "$T/$n.want" "$T/$n.out"; echo $?)"
    done
done

# 3. the thread sanitizer on the histogram
TSAN="${CC:-cc} -std=c17 -O1 -g -Iruntime -fsanitize=thread"
c="$T/run_atomics_hist/run_atomics_hist.c"
if [ -f "$c" ]; then
    $TSAN -o "$T/hist_tsan" "$c" -lm -lpthread 2>"$T/tsan1.log" || ok "histogram: TSan build: $(head -2 "$T/tsan1.log")" 1
    if [ -x "$T/hist_tsan" ]; then
        (cd "$T" && timeout 300 ./hist_tsan >"$T/h1.log" 2>&1); rc=$?
        ok "histogram under TSan: clean (exit $rc, $(grep -m1 ThreadSanitizer "$T/h1.log"))" \
            "$([ $rc = 0 ] && ! grep -q ThreadSanitizer "$T/h1.log"; echo $?)"
    fi
    ok "histogram: its emitted C has three barriers (two in the body, one in the finish)" "$([ "$(grep -c 'cn_coop_barrier(cn_th);' "$c")" = 3 ]; echo $?)"
    sed '/cn_coop_barrier(cn_th);/d' "$c" >"$T/nobar.c"
    $TSAN -o "$T/nobar" "$T/nobar.c" -lm -lpthread 2>/dev/null
    (cd "$T" && timeout 300 ./nobar >"$T/h2.log" 2>&1)
    ok "histogram without its barriers: TSan reports a data race" \
        "$(grep -q 'WARNING: ThreadSanitizer: data race' "$T/h2.log"; echo $?)"
    # the shared bins' update made a plain read and write (the outside total keeps its atomic)
    ok "histogram: its shared bins' update is cn_atomic_add_wrap_u32" \
        "$(grep -q 'cn_atomic_add_wrap_u32(cn_p[0-9]*, 1u)' "$c"; echo $?)"
    sed 's/cn_atomic_add_wrap_u32(\(cn_p[0-9]*\), 1u)/cn_plain_add_u32(\1, 1u)/' "$c" |
        awk '{print} /^#include "cairn_par.h"/{print "static inline uint32_t cn_plain_add_u32(uint32_t *p, uint32_t v) { uint32_t o = *p; *p = o + v; return o; }"}' \
        >"$T/plain.c"
    ok "histogram: the plain update replaced the atomic one" "$(grep -q 'cn_plain_add_u32(cn_p' "$T/plain.c"; echo $?)"
    $TSAN -o "$T/plain" "$T/plain.c" -lm -lpthread 2>"$T/tsan3.log" || ok "plain bins: TSan build: $(head -2 "$T/tsan3.log")" 1
    (cd "$T" && timeout 300 ./plain >"$T/h3.log" 2>&1)
    ok "histogram with plain bin updates: TSan reports a data race" \
        "$(grep -q 'WARNING: ThreadSanitizer: data race' "$T/h3.log"; echo $?)"
fi

# 4. the device lowering
if command -v nvcc >/dev/null 2>&1; then
    {
        echo '#include "cairn_par.h"'
        echo '__global__ void k_shared(unsigned long long *out) {'
        echo '  __shared__ int8_t i8s[8]; __shared__ uint8_t u8s[8]; __shared__ int16_t i16s[8]; __shared__ uint16_t u16s[8];'
        echo '  __shared__ int32_t i32s[8]; __shared__ uint32_t u32s[8]; __shared__ int64_t i64s[8]; __shared__ uint64_t u64s[8];'
        echo '  __shared__ size_t zs[8]; __shared__ bool bs[8]; __shared__ float fs[8]; __shared__ double ds[8];'
        echo '  unsigned k = threadIdx.x % 8; unsigned long long acc = 0;'
        for t in i8 u8 i16 u16 i32 u32 i64 u64 usize; do
            a=${t}s; [ $t = usize ] && a=zs
            for op in add_wrap min max and or xor; do
                echo "  acc += (unsigned long long)cn_atomic_shared_${op}_${t}(&${a}[k], 3);"
            done
            echo "  acc += (unsigned long long)cn_atomic_shared_cas_${t}(&${a}[k], 3, 5);"
        done
        echo '  acc += cn_atomic_shared_cas_bool(&bs[k], false, true);'
        echo '  acc += (unsigned long long)cn_atomic_shared_add_unordered_f32(&fs[k], 1.5f);'
        echo '  acc += (unsigned long long)cn_atomic_shared_add_unordered_f64(&ds[k], 2.5);'
        echo '  out[threadIdx.x] = acc; }'
        echo '__global__ void k_outside(int8_t *i8g, uint16_t *u16g, int32_t *i32g, uint64_t *u64g, size_t *zg, bool *bg, float *fg, double *dg) {'
        echo '  unsigned k = threadIdx.x % 8;'
        for op in add_wrap min max and or xor; do
            echo "  cn_atomic_relaxed_${op}_i8(&i8g[k], 3); cn_atomic_relaxed_${op}_u16(&u16g[k], 3);"
            echo "  cn_atomic_relaxed_${op}_i32(&i32g[k], 3); cn_atomic_relaxed_${op}_u64(&u64g[k], 3); cn_atomic_relaxed_${op}_usize(&zg[k], 3);"
        done
        echo '  cn_atomic_relaxed_cas_i32(&i32g[k], 3, 5); cn_atomic_relaxed_cas_bool(&bg[k], false, true);'
        echo '  cn_atomic_relaxed_add_unordered_f32(&fg[k], 1.5f); cn_atomic_relaxed_add_unordered_f64(&dg[k], 2.5); }'
    } >"$T/every.cu"
    if nvcc -std=c++17 -x cu -ptx -arch=sm_90a -Iruntime -w -o "$T/every.ptx" "$T/every.cu" >"$T/every.log" 2>&1; then
        ok "every region update compiles for sm_90a" 0
        ptxas -arch=sm_90a -o "$T/every.cubin" "$T/every.ptx" >"$T/ptxas.log" 2>&1
        ok "... and ptxas assembles it ($(head -2 "$T/ptxas.log" | tr '\n' ' '))" "$?"
        sed -n '/\.entry .*k_shared/,/^}/p' "$T/every.ptx" >"$T/shared.ptx"
        sed -n '/\.entry .*k_outside/,/^}/p' "$T/every.ptx" >"$T/outside.ptx"
        ok "shared forms: no atomic outside shared memory ($(grep -E '^\s*atom\.' "$T/shared.ptx" | grep -v 'atom\.shared\.' | head -2 | tr -s ' \t' ' '))" \
            "$(! grep -E '^\s*atom\.' "$T/shared.ptx" | grep -qv 'atom\.shared\.'; echo $?)"
        ok "shared forms: their loads are ld.relaxed.cta.shared (the kernel's own are its parameter and out's store)" \
            "$(! grep -E '^\s*(ld|st)\.' "$T/shared.ptx" | grep -v 'ld\.param\|ld\.relaxed\.cta\.shared\.u32\|st\.global\.u64' | grep -q .; echo $?)"
        for i in add.u32 add.u64 min.s32 min.u32 min.s64 min.u64 max.s32 max.u32 max.s64 max.u64 and.b32 and.b64 \
                 or.b32 or.b64 xor.b32 xor.b64 cas.b32 cas.b64 add.f64; do
            ok "shared forms: atom.shared.$i" "$(grep -q "atom\.shared\.$i" "$T/shared.ptx"; echo $?)"
        done
        ok "shared f32 add: a loop around add.rn.ftz.f32 (the device's flush, in shared memory too)" \
            "$(grep -q 'add\.rn\.ftz\.f32' "$T/shared.ptx" && ! grep -q 'atom\.shared\.add\.f32' "$T/shared.ptx"; echo $?)"
        ok "shared forms: no fence" "$(! grep -q 'fence\|membar' "$T/shared.ptx"; echo $?)"
        ok "outside forms: relaxed atomics at device scope, no fence" \
            "$(grep -q 'atom\.add\.relaxed\.gpu\.f32' "$T/outside.ptx" && grep -q 'atom\.add\.relaxed\.gpu\.f64' "$T/outside.ptx" &&
               grep -q 'atom\.cas\.relaxed\.gpu\.b32' "$T/outside.ptx" && ! grep -q 'fence\|membar' "$T/outside.ptx"; echo $?)"
    else
        ok "every region update compiles for sm_90a: $(grep -m3 error "$T/every.log" | tr '\n' ' ')" 1
    fi
    for f in tests/dev/run_coop_atomics_*.cairn tests/dev/run_atomics_flush.cairn; do
        n=$(basename "$f" .cairn)
        if ! "$CAIRN" build "$f" --device-target sm_90a --out "$T/d_$n" >"$T/d_$n.log" 2>&1; then
            ok "$n builds for sm_90a: $(head -3 "$T/d_$n.log" | tr '\n' ' ')" 1
            continue
        fi
        c="$T/d_$n/$n.c"
        # inside a device region's functions (from `CN_DEV_LANE void cn_coopK_block` to its end)
        sed -n '/^\(CN_COOP_FAST_TEMPLATE \)\?CN_DEV_LANE void cn_coop[0-9]*_\(block\|finish\)/,/^}/p' "$c" >"$T/d_$n.region"
        ok "$n: its regions' atomics are the shared and relaxed forms only" \
            "$(grep -q 'cn_atomic_' "$T/d_$n.region" && ! grep -o 'cn_atomic_[a-z]*' "$T/d_$n.region" |
                grep -qv 'cn_atomic_shared\|cn_atomic_relaxed'; echo $?)"
        ok "$n: a shared array's update is a shared form" \
            "$(grep -q 'cn_atomic_shared_' "$T/d_$n.region"; echo $?)"
    done
else
    echo "SKIP coop_atomics: no nvcc, the device lowering is not checked"
    skip=$((skip + 1))
fi

# 5. subnormals
f=tests/dev/run_atomics_flush.cairn
sed 's/@device//g' "$f" >"$T/flush_host.cairn"
"$CAIRN" run --device-target sm_90a --out "$T/fh" "$T/flush_host.cairn" >"$T/fh.out" 2>"$T/fh.err"
printf 'lanes 4 4\nshared 64 2188378112 4194304 64\noutside 64 4194304\n' >"$T/fh.want"
ok "on host threads f32 atomic adds keep subnormals ($(diff "$T/fh.want" "$T/fh.out" | tr '\n' ' '))" \
    "$(cmp -s "$T/fh.want" "$T/fh.out"; echo $?)"
ok "the GPU's expected lines are the flushed ones" "$(want_lines "$f" | tr '\n' '|' | grep -qx 'lanes 0 4|shared 0 8388608 0 64|outside 0 0|'; echo $?)"
cat >"$T/emu.cairn" <<'CAIRN'
fn main() -> i32 {
  buffer s:f32[1]@device = zeroed;
  buffer t:f64[1]@device = zeroed;
  parallel i in 4 { atomic_add_unordered(s[0], from_bits[f32](1)); atomic_add_unordered(t[0], from_bits[f64](1)); }
  buffer hs:f32[1] = zeroed;
  buffer ht:f64[1] = zeroed;
  transfer(hs, s);
  transfer(ht, t);
  println(to_bits(hs[0]), to_bits(ht[0]));
  return 0;
}
CAIRN
"$CAIRN" run --emulate --device-target sm_90a --out "$T/emu" "$T/emu.cairn" >"$T/emu.out" 2>/dev/null
ok "emulated, the device's f32 flush is not modelled: 4 lanes adding 2^-149 leave 4 x 2^-149 ($(cat "$T/emu.out"))" \
    "$([ "$(cat "$T/emu.out")" = "4 4" ]; echo $?)"
ok "... and the emulated receipt says kept, never flushed" \
    "$(grep -q '"where": "device", "subnormals": "kept", "bound"' "$T/emu/emu.receipt.json" &&
       ! grep -q flushed "$T/emu/emu.receipt.json"; echo $?)"
if command -v nvcc >/dev/null 2>&1 && [ -f "$T/d_run_atomics_flush/run_atomics_flush.receipt.json" ]; then
    R="$T/d_run_atomics_flush/run_atomics_flush.receipt.json"
    ok "a device build's receipt: f32 flushed on the device, f64 kept, nothing on the host" \
        "$(grep -q '"from": "f32", "to": "f32", "rounding": "nearest-even", "order": "unspecified", "where": "device", "subnormals": "flushed"' "$R" &&
           grep -q '"from": "f64", "to": "f64", "rounding": "nearest-even", "order": "unspecified", "where": "device", "subnormals": "kept"' "$R" &&
           ! grep -q '"op": "atomic_add".*"where": "host"' "$R"; echo $?)"
fi

# 6. the receipt of regions' float atomics
B32='"bound": "k * 2^-23 * (|old| + sum |v|) + k * 2^-125, k < 2^22"'
B64='"bound": "k * 2^-52 * (|old| + sum |v|), k < 2^51"'
cat >"$T/rh.cairn" <<'CAIRN'
fn f(g:usize, out:rw<f32>[1]) {
  blocks b in g threads t in 32 {
    shared s:f64[1] = zeroed;
    atomic_add_unordered(s[0], 0.5);
    atomic_add_unordered(out[0], 1.5);
  }
}
fn main() -> i32 { return 0; }
CAIRN
"$CAIRN" build --out "$T/rh" "$T/rh.cairn" >/dev/null 2>&1
R="$T/rh/rh.receipt.json"
ok "a host region's f32 and f64 adds: listed on the host, with the bound" \
    "$(grep -qF "{\"op\": \"atomic_add\", \"from\": \"f32\", \"to\": \"f32\", \"rounding\": \"nearest-even\", \"order\": \"unspecified\", \"where\": \"host\", \"subnormals\": \"kept\", $B32}" "$R" &&
       grep -qF "{\"op\": \"atomic_add\", \"from\": \"f64\", \"to\": \"f64\", \"rounding\": \"nearest-even\", \"order\": \"unspecified\", \"where\": \"host\", \"subnormals\": \"kept\", $B64}" "$R" &&
       [ "$(grep -c '"op": "atomic_add"' "$R")" = 2 ]; echo $?)"
cat >"$T/rd.cairn" <<'CAIRN'
fn f(g:usize, out:rw<f64>[g]@device) {
  blocks b in g threads t in 32 {
    shared s:f32[1] = zeroed;
    atomic_add_unordered(s[0], 0.5);
    barrier;
    if t == 0 { out[b] = f64(s[0]); }
  }
}
fn main() -> i32 { return 0; }
CAIRN
"$CAIRN" build --emulate --device-target sm_90a --out "$T/rd" "$T/rd.cairn" >"$T/rd.log" 2>&1
ok "an emulated device region's shared f32 add: on the device, kept (the host adds), with the bound" \
    "$(grep -qF "{\"op\": \"atomic_add\", \"from\": \"f32\", \"to\": \"f32\", \"rounding\": \"nearest-even\", \"order\": \"unspecified\", \"where\": \"device\", \"subnormals\": \"kept\", $B32}" "$T/rd/rd.receipt.json"; echo $?)"
"$CAIRN" check --device-target sm_90a "$T/rd.cairn" >/dev/null 2>&1
ok "a device region that only adds into a shared f32 is accepted" "$?"
if command -v nvcc >/dev/null 2>&1; then
    "$CAIRN" build --device-target sm_90a --out "$T/rdb" "$T/rd.cairn" >/dev/null 2>&1
    R="$T/rdb/rd.receipt.json"
    ok "a device region's shared f32 add: listed on the device, flushed, with the bound (and not on the host)" \
        "$(grep -qF "{\"op\": \"atomic_add\", \"from\": \"f32\", \"to\": \"f32\", \"rounding\": \"nearest-even\", \"order\": \"unspecified\", \"where\": \"device\", \"subnormals\": \"flushed\", $B32}" "$R" &&
           [ "$(grep -c '"op": "atomic_add"' "$R")" = 1 ]; echo $?)"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
