#!/usr/bin/env bash
# Session 26's short device call, for when little device time is left: call28's binaries (build them
# with `bash bench/dev/call28.sh build`), the essentials first.
#   bash bench/dev/call29.sh run OUT      on the GPU machine (LIMIT s, default 200); OUT/all.tgz
#   1. the device suite's pipeline and tensor programs (the pad skip, the merged waits, tile128);
#   2. mma_bench: tile64 and tile128 against cuBLAS; 3. tile64 with the pad skip, and with 4 blocks.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
OUT=${2:?usage: bench/dev/call29.sh run OUT}; mkdir -p "$OUT/l"
LIMIT=${LIMIT:-200} P=.pre L=$OUT/l
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1
ONLY="${C29_ONLY:-pipeline|fill|tile64|tile32|tile128|frag|tensor|padmemo}" timeout $((LIMIT - 80)) bash tests/device/run.sh /tmp/c29suite \
    >"$L/suite.txt" 2>&1
echo "suite (pipelines, tensor): exit $? ($(grep -c '^PASS' "$L/suite.txt") PASS, $(grep -c '^FAIL' "$L/suite.txt") FAIL) at ${SECONDS}s"
grep -E '^(FAIL|PASS)' "$L/suite.txt" | head -40
timeout $((LIMIT - SECONDS - 30 > 60 ? 60 : LIMIT - SECONDS - 30)) $P/mb --only tile64,tile128 --reps 5 >"$L/mma_bench.log" 2>&1
echo "mma_bench: exit $? at ${SECONDS}s"; grep -E 'cublas|tile' "$L/mma_bench.log"
for v in memo minb4; do
    [ $((LIMIT - SECONDS)) -gt 20 ] || break
    timeout 18 $P/mb_$v --only tile64 --sizes 4096 --reps 5 >"$L/mma_bench_$v.log" 2>&1
    echo "tile64 $v: exit $? at ${SECONDS}s"; grep -E 'cublas|tile' "$L/mma_bench_$v.log"
done
tar -czf "$OUT/all.tgz" -C "$OUT" l && rm -rf "$L"
exit 0
