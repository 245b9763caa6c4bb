#!/usr/bin/env bash
# bench/grad (derive grad's cost) builds and its check passes at a small size: loss_grad returns loss's
# value and its d_w is 2 (w x - y) x at every one of 2^12 terms. Prints `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
out=$(CAIRN=${CAIRN:-bin/cairn} bash bench/grad/run.sh 12 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -qE '^4096 [0-9.]+ [0-9.]+ [0-9.]+$'; then
    echo "1 passed, 0 failed, 0 skipped"
else
    echo "FAIL grad_bench: exit $rc: $out" | head -5
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
