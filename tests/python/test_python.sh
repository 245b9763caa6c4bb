#!/usr/bin/env bash
# The Python binding (python/cairn, issue 15): tests/python/check_binding.py on host functions in a
# fresh cache, then two processes loading one new source into another fresh cache at once (both
# must succeed with the same build and leave no partial directory). Prints FAIL lines and
# `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
export CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
if CAIRN_CACHE=$T/cache python3 tests/python/check_binding.py tests/python/kernels.cairn >"$T/out" 2>&1; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); grep FAIL "$T/out" || tail -5 "$T/out"
fi
# CPU torch, where it is installed: the op and torch.compile (exit 3 is a skip)
CAIRN_CACHE=$T/cache python3 tests/python/check_torch_cpu.py tests/python/kernels.cairn tests/python/device_kernels.cairn >"$T/out" 2>&1
case $? in
    0) pass=$((pass + 1)) ;;
    3) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); grep FAIL "$T/out" || tail -5 "$T/out" ;;
esac
# the examples under examples/kernels, emulated on CPU tensors (exit 3 is a skip: no torch)
CAIRN_CACHE=$T/cache python3 tests/python/check_examples.py >"$T/out" 2>&1
case $? in
    0) pass=$((pass + 1)) ;;
    3) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); grep FAIL "$T/out" || tail -5 "$T/out" ;;
esac
# pip install from the checkout (offline: no build isolation, no index), then a load through it.
# Building the wheel needs setuptools with bdist_wheel: its own from 70.1, the wheel package before.
if python3 -c "import setuptools, sys
v = tuple(int(p) for p in setuptools.__version__.split('.')[:2] if p.isdigit())
if v < (70, 1): import wheel" 2>/dev/null && python3 -m pip --version >/dev/null 2>&1; then
    cp -r python "$T/src"   # a copy: setuptools writes build/ and egg-info beside the sources
    if python3 -m pip install -q --no-deps --no-build-isolation --no-index --target "$T/site" "$T/src" >"$T/pip" 2>&1 &&
        [ "$(cd "$T" && PYTHONPATH=$T/site CAIRN_CACHE=$T/cache3 python3 -c "import cairn, sys
assert cairn.__file__.startswith(sys.argv[1]), cairn.__file__
print(cairn.load(sys.argv[2]).add3(1, 2, 3))" "$T/site" "$OLDPWD/tests/python/kernels.cairn" 2>&1)" = 6 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL python: pip install ./python, then cairn.load: $(tail -3 "$T/pip")"
    fi
else
    skip=$((skip + 1))
fi
cp tests/python/kernels.cairn "$T/twice.cairn"
for i in 1 2; do
    CAIRN_CACHE=$T/cache2 python3 -c "import cairn, sys; print(cairn.load(sys.argv[1]).directory)" "$T/twice.cairn" >"$T/c$i" 2>&1 &
done
wait
if [ -s "$T/c1" ] && cmp -s "$T/c1" "$T/c2" && [ "$(ls -A "$T/cache2" | grep -c '^\.build-')" = 0 ] &&
    [ -f "$(cat "$T/c1")/twice.so" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL python: two processes loading at once: $(cat "$T/c1" "$T/c2" | head -5)"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
