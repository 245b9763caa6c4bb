#!/usr/bin/env bash
# Session 28's last device call (a short one: 364 s of device time left): the default build (teams,
# one pad memo for a team's pipelines) against the tree with teams off, the tile and pipeline
# programs of the device suite and run_pipeline* under the sanitizers.
#   bash bench/dev/call36.sh build      here: .pre/mb and .pre/mb_t0 (carry .pre, bin/cairn, .devlib)
#   bash bench/dev/call36.sh run OUT    on the GPU machine; OUT/all.tgz
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" = build ]; then
    P=$PWD/.pre; rm -rf $P; mkdir -p $P
    . bench/dev/call35.sh lib || exit 1
    mb_build "$PWD" "$P/new" && mv "$P/new/mb" "$P/mb" || exit 1
    mb_build "$PWD" "$P/t0" -DCN_COOPD_TEAMS=0 && mv "$P/t0/mb" "$P/mb_t0" || exit 1
    rm -rf "$P/new" "$P/t0"; du -sh $P; exit 0
fi
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
OUT=${2:?usage: bench/dev/call36.sh run OUT}; mkdir -p "$OUT/l"
P=.pre L=$OUT/l B=/tmp/c36
nvidia-smi --query-gpu=name --format=csv,noheader
for v in mb_t0 mb; do
    timeout 30 $P/$v --only tile64,tile32,tile128 --reps 5 >"$L/$v.log" 2>&1
    echo "1. $v: exit $? at ${SECONDS}s"; grep -E 'cublas  *f16|tile' "$L/$v.log"
done
ONLY='tile|padmemo|run_pipeline' SKIP="float_agree math_agree" timeout 100 bash tests/device/run.sh $B >"$L/suite.txt" 2>&1
echo "2. suite: exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep '^FAIL' "$L/suite.txt" | head
SAN_ONLY='run_pipeline' SAN_LIMIT=30 timeout 60 bash tests/device/sanitize.sh $B >"$L/san.txt" 2>&1
echo "3. sanitizers: exit $? ($(grep -c '^PASS' "$L/san.txt") PASS, $(grep -c '^FAIL' "$L/san.txt") FAIL) at ${SECONDS}s"
grep -E '^FAIL' "$L/san.txt" | head; tail -1 "$L/san.txt"
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
