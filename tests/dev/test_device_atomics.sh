#!/usr/bin/env bash
# devices.md, "One wait, or none": the ways to observe include "an atomic update outside a device
# region"; an atomic inside a device region is device work (issue 11: it was treated as an
# observation, so the function got no cq_ entry and waited after every region).
# Prints `FAIL ...` lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL device atomics: $1"; fi; }
cat >"$T/at.cairn" <<'SRC'
fn count(n:usize, x:ro<u32>[n]@device, c:rw<u32>[1]@device) {
  parallel i in n { if x[i] % 3 == 0 { atomic_add_wrap(c[0], 1); } }
  parallel i in n { if x[i] % 5 == 0 { atomic_max(c[0], x[i]); } }
}
fn ccount(n:usize, g:usize, x:ro<u8>[n]@device, bins:rw<u32>[256]@device) {
  blocks b in g threads t in 256 {
    shared local:u32[256] = zeroed;
    let mut i = b * 256 + t;
    while i < n { atomic_add_wrap(local[x[i]], 1); i += g * 256; }
    barrier;
    if local[t] != 0 { atomic_add_wrap(bins[t], local[t]); }
  }
}
fn hcount(n:usize, x:ro<u32>[n]@device, c:rw<u32>[1]) {
  parallel i in n { let v = x[i]; }
  atomic_add_wrap(c[0], 1);
}
SRC
"$CAIRN" build --emulate --device-target sm_90a --header --out "$T/b" "$T/at.cairn" >/dev/null 2>"$T/err"
ok "library builds" "$?"
H="$T/b/at.h"
ok "atomics only in device lanes: count is held and has cq_count" "$(grep -q '^void cq_count(void \*stream, size_t n, const uint32_t \*x, uint32_t \*c);' "$H"; echo $?)"
ok "count waits nowhere inside (held)" "$(sed -n '/^static void fn_count(/,/^}/p' "$T/b/at.c" | grep -q cn_exec_observe; [ $? = 1 ]; echo $?)"
ok "atomics only in a device cooperative region (shared and global): ccount has cq_ccount" \
    "$(grep -q '^void cq_ccount(void \*stream, size_t n, size_t g, const uint8_t \*x, uint32_t \*bins);' "$H"; echo $?)"
ok "an atomic on the host: hcount has no cq_ entry" "$(! grep -q 'cq_hcount' "$H"; echo $?)"
ok "... and E-ENQUEUE names the reason" "$(grep -q '^ \* hcount: its effect row has another way to observe device memory: an atomic update outside a device region\.' "$H"; echo $?)"
ok "hcount waits after its region (unheld)" "$(sed -n '/^static void fn_hcount(/,/^}/p' "$T/b/at.c" | grep -q cn_exec_observe; echo $?)"
ok "the rows still say atomic" "$("$CAIRN" explain --device-target sm_90a "$T/at.cairn" | grep -q '^fn count: \[atomic, '; echo $?)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
