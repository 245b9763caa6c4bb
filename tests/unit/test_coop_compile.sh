#!/usr/bin/env bash
# The device programs of cooperative regions (tests/device/coop_grid.cu, coop_finish.cu, run on a
# GPU by tests/device/run.sh) build here with nvcc for sm_90a, and their device code is what
# runtime/cairn_coopdev.h promises:
#   - no 64-bit division or remainder anywhere in the PTX (block names come from dividers: mul.hi);
#   - the kernel with a finish fences (membar.gl), counts with a 64-bit compare-and-swap, puts its
#     word back with an exchange, and has the counter's trap;
#   - the header alone compiles as CUDA without a finish (no trap, no counter atomics in that PTX).
# The host builds (cc -DCAIRN_EMULATE, -DCAIRN_COUNT, g++) are tests/unit/test_coop_table.c and
# test_divider.c. Without nvcc every check is skipped.
#
#   bash tests/unit/test_coop_compile.sh     prints FAIL/SKIP lines and `N passed, N failed, N skipped`
set -u
cd "$(dirname "$0")/../.."
DIR=build/coop_compile
mkdir -p "$DIR"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "${2:-}" ] && sed 's/^/    /' "$2" | head -20; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "SKIP coop_compile: no nvcc"
    echo "0 passed, 0 failed, 5 skipped"
    exit 0
fi
ARCH="-gencode=arch=compute_90a,code=sm_90a"
for t in coop_grid coop_finish; do
    # both at once: nvcc takes most of the time
    ( "$NVCC" -std=c++17 -O2 $ARCH -Iruntime -Xcompiler -Wall,-Wextra,-Werror -o "$DIR/$t" \
        "tests/device/$t.cu" >"$DIR/$t.log" 2>&1; echo $? >"$DIR/$t.rc" ) &
    ( "$NVCC" -std=c++17 -O2 $ARCH -Iruntime -ptx -o "$DIR/$t.ptx" "tests/device/$t.cu" \
        >"$DIR/$t.ptx.log" 2>&1; echo $? >"$DIR/$t.ptx.rc" ) &
    wait
done
for t in coop_grid coop_finish; do
    if [ "$(cat "$DIR/$t.rc")" = 0 ] && [ "$(cat "$DIR/$t.ptx.rc")" = 0 ]; then ok; else
        bad "$t.cu does not build with nvcc for sm_90a" "$DIR/$t.log"; fi
done
ptx_has() { grep -q -- "$2" "$DIR/$1.ptx" 2>/dev/null; }
if ptx_has coop_grid 'mul.hi.u64' && ptx_has coop_finish 'mul.hi.u64' &&
        ! ptx_has coop_grid 'div\.[us]64\|rem\.[us]64' && ! ptx_has coop_finish 'div\.[us]64\|rem\.[us]64'; then
    ok; else bad "block names: a 64-bit division in the PTX, or no multiply-high"; fi
if ptx_has coop_finish 'membar.gl' && ptx_has coop_finish 'atom.global.cas.b64' &&
        ptx_has coop_finish 'atom.global.exch.b64' && ptx_has coop_finish 'trap;'; then
    ok; else bad "the finish kernel lacks its fence, count, reset or trap"; fi
if ! ptx_has coop_grid 'atom.global.cas.b64' && ! ptx_has coop_grid 'trap;'; then
    ok; else bad "a region without a finish counts or traps"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
