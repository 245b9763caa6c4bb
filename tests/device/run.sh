#!/usr/bin/env bash
# The device suite: runs on a machine with an NVIDIA GPU (make gpu). Builds each test with nvcc for
# the target (default sm_90a, the H200) and writes what it printed, with the GPU, the driver and
# nvcc's version, under OUTDIR (default build/gpu). Exits non-zero when a test fails.
#
#   float_agree   every f32 input through each storage-float narrowing, widening, quantize and
#                 quantize_stochastic: a hash of the results computed by a kernel and by host
#                 threads must agree bit for bit (one rounding routine, integer operations only)
#   math_agree    the portable std.math functions (runtime/cairn_math.h): every f32 input of each
#                 one-argument function hashed on the device and on host threads, 2^26 pairs of each
#                 two-argument one, and 2^22 f64 inputs of each compared bit for bit
#   device programs   every tests/dev/*.cairn, tests/tensor/*.cairn, tests/grad/*.cairn and tests/spec/d*.cairn that
#                 expects `run` (a host-only one is built and run as it is elsewhere), built by
#                 cairn for the target (nvcc, one emitted file) and run on the GPU: the same exit code,
#                 stdout and guard message the emulated run gives (a device guard's printf goes to
#                 stdout, so the guard text is looked for in both streams)
#   run_scan_tiles with 64-bit counts   the compaction's 64-bit counts, forced on small extents
#   run_scan_tiles again   40 more runs (SCAN_AGAIN), each with the same lines: the look-back's timing
#   run_pipeline SASS   the pipelines' cp.async as LDGSTS, their waits as DEPBAR (cuobjdump)
#   graph_cq      a cq_ entry captured in a CUDA graph and replayed; cf_ on a bound stream
#   entry_after_trap  a cq_ call that traps, the caller's synchronize, then the next cq_ call aborts
#   coop_grid     cooperative regions' grids (runtime/cairn_coopdev.h): 3-D grids around and past
#                 65535 blocks in x, y and z, every block's sum checked, and 2 x 65537 x 16385
#                 blocks (past 2^31) each run exactly once with the right names
#   coop_finish   a region's finish: 1000 launches on one stream and a CUDA graph of it replayed
#                 100 times on another beside them, every total checked; empty grids run the finish
#                 once; every counter word back to 0; `trap` and `nowords`: the counter's traps
#   mma_contract  mma_unordered's tiling on the tensor cores: every format, partial tiles, value
#                 families from moderate to adversarial, each output within the contract's bound
#                 of the exact sum (GMP), as tests/unit/test_mma.c holds the emulated tiling
#   tile64, tile32, tile128, tile128d, tile128w   examples/tensor's fragment matrix multiplies: every output within the bound
#   nopadmemo     run_pipeline_pads and the three fragment programs built with the pad skip off (CN_COOPD_PADMEMO=0)
#   noteams       run_pipeline_pads, tile64, tile32 and tile128 built with every fill by the whole block
#                 (CN_COOPD_TEAMS=0; fills by teams are the default)
#   constrows     the same with fills specialized to their bounds (CN_COOPD_CONST_ROWS=1); constrows_noteams:
#                 that without teams
#   two_devices   the execution context per device (where two GPUs are; a SKIP line elsewhere)
#   dsum_finish   the exact sum's last step (cn_dsum_finish: one warp carries and rounds the
#                 blocks' total) on 64,000 totals of eight families, each with the host's bits
#   torch_cq      PyTorch calls the cq_ entry on its current stream (tests/device/torch_cq.py);
#                 skipped where torch is not installed
#   torch_binding the Python package (python/cairn) with CUDA tensors: cq_ on torch's stream with
#                 no wait, cf_ bound to it, every refusal (tests/python/check_torch.py)
#   grad_torch    derive grad's gradients against torch.autograd (tests/grad/check_torch_grad.py): on the
#                 host, on the host pool, emulated, and the @device twins on this GPU with CUDA tensors
# SKIP="float_agree math_agree" leaves those two out (each prints a SKIP line): for a run whose
# math and storage-float code is that of a recorded one. ONLY=ERE runs only the device programs whose
# path matches it, with the run_scan_tiles reruns when it is among them, and the named tests it
# matches (mma_contract, tile64, ...), and skips the rest (each prints a SKIP line): for a quick look
# at one area between full runs.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:-build/gpu}
ARCH=${ARCH:-sm_90a}
CAIRN=${CAIRN:-bin/cairn}
mkdir -p "$OUTDIR"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    nvcc --version | tail -2
    echo "target: $ARCH"
} >"$OUTDIR/machine.txt"
cat "$OUTDIR/machine.txt"
fail=0
# skipped NAME: true (and a SKIP line) when SKIP names the test, or ONLY leaves it out.
skipped() {
    case " ${SKIP:-} " in *" $1 "*) echo "SKIP $1: named in SKIP"; return 0 ;; esac
    [ -z "${ONLY:-}" ] && return 1
    echo "$1" | grep -qE -- "$ONLY" && return 1   # ONLY names it too
    echo "SKIP $1: ONLY=$ONLY"
}
for t in float_agree math_agree; do
    # SKIP="math_agree ...": leave out a test whose inputs did not change since a recorded run (it says so)
    skipped $t && continue
    cc=${ARCH#sm_}
    if ! nvcc -std=c++17 -O2 --fmad=false -gencode=arch=compute_$cc,code=$ARCH -Iruntime \
            -o "$OUTDIR/$t" "tests/device/$t.cu" >"$OUTDIR/$t.build.log" 2>&1; then
        echo "FAIL $t: does not build"; cat "$OUTDIR/$t.build.log"; fail=1; continue
    fi
    if "$OUTDIR/$t" >"$OUTDIR/$t.log" 2>&1; then echo "PASS $t"; else echo "FAIL $t"; fail=1; fi
    cat "$OUTDIR/$t.log"
done

# Cooperative regions' device runtime (runtime/cairn_coopdev.h): grids past the grid limit and
# past 2^31 blocks, the finish in a loop and in a replayed CUDA graph, and the counter's two traps;
# and the exact sum's last step (runtime/cairn_devsum.h) against the host's rounding.
for t in coop_grid coop_finish dsum_finish two_devices; do
    skipped $t && continue
    cc=${ARCH#sm_}
    if ! nvcc -std=c++17 -O2 -gencode=arch=compute_$cc,code=$ARCH -Iruntime \
            -o "$OUTDIR/$t" "tests/device/$t.cu" >"$OUTDIR/$t.build.log" 2>&1; then
        echo "FAIL $t: does not build"; cat "$OUTDIR/$t.build.log"; fail=1; continue
    fi
    if "$OUTDIR/$t" >"$OUTDIR/$t.log" 2>&1; then echo "PASS $t"; else echo "FAIL $t"; fail=1; fi
    cat "$OUTDIR/$t.log"
done
# mma_unordered's tiling on the tensor cores (runtime/cairn_mma.h): tests/unit/test_mma.c built by
# nvcc, so its device runs are the GPU's, each output held to the contract's bound with GMP's exact
# rationals (it needs libgmp-dev; without gmp.h it is skipped, saying so).
if ! skipped mma_contract; then
    cc=${ARCH#sm_}
    if ! echo '#include <gmp.h>' | cpp >/dev/null 2>&1; then
        echo "SKIP mma_contract: no gmp.h on this machine (install libgmp-dev)"
    elif ! nvcc -std=c++17 -O2 -x cu --fmad=false -gencode=arch=compute_$cc,code=$ARCH -Iruntime -Itests/unit \
            -o "$OUTDIR/mma_contract" tests/unit/test_mma.c -lgmp >"$OUTDIR/mma_contract.build.log" 2>&1; then
        echo "FAIL mma_contract: does not build"; cat "$OUTDIR/mma_contract.build.log"; fail=1
    else
        if "$OUTDIR/mma_contract" >"$OUTDIR/mma_contract.log" 2>&1; then echo "PASS mma_contract"; else
            echo "FAIL mma_contract"; fail=1; fi
        grep -E '^FAIL|passed' "$OUTDIR/mma_contract.log" | head -20
    fi
fi

# The page's two matrix multiplies written with fragments (examples/tensor): on the GPU each output
# must keep the contract's bound (its bits may differ from the reference loop's, which the emulated
# run holds them to in tests/lang/test_examples.sh).
mkdir -p "$OUTDIR/dev"
for name in tile64 tile32 tile128 tile128d tile128w; do
    skipped "$name" && continue
    o="$OUTDIR/dev/$name"
    if ! "$CAIRN" build "examples/tensor/$name.cairn" --device-target "$ARCH" --out "$o" >"$o.build.log" 2>&1; then
        echo "FAIL $name: does not build for $ARCH"; sed -n 1,5p "$o.build.log"; fail=1; continue
    fi
    "$o/$name" >"$o.stdout" 2>"$o.stderr"; rc=$?
    if [ $rc = 0 ] && [ "$(grep -c ' outside 0 differ ' "$o.stdout")" = 6 ]; then echo "PASS $name"; else
        echo "FAIL $name: exit $rc"; cat "$o.stdout"; fail=1; fi
    cat "$o.stdout"
done

# The fill's other builds (runtime/cairn_coopdev.h), each on run_pipeline_pads (its pad skip) and the
# three fragment programs: noteams, every fill by the whole block (CN_COOPD_TEAMS=0; teams, the
# default, give each of a region's two pipelines half the warps, tile32's swizzled fills staying the
# block's); constrows, the fills specialized to their rows' and cols' bounds (CN_COOPD_CONST_ROWS=1,
# opt-in), with teams and without; nopadmemo, every pad written every fill (CN_COOPD_PADMEMO=0; the
# skip is the default, which the programs above run). nvcc takes the definitions from NVCC_APPEND_FLAGS.
for cfg in "nopadmemo -DCN_COOPD_PADMEMO=0" "noteams -DCN_COOPD_TEAMS=0" "constrows -DCN_COOPD_CONST_ROWS=1" \
           "constrows_noteams -DCN_COOPD_CONST_ROWS=1 -DCN_COOPD_TEAMS=0"; do
    read -r tn defs <<<"$cfg"
    skipped "$tn" && continue
    o="$OUTDIR/dev/$tn"; mkdir -p "$o"; tm=0
    for f in tests/dev/run_pipeline_pads examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128; do
        n=$(basename "$f")
        if ! NVCC_APPEND_FLAGS="$defs" "$CAIRN" build "$f.cairn" --device-target "$ARCH" --out "$o" \
                >"$o/$n.build.log" 2>&1; then
            echo "FAIL $tn: $n does not build"; sed -n 1,5p "$o/$n.build.log"; tm=1; continue
        fi
        "$o/$n" >"$o/$n.stdout" 2>"$o/$n.stderr" || tm=1
        cat "$o/$n.stdout"
    done
    for n in tile64 tile32 tile128; do
        [ "$(grep -c ' outside 0 differ ' "$o/$n.stdout" 2>/dev/null)" = 6 ] || tm=1
    done
    if [ $tm = 0 ] && grep -qx 'pads 0' "$o/run_pipeline_pads.stdout"; then echo "PASS $tn"; else
        echo "FAIL $tn"; fail=1; fi
done

# A foreign tag in the launch's word, and no word left: each launch traps with the counter's
# message (every device block prints it), and the wait aborts.
for mode in trap nowords; do
    [ -x "$OUTDIR/coop_finish" ] || break
    "$OUTDIR/coop_finish" $mode >"$OUTDIR/coop_finish.$mode.log" 2>&1
    rc=$?
    case $mode in
    trap) want='guard failed: finish counter 0 holds launch tag 12345, not this launch' ;;
    nowords) want='guard failed: no finish counter is free: all 4096 are kept by captured CUDA graphs' ;;
    esac
    if [ $rc = 134 ] && grep -qF "coop_finish.cu:1:1: $want" "$OUTDIR/coop_finish.$mode.log" &&
            grep -q 'cudaStreamSynchronize' "$OUTDIR/coop_finish.$mode.log" &&
            ! grep -q 'did not trap' "$OUTDIR/coop_finish.$mode.log"; then
        echo "PASS coop_finish $mode"
    else
        echo "FAIL coop_finish $mode: exit $rc"; tail -5 "$OUTDIR/coop_finish.$mode.log"; fail=1
    fi
done

# Device programs: the corpus's run tests, built for the GPU instead of emulated. nvcc takes most of
# the time, so every program is built first, as many at once as there are cores, then each runs alone.
mkdir -p "$OUTDIR/dev"
npass=0; nfail=0
run_tests=$(for f in tests/dev/*.cairn tests/tensor/*.cairn tests/grad/*.cairn tests/spec/d*.cairn; do
    [ -z "${ONLY:-}" ] || echo "$f" | grep -qE -- "$ONLY" || continue
    awk '!/^\/\//{exit} {print}' "$f" | grep -q '^// expect: run exit' && echo "$f"; done)
export CAIRN ARCH OUTDIR
echo "$run_tests" | xargs -P "$(nproc)" -I{} bash -c 'n=$(basename "$1" .cairn); o="$OUTDIR/dev/$n";
    "$CAIRN" build "$1" --device-target "$ARCH" --out "$o" >"$o.build.log" 2>&1; echo $? >"$o.build.rc"' _ {}
for f in $run_tests; do
    head=$(awk '!/^\/\//{exit} {print}' "$f")
    want=$(echo "$head" | sed -n 's/^\/\/ expect: run exit \([0-9]*\).*/\1/p')
    [ -n "$want" ] || continue
    name=$(basename "$f" .cairn)
    o="$OUTDIR/dev/$name"
    if [ "$(cat "$o.build.rc" 2>/dev/null)" != 0 ]; then
        echo "FAIL $f: does not build for $ARCH"; sed -n 1,5p "$o.build.log"; nfail=$((nfail + 1)); continue
    fi
    "$o/$name" >"$o.stdout" 2>"$o.stderr"; rc=$?
    why=""
    [ "$rc" = "$want" ] || why="exit $rc, expected $want"
    if [ -z "$why" ] && echo "$head" | grep -q '^// stdout:' && [ "$want" = 0 ]; then
        echo "$head" | sed -n 's|^// stdout: \{0,1\}||p' >"$o.want"
        cmp -s "$o.want" "$o.stdout" || why="stdout differs: $(diff "$o.want" "$o.stdout" | head -4 | tr '\n' ' ')"
    fi
    if [ -z "$why" ]; then
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            cat "$o.stdout" "$o.stderr" | grep -qF -- "$line" || why="output lacks: $line"
        done < <(echo "$head" | sed -n 's|^// stderr: *||p')
    fi
    if [ -z "$why" ]; then echo "PASS $f"; npass=$((npass + 1)); else echo "FAIL $f: $why"; nfail=$((nfail + 1)); fi
done
echo "device programs: $npass passed, $nfail failed"
[ $nfail = 0 ] || fail=1

# A compaction's 64-bit counts (taken past 2^32 indices) on small extents: run_scan_tiles's emitted
# file built again with the 32-bit threshold at 0 (runtime/cairn_devcoll.h, CN_DEV_COUNT32_MAX).
o="$OUTDIR/dev/run_scan_tiles"
if [ -n "${ONLY:-}" ] && ! echo tests/dev/run_scan_tiles.cairn | grep -qE -- "$ONLY"; then
    echo "SKIP run_scan_tiles with 64-bit counts and again: ONLY=$ONLY"
elif [ -f "$o/run_scan_tiles.c" ]; then
    cc=${ARCH#sm_}
    if nvcc -std=c++17 -O3 -x cu --fmad=false -gencode=arch=compute_$cc,code=$ARCH -w -Iruntime \
            -DCN_DEV_COUNT32_MAX=0 -o "$o/wide" "$o/run_scan_tiles.c" -lm -Xcompiler -pthread >"$o.wide.build.log" 2>&1; then
        awk '!/^\/\//{exit} {print}' tests/dev/run_scan_tiles.cairn | sed -n 's|^// stdout: \{0,1\}||p' >"$o.wide.want"
        "$o/wide" >"$o.wide.stdout" 2>&1
        if [ $? = 0 ] && cmp -s "$o.wide.want" "$o.wide.stdout"; then echo "PASS run_scan_tiles with 64-bit counts"
        else echo "FAIL run_scan_tiles with 64-bit counts"; diff "$o.wide.want" "$o.wide.stdout" | head -5; fail=1; fi
    else
        echo "FAIL run_scan_tiles with 64-bit counts: does not build"; head -5 "$o.wide.build.log"; fail=1
    fi
else
    echo "FAIL run_scan_tiles with 64-bit counts: no emitted file at $o/run_scan_tiles.c"; fail=1
fi

# The look-back's merges depend on timing: run_scan_tiles again and again (one run in ten once took a
# u8 scan max's tile 1 prefix from a half-written slot, evidence/2026-12-04-wide-lanes.md).
o="$OUTDIR/dev/run_scan_tiles"
if [ -x "$o/run_scan_tiles" ]; then
    awk '!/^\/\//{exit} {print}' tests/dev/run_scan_tiles.cairn | sed -n 's|^// stdout: \{0,1\}||p' >"$o.again.want"
    differ=0
    for r in $(seq 1 "${SCAN_AGAIN:-40}"); do
        "$o/run_scan_tiles" >"$o.again.stdout" 2>&1
        cmp -s "$o.again.want" "$o.again.stdout" || { differ=$((differ + 1)); diff "$o.again.want" "$o.again.stdout" | head -4; }
    done
    if [ $differ = 0 ]; then echo "PASS run_scan_tiles ${SCAN_AGAIN:-40} times, the same lines"
    else echo "FAIL run_scan_tiles: $differ of ${SCAN_AGAIN:-40} runs differ"; fail=1; fi
fi

# derive grad against torch.autograd (tests/grad/check_torch_grad.py), on the machine torch is on: the
# host and pool functions, their @device twins emulated, and the twins built for $ARCH on CUDA tensors.
# Run last, and also under ONLY when ONLY names it (the block below leaves early under ONLY).
run_grad_torch() {
    CAIRN=$PWD/bin/cairn CAIRN_CACHE="$OUTDIR/pycache" python3 tests/grad/check_torch_grad.py "$ARCH" \
        >"$OUTDIR/grad_torch.log" 2>&1
    local rc=$?
    cat "$OUTDIR/grad_torch.log"
    if [ $rc = 0 ]; then echo "PASS grad_torch"; elif [ $rc = 77 ]; then echo "SKIP grad_torch"; else echo "FAIL grad_torch"; fail=1; fi
}

# Pipelines in SASS: the H200 build of run_pipeline copies with LDGSTS (cp.async), commits with
# LDGDEPBAR and waits with DEPBAR (cp.async.wait_group), and moves no local memory.
o="$OUTDIR/dev/run_pipeline"
if [ -n "${ONLY:-}" ]; then
    echo "SKIP run_pipeline SASS, graph_cq, entry_after_trap, torch_cq, torch_binding: ONLY=$ONLY"
    skipped grad_torch || run_grad_torch
    exit $fail
elif [ -x "$o/run_pipeline" ] && command -v cuobjdump >/dev/null 2>&1; then
    cuobjdump -sass "$o/run_pipeline" >"$o.sass" 2>&1
    n_ldgsts=$(grep -c 'LDGSTS' "$o.sass"); n_dep=$(grep -c 'DEPBAR' "$o.sass"); n_local=$(grep -cE '\b(LDL|STL)\b' "$o.sass")
    echo "run_pipeline SASS: $n_ldgsts LDGSTS, $n_dep DEPBAR, $n_local LDL/STL"
    grep -oE 'LDGSTS[.A-Z0-9]*' "$o.sass" | sort | uniq -c
    if [ "$n_ldgsts" -gt 0 ] && [ "$n_dep" -gt 0 ]; then echo "PASS run_pipeline issues LDGSTS"
    else echo "FAIL run_pipeline issues no LDGSTS"; fail=1; fi
else
    echo "FAIL run_pipeline SASS: no binary at $o/run_pipeline or no cuobjdump"; fail=1
fi

# A cq_ entry in a CUDA graph.
mkdir -p "$OUTDIR/graph"
cat >"$OUTDIR/graph/smoothlib.cairn" <<'CAIRN'
fn smooth(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device, tmp:rw<f32>[n]@device) {
  parallel i in n { tmp[i] = 2.0 * x[i]; }
  parallel i in n { out[i] = tmp[i] + 1.0; }
}
fn total(n:usize, x:ro<f32>[n]@device, t:rw<f32>[1]@device) {
  reduce + t[0] parallel i in n yield x[i];
}
CAIRN
cc=${ARCH#sm_}
if "$CAIRN" build "$OUTDIR/graph/smoothlib.cairn" --header --device-target "$ARCH" --out "$OUTDIR/graph/lib" \
        >"$OUTDIR/graph/build.log" 2>&1 &&
    nvcc -std=c++17 -O2 -gencode=arch=compute_$cc,code=$ARCH -I"$OUTDIR/graph/lib" -o "$OUTDIR/graph/graph_cq" \
        tests/device/graph_cq.cu "$OUTDIR/graph/lib/libsmoothlib.a" -lcudart >>"$OUTDIR/graph/build.log" 2>&1; then
    if "$OUTDIR/graph/graph_cq" >"$OUTDIR/graph/run.log" 2>&1; then echo "PASS graph_cq"; else echo "FAIL graph_cq"; fail=1; fi
    cat "$OUTDIR/graph/run.log"
else
    echo "FAIL graph_cq: does not build"; tail -20 "$OUTDIR/graph/build.log"; fail=1
fi

# After a trapped cq_ call, the next CAIRN entry aborts.
cat >"$OUTDIR/graph/tl.cairn" <<'CAIRN'
fn g(n:usize, x:rw<u8>[n]@device) { parallel i in n { x[i] = x[i] * 16; } }
fn h(n:usize, x:rw<u8>[n]@device) { parallel i in n { x[i] = x[i] + 1; } }
CAIRN
if "$CAIRN" build "$OUTDIR/graph/tl.cairn" --header --device-target "$ARCH" --out "$OUTDIR/graph/tl" \
        >"$OUTDIR/graph/tl.build.log" 2>&1 &&
    nvcc -std=c++17 -O2 -gencode=arch=compute_$cc,code=$ARCH -I"$OUTDIR/graph/tl" -o "$OUTDIR/graph/entry_after_trap" \
        tests/device/entry_after_trap.cu "$OUTDIR/graph/tl/libtl.a" -lcudart >>"$OUTDIR/graph/tl.build.log" 2>&1; then
    "$OUTDIR/graph/entry_after_trap" >"$OUTDIR/graph/entry.log" 2>&1
    rc=$?
    cat "$OUTDIR/graph/entry.log"
    if [ $rc = 134 ] && grep -q '^synchronize reported: cudaErrorLaunchFailure' "$OUTDIR/graph/entry.log" &&
            ! grep -q 'cq_h returned' "$OUTDIR/graph/entry.log"; then
        echo "PASS entry_after_trap"
    else
        echo "FAIL entry_after_trap: exit $rc"; fail=1
    fi
else
    echo "FAIL entry_after_trap: does not build"; tail -20 "$OUTDIR/graph/tl.build.log"; fail=1
fi

# PyTorch calling the cq_ entry on its current stream: the same library, compiled shared.
if python3 -c 'import torch' >/dev/null 2>&1; then
    if nvcc -std=c++17 -O3 -x cu --fmad=false -w -gencode=arch=compute_$cc,code=$ARCH \
            -Xcompiler -fPIC,-ffp-contract=off,-fno-fast-math -shared -Iruntime \
            -o "$OUTDIR/graph/libsmoothlib.so" "$OUTDIR/graph/lib/smoothlib.c" >>"$OUTDIR/graph/build.log" 2>&1; then
        python3 tests/device/torch_cq.py "$OUTDIR/graph/libsmoothlib.so" >"$OUTDIR/graph/torch.log" 2>&1
        rc=$?
        cat "$OUTDIR/graph/torch.log"
        if [ $rc = 0 ]; then echo "PASS torch_cq"; elif [ $rc = 3 ]; then echo "SKIP torch_cq"; else echo "FAIL torch_cq"; fail=1; fi
    else
        echo "FAIL torch_cq: the shared library does not build"; tail -20 "$OUTDIR/graph/build.log"; fail=1
    fi
else
    echo "SKIP torch_cq: torch is not installed here"
fi

# The Python package on the same stream discipline, building through bin/cairn into a fresh cache.
CAIRN=$PWD/bin/cairn CAIRN_CACHE="$OUTDIR/pycache" PYTHONPATH=$PWD/python \
    python3 tests/python/check_torch.py tests/python/device_kernels.cairn "$ARCH" >"$OUTDIR/torch_binding.log" 2>&1
rc=$?
cat "$OUTDIR/torch_binding.log"
if [ $rc = 0 ]; then echo "PASS torch_binding"; elif [ $rc = 3 ]; then echo "SKIP torch_binding"; else echo "FAIL torch_binding"; fail=1; fi

skipped grad_torch || run_grad_torch
exit $fail
