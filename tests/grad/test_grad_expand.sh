#!/usr/bin/env bash
# `cairn expand` prints what derive grad writes (docs/cli.md): under each derive of the page's n07 the
# function it wrote, as comment lines, whose signature is the page's; the output parses back to a
# program that runs as n07 does; a refused derive (n08) prints no written function and says why on
# stderr; `cairn explain` lists written functions with their regions. Prints `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL grad_expand: $1"; fi; }
"$CAIRN" expand tests/spec/n07-grad-loss.cairn >"$T/n07.cairn" 2>"$T/n07.err"
ok "expand of n07 exits 0 ($(head -c 200 "$T/n07.err"))" $?
ok "square_grad's signature" "$(grep -qF '// fn square_grad(x:f64, seed:f64, d_x:rw<f64>) -> f64 {' "$T/n07.cairn"; echo $?)"
ok "loss_grad's signature: f's parameters, seed, d_w and d_bias" "$(grep -qF '// fn loss_grad(n:usize, w:ro<f64>[n], x:ro<f64>[n], bias:f64, target:f64, seed:f64, d_w:rw<f64>[n], d_bias:rw<f64>) -> f64 {' "$T/n07.cairn"; echo $?)"
ok "loss_grad adds into d_bias, never assigns it" "$(grep -q '^//     d_bias += ' "$T/n07.cairn" && ! grep -q '^//     d_bias = ' "$T/n07.cairn"; echo $?)"
ok "each written function is printed once" "$([ "$(grep -c '^// written by derive grad:' "$T/n07.cairn")" = 2 ]; echo $?)"
"$CAIRN" run "$T/n07.cairn" >/dev/null 2>"$T/run.err"
ok "the expansion runs as n07 does, exit 0 ($(head -c 200 "$T/run.err"))" $?
"$CAIRN" expand tests/spec/n08-grad-race.cairn >"$T/n08.cairn" 2>"$T/n08.err"
ok "a refused derive prints no written function" "$(! grep -q 'written by derive grad' "$T/n08.cairn"; echo $?)"
ok "and says why on stderr" "$(grep -q 'E-GRAD-RACE' "$T/n08.err"; echo $?)"
# cairn explain lists a written function like any other: its effect row, and its backward region on
# the pool (host views) or on the device (@device views), with the part buffers its lanes take in turn.
"$CAIRN" explain tests/grad/torch_grad.cairn >"$T/ex.txt" 2>&1
ok "explain lists lin_grad on the pool, adding into d_x" "$(grep -q '^fn lin_grad: \[.*par:host.*write:d_x' "$T/ex.txt" &&
    grep -q 'parallel turn in lanes (par:host; writes d_x\[i\], part_d_w\[turn\]' "$T/ex.txt"; echo $?)"
"$CAIRN" explain --emulate --device-target sm_90a tests/grad/torch_grad_dev.cairn >"$T/exd.txt" 2>&1
ok "explain lists lin_dev_grad's backward region on the device" "$(grep -q '^fn lin_dev_grad: \[.*par:device' "$T/exd.txt" &&
    grep -q 'parallel turn in lanes (par:device; writes d_x\[i\]' "$T/exd.txt"; echo $?)"
# A function whose own body is refused gets no gradient, and no E-GRAD error repeats its faults.
"$CAIRN" check --emulate --device-target sm_90a tests/grad/refuse_grad_refused_body.cairn >/dev/null 2>"$T/rb.err"
ok "a refused body: its E-PLACEMENT errors and nothing from derive grad" "$(grep -q 'E-PLACEMENT' "$T/rb.err" &&
    ! grep -q 'E-GRAD' "$T/rb.err"; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
