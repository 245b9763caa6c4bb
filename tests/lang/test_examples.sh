#!/usr/bin/env bash
# Every program in examples/ runs and prints what it should. The runner looks only under tests/, so
# the expectations live here, one entry per example; an example without one is a failure.
#   hello          the host program of README.md: its two lines, stored below
#   tensor/tile64, tile32, tile128, tile128d, tile128w   mma_unordered's contract in WMMA and mma.sync fragments, emulated:
#                  within the bound and with the reference loop's bits on every shape; a wrong copy
#                  of each must not be
#   device_scale   the device program of docs/devices.md, run emulated (--emulate --device-target
#                  sm_90a); its lines are computed here with awk from the formula it states, not
#                  copied from a run. A copy whose region reads x at the wrong index must print other
#                  values and exit 1, which shows that the check can fail.
# Where nvcc is installed the device program is also built for sm_90a, and where a GPU is present it
# runs there and must print the same lines; each is a skip otherwise.
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
EMULATE="--emulate --device-target sm_90a"

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL examples: $1"; fi
}

hello_expected() {
    printf '%s\n' "sum of squares of 1..10: 385" "mean of 0, 0.5, .., 4.5: 2.25"
}

# device_scale: x[i] = 919 i mod 1000, y[i] = 2.5 x[i] + i. Every value is a multiple of 0.5 far below
# 2^24, so awk's doubles hold each sum exactly, as the program's f32 and f64 do.
device_scale_expected() {
    awk 'BEGIN {
        n = 1000; a = 2.5; sum = 0; weighted = 0; max = -1
        for (i = 0; i < n; i++) {
            y[i] = a * ((i * 919) % 1000) + i
            sum += y[i]; weighted += i * y[i]
            if (y[i] > max) max = y[i]
        }
        printf "y[0], y[1], y[2], y[998], y[999]: %.10g %.10g %.10g %.10g %.10g\n", y[0], y[1], y[2], y[998], y[999]
        printf "sum: %.10g max: %.10g index-weighted sum: %.10g\n", sum, max, weighted
        printf "elements that differ from the host loop: 0\n"
    }'
}

# The flags each example runs with, and its expected standard output.
flags_of() {
    case $1 in
    hello) echo "" ;;
    device_scale) echo "$EMULATE" ;;
    *) return 1 ;;
    esac
}
expected_of() {
    case $1 in
    hello) hello_expected ;;
    device_scale) device_scale_expected ;;
    *) return 1 ;;
    esac
}

# run_example NAME FILE FLAGS...: runs it, then compares exit status 0 and stdout with expected_of.
run_example() {
    local name=$1 file=$2 rc
    shift 2
    "$CAIRN" run "$@" "$file" >"$T/$name.out" 2>"$T/$name.err"
    rc=$?
    expected_of "$name" >"$T/$name.want"
    ok "$name ($*) exits 0, got $rc: $(head -c 300 "$T/$name.err")" "$([ "$rc" = 0 ]; echo $?)"
    ok "$name ($*) prints what it should: $(diff "$T/$name.want" "$T/$name.out" | head -6 | tr '\n' '|')" \
        "$(cmp -s "$T/$name.want" "$T/$name.out"; echo $?)"
}

n=0
for f in examples/*.cairn; do
    name=$(basename "$f" .cairn)
    n=$((n + 1))
    if ! flags_of "$name" >/dev/null; then
        ok "$f has no expected output in tests/lang/test_examples.sh" 1
        continue
    fi
    # shellcheck disable=SC2046 # the flags are words
    run_example "$name" "$f" $(flags_of "$name")
done
ok "examples/ holds hello and device_scale (found $n programs)" \
    "$([ -f examples/hello.cairn ] && [ -f examples/device_scale.cairn ]; echo $?)"

# The emulated run says it is no evidence about a device.
ok "device_scale: the emulation note on stderr" \
    "$(grep -q 'emulated: device work runs on host threads' "$T/device_scale.err"; echo $?)"

# The values expose wrong indexing: a region that reads x back to front keeps the sum and the maximum
# (x is a permutation) but changes the elements and the index-weighted sum, and fails its own check.
sed 's/y\[i\] = a \* x\[i\] + f32(i);/y[i] = a * x[n - 1 - i] + f32(i);/' examples/device_scale.cairn >"$T/reversed.cairn"
ok "the mutation applies" "$(! cmp -s examples/device_scale.cairn "$T/reversed.cairn"; echo $?)"
# shellcheck disable=SC2086
"$CAIRN" run $EMULATE "$T/reversed.cairn" >"$T/reversed.out" 2>/dev/null
rc=$?
device_scale_expected >"$T/reversed.want"
ok "a region indexing x wrongly exits 1 (got $rc)" "$([ "$rc" = 1 ]; echo $?)"
ok "a region indexing x wrongly prints other elements" \
    "$([ "$(sed -n 1p "$T/reversed.out")" != "$(sed -n 1p "$T/reversed.want")" ]; echo $?)"
ok "a region indexing x wrongly changes the index-weighted sum" \
    "$([ "$(sed -n 2p "$T/reversed.out" | sed 's/.*weighted sum: //')" != \
         "$(sed -n 2p "$T/reversed.want" | sed 's/.*weighted sum: //')" ]; echo $?)"

# examples/tensor/tile64 (WMMA fragments), tile32 (mma.sync fragments, a swizzled stage), tile128
# (WMMA fragments in 128 x 128 tiles, c in and out a warp's part at a time), tile128d (tile128 through
# four stages of k 16) and tile128w (tile128 by four warps of 64 x 64): each
# mma_unordered's contract in a tiling of its own, emulated on shapes with partial tiles in every
# direction: no output outside the contract's bound, every output with the reference loop's bits (the
# host form adds in increasing k). A copy of tile64 whose A row fills (after the first) use a pitch
# other than its layout's, and one of tile32 whose A row fills (after the first) place the tile
# unswizzled while its loads read it swizzled, one of tile128 and one of tile128w that load an
# accumulator from the wrong column of c, and one of tile128d whose loop fills a step already there,
# must print other counts.
tensor_expected() {   # tensor_expected NAME
    local w=64
    [ "$1" = tile32 ] && w=32
    if [ "${1#tile128}" != "$1" ]; then   # tile128, tile128d, tile128w
        printf '%s\n' "128 128 32 outside 0 differ 0" "130 129 33 outside 0 differ 0" "257 140 100 outside 0 differ 0" \
            "17 260 64 outside 0 differ 0" "1 1 1 outside 0 differ 0" "40 8 0 outside 0 differ 0"
        return
    fi
    printf '%s\n' "64 $w 32 outside 0 differ 0"
    [ "$1" = tile32 ] && echo "65 33 33 outside 0 differ 0" || echo "65 63 33 outside 0 differ 0"
    printf '%s\n' "130 72 100 outside 0 differ 0" "17 130 64 outside 0 differ 0" "1 1 1 outside 0 differ 0" \
        "40 8 0 outside 0 differ 0"
}
for name in tile64 tile32 tile128 tile128d tile128w; do
    # shellcheck disable=SC2086
    "$CAIRN" run $EMULATE examples/tensor/$name.cairn >"$T/$name.out" 2>"$T/$name.err"
    ok "$name exits 0: $(head -c 300 "$T/$name.err")" "$?"
    ok "$name prints what it should: $(tensor_expected $name | diff - "$T/$name.out" | head -6 | tr '\n' '|')" \
        "$(tensor_expected $name | cmp -s - "$T/$name.out"; echo $?)"
    case $name in
    tile64) sed 's/ra, min(32, k - kn), 40,/ra, min(32, k - kn), 32,/' examples/tensor/tile64.cairn >"$T/${name}_wrong.cairn" ;;
    tile32) sed 's/ra, min(32, k - kn), SA,/ra, min(32, k - kn), 32,/' examples/tensor/tile32.cairn >"$T/${name}_wrong.cairn" ;;
    tile128) sed 's/  c31 = mma_load\[WmmaAcc\[f32, 16, 16, 16\]\](sc, CS, 3, 1);/  c31 = mma_load[WmmaAcc[f32, 16, 16, 16]](sc, CS, 3, 0);/' \
        examples/tensor/tile128.cairn >"$T/${name}_wrong.cairn" ;;   # an accumulator from the wrong column of c
    tile128d) sed 's/let kn = min((s + 3) \* 16, k);/let kn = min((s + 2) * 16, k);/' \
        examples/tensor/tile128d.cairn >"$T/${name}_wrong.cairn" ;;   # the loop fills a step already there
    tile128w) sed 's/        c23 = mma_load\[WmmaAcc\[f32, 16, 16, 16\]\](sc, CS, 0, 1);/        c23 = mma_load[WmmaAcc[f32, 16, 16, 16]](sc, CS, 0, 0);/' \
        examples/tensor/tile128w.cairn >"$T/${name}_wrong.cairn" ;;   # an accumulator from the wrong column of c
    esac
    ok "the $name mutation applies" "$(! cmp -s examples/tensor/$name.cairn "$T/${name}_wrong.cairn"; echo $?)"
    # shellcheck disable=SC2086
    "$CAIRN" run $EMULATE "$T/${name}_wrong.cairn" >"$T/${name}_wrong.out" 2>/dev/null
    ok "a wrong $name prints other counts" "$(! tensor_expected $name | cmp -s - "$T/${name}_wrong.out"; echo $?)"
done

# On the device: built by nvcc where it is installed, run where a GPU is.
if command -v nvcc >/dev/null 2>&1; then
    "$CAIRN" build --device-target sm_90a --out "$T/gpu" examples/device_scale.cairn >/dev/null 2>"$T/gpu.err"
    ok "device_scale builds for sm_90a with nvcc: $(head -c 300 "$T/gpu.err")" "$([ -x "$T/gpu/device_scale" ]; echo $?)"
    for name in tile64 tile32 tile128 tile128d tile128w; do
        "$CAIRN" build --device-target sm_90a --out "$T/gpu" examples/tensor/$name.cairn >/dev/null 2>"$T/gpu.err"
        ok "$name builds for sm_90a with nvcc: $(head -c 300 "$T/gpu.err")" "$([ -x "$T/gpu/$name" ]; echo $?)"
    done
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        run_example device_scale examples/device_scale.cairn --device-target sm_90a
    else
        skip=$((skip + 1))
    fi
else
    skip=$((skip + 2))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
