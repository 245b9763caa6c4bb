#!/usr/bin/env bash
# The words of device diagnostics and guards, where the corpus can check only a code and a place:
# a placement chain names every helper on it, a device collector's guard names the form written,
# a ticket's message says what is wrong with it, a help line shows code that reads back.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
has() {   # has NAME FILE TEXT: FILE contains TEXT
    if grep -qF -- "$3" "$2"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL dev messages: $1: lacks '$3' -- $(grep -m1 -E 'error|guard failed' "$2" | head -c 300)"; fi
}
lacks() { # lacks NAME FILE TEXT: FILE does not contain TEXT
    if ! grep -qF -- "$3" "$2"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL dev messages: $1: says '$3' -- $(grep -m1 -F -- "$3" "$2" | head -c 300)"; fi
}
check() { "$CAIRN" check --device-target sm_90a "$1" >/dev/null 2>"$T/err"; }
emu() { "$CAIRN" run --emulate --device-target sm_90a --out "$T/build" "$1" >/dev/null 2>"$T/err"; }

# A chain of two helpers: the lane calls outer, and inner is what the device cannot run.
check tests/dev/place_helper_chain.cairn
has "host-view chain names outer" "$T/err" "reaches outer"
has "host-view chain names inner" "$T/err" "-> inner"
lacks "host-view chain names inner once" "$T/err" "inner (line 5) -> inner"
check tests/dev/place_helper_chain_closure.cairn
has "closure chain names outer" "$T/err" "reaches outer"
has "closure chain names inner" "$T/err" "-> inner"

# A device collector written `for` is named as written by its guard.
emu tests/dev/guard_reduce_overflow.cairn
has "device reduce overflow names reduce + for" "$T/err" "the total of reduce + for does not fit in u8"
emu tests/dev/guard_scan_overflow.cairn
has "device scan overflow names scan + for" "$T/err" "a prefix of scan + for does not fit in u8"

# Waits in the two arms of an if: each path waits once, so the refusal is not `waited twice`.
check tests/dev/ticket_wait_in_branches.cairn
has "waits in branches are E-TICKET" "$T/err" "E-TICKET"
lacks "waits in branches are not waited twice" "$T/err" "waited twice"

# The help of a transfer between extents that differ shows a part of each, written once.
cat >"$T/ext.cairn" <<'SRC'
fn down(back:rw<f32>[16]) {
  buffer d:f32[15]@device = zeroed;
  transfer(back, d[0..15]);
}
SRC
check "$T/ext.cairn"
has "transfer extent is E-EXTENT" "$T/err" "E-EXTENT"
lacks "transfer extent help slices once" "$T/err" "[0..15][0..15]"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
