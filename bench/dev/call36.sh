#!/usr/bin/env bash
# The next device call (prepared in session 28, whose device time ran out): fills by teams
# (CN_COOPD_TEAMS=1, one pad memo a team's pipelines share: never run on a GPU) and fills specialized
# to their rows' and cols' bounds (CN_COOPD_CONST_ROWS=1), alone and together, against the default,
# the exact f32 sum with a batch into one bin (CN_DSUM32_SAME=1) against the bins, the device
# suite's tile, teams, pipeline and exact-sum programs, and the sanitizers on the teams' builds.
#   bash bench/dev/call36.sh build      here: .pre/mb, mb_t1, mb_c1, mb_c1t1 (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call36.sh run OUT    on the GPU machine; OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf $P; mkdir -p $P
    . bench/dev/call35.sh lib || exit 1
    mb_build "$PWD" "$P/new" && mv "$P/new/mb" "$P/mb" || exit 1
    mb_build "$PWD" "$P/t1" -DCN_COOPD_TEAMS=1 && mv "$P/t1/mb" "$P/mb_t1" || exit 1
    mb_build "$PWD" "$P/c1" -DCN_COOPD_CONST_ROWS=1 && mv "$P/c1/mb" "$P/mb_c1" || exit 1
    mb_build "$PWD" "$P/c1t1" "-DCN_COOPD_CONST_ROWS=1 -DCN_COOPD_TEAMS=1" && mv "$P/c1t1/mb" "$P/mb_c1t1" || exit 1
    rm -rf "$P/c1" "$P/c1t1"
    BUILD_ONLY=1 bash bench/dev/scan_variants.sh $P/var "base" "same -DCN_DSUM32_SAME=1" "one64 -DCN_DSUM64_WHOLE=0" "mixed64 -DCN_DSUM64_WHOLE=2" || exit 1
    rm -rf "$P/new" "$P/t1" $P/var/*/k.o $P/var/*/*.a; du -sh $P; exit 0
fi
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
OUT=${2:?usage: bench/dev/call36.sh run OUT}; mkdir -p "$OUT/l"
P=.pre L=$OUT/l B=/tmp/c36
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p "$L/var"; cp -r $P/var/. "$L/var/"   # the f32 sum: a batch in one bin with one add (CN_DSUM32_SAME);
# the f64 sum: batches the window takes whole added with no branch (the default) against term by term,
# and with any batch free of infinities and NaNs to the window and the digits at once (CN_DSUM64_WHOLE=2)
ROWS='^sum_f' REPS=9 VARGS="--log2 24,26,28 --only sum_f32,sum_f32_wide,sum_f64,sum_f64_wide" NOBUILD=1 \
    timeout 150 bash bench/dev/scan_variants.sh "$L/var" "base" "same -DCN_DSUM32_SAME=1" "one64 -DCN_DSUM64_WHOLE=0" "mixed64 -DCN_DSUM64_WHOLE=2" >"$L/variants.log" 2>&1
echo "1. sums: exit $? at ${SECONDS}s"; cat "$L/var/variants.txt"; rm -f "$L"/var/*/coll_bench
for v in mb mb_t1 mb_c1 mb_c1t1 mb; do
    timeout 40 $P/$v --only tile64,tile32,tile128,mma_unordered --reps 5 >>"$L/$v.log" 2>&1
    echo "2. $v: exit $? at ${SECONDS}s"; tail -14 "$L/$v.log" | grep -E 'cublas|tile|mma_unordered'
done
ONLY='tile|teams|constrows|padmemo|run_pipeline|exact_sum' SKIP="float_agree math_agree" timeout 240 bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "3. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head
for t in memcheck racecheck synccheck; do   # tile64 and tile128 (six shapes each) with teams and bounds
    for c in teams constrows_teams; do
        for n in tile64 tile128; do
            x=$B/dev/$c/$n; [ -x "$x" ] || continue
            [ $SECONDS -lt ${LIMIT:-470} ] || { echo "4. $t $c $n: no time left"; continue; }
            timeout 90 compute-sanitizer --tool $t --error-exitcode 9 "$x" >"$L/san.$t.$c.$n.txt" 2>&1
            echo "4. $t $c $n: exit $? at ${SECONDS}s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san.$t.$c.$n.txt" | tail -1)"
        done
    done
done
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
