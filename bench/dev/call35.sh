#!/usr/bin/env bash
# Session 28's device call: the leaner row fill (32-bit fill check, the region's threads a template
# argument, a two-word pad memo, a team of warps a pipeline) and the thread-count assumption (fragment
# coordinate checks fold), timed against the tree before them in one run, then where tile128's step goes now, the whole
# device suite and the sanitizers.
#   bash bench/dev/call35.sh build [OLD]  here: .pre/mb (this tree), .pre/mb_t1 (this tree with
#                                         -DCN_COOPD_TEAMS=1: a team of warps a pipeline) and .pre/mb_old (commit
#                                         OLD, default HEAD, built in a worktree); carry .pre, bin/cairn, .devlib
#   bash bench/dev/call35.sh run OUT      on the GPU machine (LIMIT s, default 560); OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
GC="-gencode=arch=compute_90a,code=sm_90a"
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
NVF="-std=c++17 -O3 -x cu --fmad=false $GC -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing -w"
mb_build() {   # mb_build TREE OUT [DEFS]: mma_bench with TREE's compiler and runtime, the tiles built with DEFS
    local T=$1 O=$2 D=${3:-} f n
    mkdir -p "$O/lib"
    for f in bench/dev/mma_kernels examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128 examples/tensor/tile128d examples/tensor/tile128w; do
        (cd "$T" && bin/cairn build "$f.cairn" --header --device-target sm_90a --out "$O/lib") >/dev/null || return 1
    done
    nvcc $NVF -I"$T/runtime" -c "$O/lib/mma_kernels.c" -o "$O/k.o" || return 1
    for n in tile64 tile32 tile128 tile128d tile128w; do
        nvcc $NVF $D -I"$T/runtime" -c "$O/lib/$n.c" -o "$O/$n.o" -Xptxas -v 2>"$O/ptxas_$n.txt" || return 1
        echo "$O $n: $(grep -o 'Used [0-9]* registers' "$O/ptxas_$n.txt" | tr '\n' ' ')"
    done
    nvcc -std=c++17 -O3 --fmad=false $GC -I"$O/lib" -I"$T/runtime" -I"$T/bench/dev" -o "$O/mb" "$T/bench/dev/mma_bench.cu" \
        "$O/k.o" "$O/tile64.o" "$O/tile32.o" "$O/tile128.o" "$O/tile128d.o" "$O/tile128w.o" -lcublas -lcudart
}
[ "${1:-}" = lib ] && return 0   # sourced for mb_build (bench/dev/call36.sh)
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf $P; mkdir -p $P
    W=$(mktemp -d); git worktree add -q --detach "$W/t" "${2:-HEAD}" || exit 1
    (cd "$W/t" && make -j8 >/dev/null 2>&1) || exit 1
    mb_build "$W/t" "$P/old" && mv "$P/old/mb" "$P/mb_old" || exit 1
    git worktree remove --force "$W/t"; rm -rf "$W" "$P/old"
    mb_build "$PWD" "$P/new" && mv "$P/new/mb" "$P/mb" || exit 1
    mb_build "$PWD" "$P/t1" -DCN_COOPD_TEAMS=1 && mv "$P/t1/mb" "$P/mb_t1" || exit 1
    rm -rf "$P/new" "$P/t1"; du -sh $P; exit 0
fi
OUT=${2:?usage: bench/dev/call35.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-560} P=.pre L=$OUT/l B=/tmp/c35
left() { echo $((LIMIT - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
for r in $(seq 1 ${RUNS:-2}); do   # old and new alternately
    for v in mb_old mb mb_t1; do
        timeout 40 $P/$v --only tile64,tile32,tile128 --reps 7 >"$L/$v.$r.log" 2>&1
        echo "1. $v run $r: exit $? at ${SECONDS}s"; grep -E 'cublas  *f16|tile' "$L/$v.$r.log"
    done
done
timeout 60 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --section SourceCounters --page source \
    --print-source sass --csv $P/mb --only tile128 --sizes 4096 --reps 1 >"$L/ncu.t128src.csv" 2>&1
echo "2. ncu tile128 source: exit $? at ${SECONDS}s ($(wc -l <"$L/ncu.t128src.csv") lines)"
[ -n "${NCU_T1:-}" ] && timeout 60 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --section SourceCounters \
    --page source --print-source sass --csv $P/mb_t1 --only tile128 --sizes 4096 --reps 1 >"$L/ncu.t128t1src.csv" 2>&1
echo "   ncu tile128 (teams) source: exit $? at ${SECONDS}s"
ONLY=${SUITE_ONLY:-} SKIP="float_agree math_agree" timeout $(( $(left) - ${SAN_TIME:-110} > 30 ? $(left) - ${SAN_TIME:-110} : 30 )) bash tests/device/run.sh $B \
    >"$L/suite.txt" 2>&1
echo "3. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head; tail -1 "$L/suite.txt"
SAN_ONLY=${SAN_ONLY:-'pipeline|frag|coop|wide'} SAN_LIMIT=30 timeout $(( $(left) - 10 > 10 ? $(left) - 10 : 10 )) \
    bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "4. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^FAIL' "$L/san.txt" | head; tail -1 "$L/san.txt"
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
