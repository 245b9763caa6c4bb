#!/usr/bin/env bash
# The passes depend on the passes before them, not in circles (issue 12): tools/file_cycles.py over the
# compiler's objects. The checker's and the emitter's expression walkers call each other by nature
# (check*.c 5 files; emit*.c 6 with the cooperative lowering): fewer than the 13 before the pass list,
# so at most 12; the core, the race rule, the effect rows, the parallel, cooperative and device rules,
# the analysis and the pass list are in none.
set -u
cd "$(dirname "$0")/../.."
OBJ=build/obj-cc
[ -d "$OBJ/src" ] || { echo "0 passed, 0 failed, 1 skipped"; exit 0; }
out=$(python3 tools/file_cycles.py "$OBJ")
pass=0; fail=0
files=$(echo "$out" | sed -n 's/^cycles: [0-9]* groups, \([0-9]*\) files$/\1/p')
if [ -n "$files" ] && [ "$files" -le 12 ]; then pass=$((pass + 1)); else echo "FAIL files in circles: ${files:-?} (at most 12)"; echo "$out"; fail=$((fail + 1)); fi
for f in sym race effects check_par check_dev check_coop coop_phase coop_global analyze pass walk; do
    if echo "$out" | grep -v '^cycles:' | grep -q "src/$f\.c"; then
        echo "FAIL src/$f.c is in a circle of files:"; echo "$out" | grep "src/$f\.c"; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
