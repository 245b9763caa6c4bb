#!/usr/bin/env bash
# The runtime's threaded pieces under the sanitizers, in every `make test`: the exact sum
# (tests/unit/test_sum.c) under ASan+UBSan and under TSan, the lane pool (tests/unit/test_pool.c)
# under TSan, and cooperative regions (tests/unit/test_coop.c) under TSan, with a racy region TSan
# must report (tests/unit/coop_tsan.sh). The fuller sweep (both compilers, scalar and vector kinds) is
# `bash tests/unit/sum_sanitizers.sh`. Prints `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
CCS=cc KINDS=vector bash tests/unit/sum_sanitizers.sh >"$log" 2>&1
sum_rc=$?
grep -E '^(FAIL|ok|PASS)' "$log" | sed 's/^/sum: /'
bash tests/unit/pool_tsan.sh >>"$log" 2>&1
pool_rc=$?
bash tests/unit/coop_tsan.sh >>"$log" 2>&1
coop_rc=$?
p=0; f=0
[ $sum_rc = 0 ] && p=$((p + 1)) || { f=$((f + 1)); echo "FAIL exact sum under sanitizers"; tail -20 "$log"; }
[ $pool_rc = 0 ] && p=$((p + 1)) || { f=$((f + 1)); echo "FAIL pool under TSan"; tail -20 "$log"; }
[ $coop_rc = 0 ] && p=$((p + 1)) || { f=$((f + 1)); echo "FAIL cooperative regions under TSan"; tail -20 "$log"; }
echo "$p passed, $f failed, 0 skipped"
[ $f = 0 ]
