#!/usr/bin/env bash
# examples/ddp on the CPU (issue 20): the training script with the gloo backend, CPU tensors and the
# CAIRN layer norm, as 1 process and twice as 2 processes over the same global batch, once as 2
# processes through the emulated device functions, and once with torch's layer norm; then
# check_ddp.py compares them and holds the layer norm to torch.autograd. Skipped without torch.
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
if ! python3 -c "import torch, torch.distributed" 2>/dev/null; then
    echo "SKIP ddp: torch is not installed"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
export CAIRN=$PWD/bin/cairn
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CAIRN_CACHE=$T/cache
fail=0
run() {   # run NAME ARGS...
    local name=$1; shift
    if ! timeout 300 python3 examples/ddp/train.py "$@" --out "$T/$name.json" >"$T/$name.log" 2>&1; then
        echo "FAIL ddp: train.py $* exited $?: $(tail -3 "$T/$name.log")"
        fail=1
    fi
}
run one_cpu --nproc 1 --device cpu
run two_cpu_a --nproc 2 --device cpu
run two_cpu_b --nproc 2 --device cpu
run two_emulate --nproc 2 --device emulate
run one_torch --nproc 1 --device cpu --impl torch
python3 tests/python/check_ddp.py "$T" >"$T/check" 2>&1
rc=$?
cat "$T/check" | grep -E '^(FAIL|check_ddp: loss)'
if [ $rc = 3 ]; then
    echo "0 passed, 0 failed, 1 skipped"
elif [ $rc = 0 ] && [ $fail = 0 ]; then
    echo "1 passed, 0 failed, 0 skipped"
else
    case $rc in 0|1) ;; *) tail -3 "$T/check" ;; esac
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
