#!/usr/bin/env bash
# One device call for what sessions 19 and 20 built without a GPU (issues 16, 18, 19), in the order
# the notes give, each step's log under OUT; under 10 minutes on an H100/H200 with bin/cairn carried:
#   1. the tensor cores and derive grad on the GPU: tests/tensor and tests/grad programs, mma_contract,
#      tile64, tile32 and grad_torch (tests/device/run.sh with ONLY)
#   2. the multiplies against cuBLAS at 4096^3 and 8192^3 (bench/dev/mma_run.sh, one run)
#   3. f against f_grad on the GPU at 2^20 and 2^24 (bench/grad/dev_run.sh)
#   4. the scan, compaction and exact-sum programs again (the tile-prefix refactor of session 19 has
#      not run on a GPU) with the one-read compaction built in, then the variants (issue 16)
#   bash bench/dev/next_call.sh OUT
set -u
OUT=${1:?usage: bench/dev/next_call.sh OUT}
mkdir -p "$OUT"
W=/tmp/ncall; mkdir -p $W   # work folders stay on the device machine: at most 8 files come back
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
SKIP="float_agree math_agree" ONLY='tensor|grad|mma_contract|tile64|tile32|grad_torch' \
    timeout 200 bash tests/device/run.sh "$W/suite" >"$OUT/suite.log" 2>&1
echo "suite: exit $? ($(grep -c '^PASS' "$OUT/suite.log") PASS, $(grep -c '^FAIL' "$OUT/suite.log") FAIL)"
grep -E '^FAIL' "$OUT/suite.log" | head -20
RUNS=1 BENCH_ARGS="--reps 7" timeout 150 bash bench/dev/mma_run.sh "$W/mma" >"$OUT/mma.log" 2>&1
echo "mma: exit $?"; grep -vE '^#|^run' "$OUT/mma.log" | head -20
timeout 45 bash bench/grad/dev_run.sh >"$OUT/grad.log" 2>&1
echo "grad: exit $?"; cat "$OUT/grad.log"
# examples/ddp on the GPU: one process (NCCL), the CAIRN layer norm's device functions; its loss
# beside a CPU run's (issue 20's two-GPU run needs a two-GPU machine)
timeout 60 python3 examples/ddp/train.py --nproc 1 --device cuda --steps 60 --out "$OUT/ddp_cuda.json" >"$W/ddp.log" 2>&1
echo "ddp cuda: exit $?"; tail -3 "$W/ddp.log"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('ddp cuda:', d['gpu'], 'loss', d['losses'][0], '->', d['losses'][-1], 'step %.3f ms' % d['step_ms_median'])" "$OUT/ddp_cuda.json" 2>&1
SKIP="float_agree math_agree" ONLY='compact|scan_tiles|exact_sum' SCAN_AGAIN=10 \
    timeout 100 bash tests/device/run.sh "$W/suite16" >"$OUT/suite16.log" 2>&1
echo "suite16: exit $? ($(grep -c '^PASS' "$OUT/suite16.log") PASS, $(grep -c '^FAIL' "$OUT/suite16.log") FAIL)"
tar -czf "$OUT/work.tgz" -C $W . 2>/dev/null; ls -la "$OUT"
