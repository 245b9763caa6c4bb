#!/usr/bin/env bash
# A lean device call for a short budget (session 29: five failed starts left 640 s): everything is
# built here, the GPU machine only runs. The exact sums (bench/dev/scan_variants.sh variants: the f32
# batch into one bin CN_DSUM32_SAME=1, 16-byte loads CN_DSUM_VEC=1, the f64 term by term
# CN_DSUM64_WHOLE=0 and mixed batches CN_DSUM64_WHOLE=2, and all three new ones at once, against
# the defaults), the multiplies at the defaults, with teams and with teams
# and bounds (mma_bench, mma_unordered too), the fragment programs and run_pipeline_pads with teams
# and with teams and bounds (tests/device/run.sh's criteria: six shapes each with nothing outside and
# nothing differing, no pad left), run_exact_sum with the f64 sum's default and mixed batches and with
# 16-byte loads (its expected stdout), and memcheck and racecheck on teams' tile128 and run_exact_sum.
#   bash bench/dev/call37.sh build      here (after bench/dev/call36.sh build: .pre/mb*): .pre/var, .pre/dev
#   bash bench/dev/call37.sh run OUT    on the GPU machine; then here: python3 bench/dev/report37.py $OUT
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
VARS=("base" "same -DCN_DSUM32_SAME=1" "vec -DCN_DSUM_VEC=1" "one64 -DCN_DSUM64_WHOLE=0" "mixed64 -DCN_DSUM64_WHOLE=2"
      "all -DCN_DSUM_VEC=1 -DCN_DSUM32_SAME=1 -DCN_DSUM64_WHOLE=2")
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf "$P/var"
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh "$P/var" "${VARS[@]}" || exit 1
    rm -f "$P"/var/*/k.o "$P"/var/*/*.a
    D=$PWD/.pre/dev; rm -rf "$D"; mkdir -p "$D"
    for cfg in "teams -DCN_COOPD_TEAMS=1" "constrows_teams -DCN_COOPD_CONST_ROWS=1 -DCN_COOPD_TEAMS=1" \
               "sum -DCN_DSUM64_WHOLE=1" "mixed64 -DCN_DSUM64_WHOLE=2" "vec -DCN_DSUM_VEC=1"; do
        read -r tn defs <<<"$cfg"
        case $tn in teams|constrows_teams) fs="tests/dev/run_pipeline_pads examples/tensor/tile64 examples/tensor/tile32 examples/tensor/tile128" ;;
                    *) fs="tests/dev/run_exact_sum" ;; esac
        for f in $fs; do
            ( NVCC_APPEND_FLAGS="$defs" "$CAIRN" build "$f.cairn" --device-target sm_90a --out "$D/$tn/$(basename $f)" \
                >"$D/$tn.$(basename $f).log" 2>&1 || echo "BUILD FAIL $tn $f" ) &
        done
    done
    wait
    find "$D" -name '*.o' -o -name '*.c' -o -name '*.a' | xargs rm -f
    du -sh "$D"; exit 0
fi
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
OUT=${2:?usage: bench/dev/call37.sh run OUT}; L=$OUT/l; mkdir -p "$L"
P=.pre D=.pre/dev
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"
ROWS='^sum_f' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide" NOBUILD=1 \
    timeout 170 bash bench/dev/scan_variants.sh "$L/var" "${VARS[@]}" >"$L/variants.log" 2>&1
echo "1. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt"
# Where each fold's warps wait (Nsight Compute's stall reasons, per issued instruction's warp), at 2^26:
# the f32 bins and one-bin batches, the f64 whole and mixed batches on data over the whole range too.
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle barrier not_selected selected no_instruction dispatch_stall drain branch_resolving membar tex_throttle imc_miss; do M=$M,smsp__warp_issue_stalled_${r}_per_warp_active.pct; done
for r in "base sum_f32" "same sum_f32" "vec sum_f32" "base sum_f64" "base sum_f64_wide" "mixed64 sum_f64_wide" "one64 sum_f64"; do
    read -r v w <<<"$r"
    [ $SECONDS -lt 230 ] || { echo "1b. ncu $v $w: no time left"; continue; }
    timeout 40 ncu -k regex:fold_kernel --launch-skip 2 --launch-count 1 --metrics "$M" "$L/var/$v/coll_bench" \
        --log2 26 --reps 1 --only "$w" >"$L/ncu.$v.$w.txt" 2>&1
    echo "1b. ncu $v $w: exit $? at ${SECONDS}s"
    grep -E 'gpu__time|dram__|inst_executed|warps_active' "$L/ncu.$v.$w.txt" | awk '{print "   ", $1, $(NF)}'
    grep -E 'stalled' "$L/ncu.$v.$w.txt" | awk '$NF + 0 >= 5 {print "   ", $1, $NF}'
done
rm -f "$L"/var/*/coll_bench
for v in mb mb_t1 mb_c1t1; do
    timeout 40 $P/$v --only tile64,tile32,tile128,mma_unordered --reps 5 >>"$L/$v.log" 2>&1
    echo "2. $v: exit $? at ${SECONDS}s"; tail -14 "$L/$v.log" | grep -E 'cublas|tile|mma_unordered'
done
for tn in teams constrows_teams; do   # tests/device/run.sh's criteria
    ok=0
    for n in run_pipeline_pads tile64 tile32 tile128; do
        x=$D/$tn/$n/$n; [ -x "$x" ] || { echo "3. $tn $n: not built"; ok=1; continue; }
        timeout 60 "$x" >"$L/$tn.$n.out" 2>&1 || { echo "3. $tn $n: exit $?"; ok=1; }
    done
    for n in tile64 tile32 tile128; do
        [ "$(grep -c ' outside 0 differ ' "$L/$tn.$n.out" 2>/dev/null)" = 6 ] || { echo "3. $tn $n: not 6 clean shapes"; ok=1; }
    done
    grep -qx 'pads 0' "$L/$tn.run_pipeline_pads.out" || { echo "3. $tn pads: a pad left"; ok=1; }
    [ $ok = 0 ] && echo "3. PASS $tn at ${SECONDS}s" || echo "3. FAIL $tn at ${SECONDS}s"
done
awk '!/^\/\//{exit} {print}' tests/dev/run_exact_sum.cairn | sed -n 's|^// stdout: \{0,1\}||p' >"$L/exact.want"
for tn in sum mixed64 vec; do
    x=$D/$tn/run_exact_sum/run_exact_sum
    timeout 60 "$x" >"$L/exact.$tn.out" 2>&1; rc=$?
    if [ $rc = 0 ] && cmp -s "$L/exact.want" "$L/exact.$tn.out"; then echo "4. PASS run_exact_sum $tn ($(wc -l <"$L/exact.want") lines)";
    else echo "4. FAIL run_exact_sum $tn: exit $rc, $(diff "$L/exact.want" "$L/exact.$tn.out" | head -3 | tr '\n' ' ')"; fi
done
for t in memcheck racecheck; do
    for x in $D/teams/tile128/tile128 $D/constrows_teams/tile128/tile128 $D/mixed64/run_exact_sum/run_exact_sum \
             $D/vec/run_exact_sum/run_exact_sum; do
        [ $SECONDS -lt ${LIMIT:-340} ] || { echo "5. $t $x: no time left"; continue; }
        n=$(echo "$x" | tr '/' '_')
        timeout 60 compute-sanitizer --tool $t --error-exitcode 9 "$x" >"$L/san.$t.$n.txt" 2>&1
        echo "5. $t $x: exit $? at ${SECONDS}s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san.$t.$n.txt" | tail -1)"
    done
done
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
