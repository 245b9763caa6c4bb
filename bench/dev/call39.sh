#!/usr/bin/env bash
# Session 31's device call. Issue 18 first, since an H200 may come: the multiplies against cuBLAS,
# and one diagnostic build of the fragment programs whose pipelined loop makes no fills (each in-loop
# fill replaced by an empty cp.async group, so the waits keep their counts; the products are wrong,
# mma_bench says how many lie outside the bound): the step's multiply, waits and barriers alone, the
# ceiling a leaner fill could reach. Then Nsight Compute's stall reasons for tile128's fast kernel, the
# exact sums with bigger batches and a hot bin in a register (CN_DSUM32_HOT) against CUB, the whole device suite and the
# sanitizers on the defaults.
#   bash bench/dev/call39.sh build     here: call38.sh's build, then .pre/mb_nofill (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call39.sh run OUT   on the GPU machine (LIMIT s, default 500); OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
SUMVARS=${SUMVARS:-$'base\nhot -DCN_DSUM32_HOT=1\nhot16 -DCN_DSUM32_HOT=1 -DCN_DSUM32_U=16\nu16 -DCN_DSUM32_U=16\nu32 -DCN_DSUM32_U=32\nu64 -DCN_DSUM64_U=32'}
export SUMVARS
if [ "${1:-}" = build ]; then
    [ -n "${NF_ONLY:-}" ] || bash bench/dev/call38.sh build || exit 1
    . bench/dev/call35.sh lib || exit 1
    P=$PWD/.pre O=$PWD/.pre/nf
    mb_build "$PWD" "$O" || exit 1
    # the loop's fills (each fill's second occurrence in the emitted text: the first is the prologue's)
    for n in tile64 tile32 tile128 tile128d tile128w; do
        awk '/cn_coopd_fill_rows</ { k = $0; sub(/^[ \t]+/, "", k); if (seen[k]++) { sub(/cn_coopd_fill_rows<.*$/, "cn_coopd_commit(); /* call39: no fill */"); n++ } }
             { print } END { if (n < 2) exit 1 }' "$O/lib/$n.c" >"$O/lib/$n.nf.c" || { echo "no loop fills in $n"; exit 1; }
        nvcc $NVF -I"$PWD/runtime" -c "$O/lib/$n.nf.c" -o "$O/$n.o" || exit 1
    done
    nvcc -std=c++17 -O3 --fmad=false $GC -I"$O/lib" -I"$PWD/runtime" -I"$PWD/bench/dev" -o "$P/mb_nofill" \
        "$PWD/bench/dev/mma_bench.cu" "$O/k.o" "$O/tile64.o" "$O/tile32.o" "$O/tile128.o" "$O/tile128d.o" "$O/tile128w.o" -lcublas -lcudart || exit 1
    rm -rf "$O"; du -sh "$P"; exit 0
fi
. bench/dev/call_run.sh call39 "${2:-}" 500
for v in mb mb_nofill; do
    timeout 60 $P/$v --only tile64,tile32,tile128,tile128d,mma_unordered --reps 5 >"$L/$v.log" 2>&1
    echo "1. $v: exit $? at ${SECONDS}s"; grep -E 'cublas|tile|mma_unordered' "$L/$v.log"
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors.sum
for r in long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle barrier not_selected selected branch_resolving dispatch_stall no_instruction; do
    M=$M,smsp__warp_issue_stalled_${r}_per_warp_active.pct
done
for vt in mb:tile128 mb_nofill:tile128 mb:tile128d; do
    v=${vt%%:*} t=${vt#*:}
    timeout 40 ncu -k regex:cn_coop --launch-skip 1 --launch-count 1 --metrics "$M" $P/$v --only $t --sizes 4096 \
        --reps 1 >"$L/ncu.$v.$t.txt" 2>&1
    echo "2. ncu $v $t: exit $? at ${SECONDS}s"
    grep -E 'gpu__time|inst_executed|warps_active|hmma|lts__t' "$L/ncu.$v.$t.txt" | awk '{print "   ", $1, $(NF)}'
    grep -E 'stalled' "$L/ncu.$v.$t.txt" | awk '$NF + 0 >= 3 {print "   ", $1, $NF}'
done
# the sums, the suite and the sanitizers: call38.sh's run, in what is left
MB_SKIP=1 LIMIT=$(( $(left) > 60 ? $(left) : 60 )) SUM_TIME=${SUM_TIME:-150} NCU_VARS="${NCU_VARS:-hot u16}" bash bench/dev/call38.sh run "$OUT/c38"
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
