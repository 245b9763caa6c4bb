#!/usr/bin/env bash
# Cooperative regions on the device (src/emit_coop.c, runtime/cairn_coopdev.h), on a machine without a
# GPU: every tests/dev/run_coop_*.cairn (which tests/device/run.sh runs on the GPU)
#   1. builds for sm_90a with nvcc, its emitted C one CN_COOP_KERNEL per region launched through
#      cn_exec_coop_launch, barriers as __syncthreads(), no host team (cn_coop_run), and its PTX has
#      the warp instructions the program uses (shfl.sync, vote.sync, match.any.sync) and bar.sync;
#   2. its host version (the same program without @device: the regions on host threads) prints
#      exactly the file's `// stdout:` lines and exits 0: the f32 sums' bits the GPU run must print;
# and --emulate accepts a device region (tests/coop/test_coop_emulate.sh runs them emulated). The
# emitted file is one for every machine: the emulated machine's version of each region sits in an
# `#if CN_DEV_EMULATED` section before the CUDA kernel, so the checks of the device build below
# read the file with those sections taken out.
# Prints FAIL lines and `N passed, N failed, N skipped`. Without nvcc everything is skipped.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL coop_device: $1"; fi
}
if ! command -v nvcc >/dev/null 2>&1; then
    echo "SKIP coop_device: no nvcc"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
for f in tests/dev/run_coop_*.cairn; do
    n=$(basename "$f" .cairn)
    # 1. the device build
    if "$CAIRN" build "$f" --device-target sm_90a --out "$T/$n" >"$T/$n.log" 2>&1; then
        ok "$n builds for sm_90a" 0
    else
        ok "$n builds for sm_90a: $(head -c 300 "$T/$n.log")" 1
        continue
    fi
    c="$T/$n/$n.c"
    # the device's text: the file without its `#if CN_DEV_EMULATED` ... `#else` sections
    sed '/^#if CN_DEV_EMULATED$/,/^#else \/\* the CUDA machine/d' "$c" >"$T/$n.cuda.c"
    regions=$(grep -c '^ *blocks ' "$f")
    ok "$n: one emulated section per region ($regions)" "$([ "$(grep -c '^#if CN_DEV_EMULATED$' "$c")" = "$regions" ]; echo $?)"
    ok "$n: one kernel per region ($regions)" "$([ "$(grep -c '^CN_COOP_KERNEL' "$c")" = "$regions" ]; echo $?)"
    ok "$n: one launch per region on the execution context" \
        "$([ "$(grep -c 'cn_exec_coop_launch(cn_exec_get(), ' "$c")" = "$regions" ]; echo $?)"
    ok "$n: no host team on the device" "$(! grep -q 'cn_coop_run\|cn_coop_barrier\|CN_COOP_TEAMS' "$T/$n.cuda.c"; echo $?)"
    grep -q '^ *shared ' "$f" && ok "$n: static shared memory, 128-byte aligned" "$(grep -q '^static __shared__ __align__(128) unsigned char' "$c"; echo $?)"
    if nvcc -std=c++17 -x cu -ptx -arch=sm_90a -Iruntime -w -o "$T/$n.ptx" "$c" >"$T/$n.ptx.log" 2>&1; then
        ok "$n: PTX" 0
    else
        ok "$n: PTX: $(head -c 300 "$T/$n.ptx.log")" 1
        continue
    fi
    grep -q '^ *barrier;' "$f" && ok "$n: barrier is bar.sync" "$(grep -q 'bar.sync' "$T/$n.ptx"; echo $?)"
    grep -q 'reduce [a-z_+*]* warp' "$f" && ok "$n: reduce warp is shfl.sync.bfly" "$(grep -q 'shfl.sync.bfly' "$T/$n.ptx"; echo $?)"
    grep -q 'shuffle_down' "$f" && ok "$n: shuffle_down is shfl.sync.down" "$(grep -q 'shfl.sync.down' "$T/$n.ptx"; echo $?)"
    grep -q 'shuffle_up' "$f" && ok "$n: shuffle_up is shfl.sync.up" "$(grep -q 'shfl.sync.up' "$T/$n.ptx"; echo $?)"
    grep -q 'shuffle(' "$f" && ok "$n: shuffle is shfl.sync.idx" "$(grep -q 'shfl.sync.idx' "$T/$n.ptx"; echo $?)"
    grep -q 'warp_ballot' "$f" && ok "$n: warp_ballot is vote.sync.ballot" "$(grep -q 'vote.sync.ballot' "$T/$n.ptx"; echo $?)"
    grep -q 'warp_match' "$f" && ok "$n: warp_match is match.any.sync" "$(grep -q 'match.any.sync' "$T/$n.ptx"; echo $?)"
    # 2. the host version: the same output, bit for bit
    sed 's/@device//g' "$f" >"$T/${n}_host.cairn"
    "$CAIRN" run --device-target sm_90a --out "$T/${n}_host" "$T/${n}_host.cairn" >"$T/$n.out" 2>"$T/$n.err"
    rc=$?
    sed -n '1,40{/^\/\//p}' "$f" | sed -n 's|^// stdout: \{0,1\}||p' >"$T/$n.want"
    ok "$n: the host version exits 0 (got $rc: $(grep -v '^cairn: built' "$T/$n.err" | head -2 | tr '\n' ' '))" \
        "$([ $rc = 0 ]; echo $?)"
    ok "$n: the host version prints the device's expected lines ($(diff "$T/$n.want" "$T/$n.out" | head -3 | tr '\n' ' '))" \
        "$(cmp -s "$T/$n.want" "$T/$n.out"; echo $?)"
done
# --emulate: accepted (it was refused with E-UNSUPPORTED before the emulated machine ran regions)
"$CAIRN" check --json --emulate --device-target sm_90a tests/dev/run_coop_sums.cairn >/dev/null 2>"$T/emu.err"
rc=$?
ok "--emulate accepts a device region (exit $rc: $(head -c 200 "$T/emu.err"))" "$([ $rc = 0 ]; echo $?)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
