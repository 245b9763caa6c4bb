#!/usr/bin/env bash
# `cairn explain` lists each wide access (src/cli/explain.c): the part it moves, the bytes it moves
# at once, its hint and the instruction it becomes. Holds d19's lines, and a host program's, whose
# accesses are ordinary loads and stores where a hint means nothing, to what docs/devices.md shows;
# and how plain device lanes are lowered (wide lanes, or one a thread under `vector 1`).
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL wide_explain: $1"; fi; }
has() {   # has FILE LINE: LINE is one of FILE's lines, exactly
    ok "$(basename "$1"): $2" "$(grep -qxF -- "$2" "$1"; echo $?)"
}
"$CAIRN" explain --device-target sm_90a tests/spec/d19-scaled-wide.cairn >"$T/d19" 2>"$T/d19.err"
ok "explain d19 exits 0 ($(head -c 200 "$T/d19.err"))" $?
has "$T/d19" "fn scaled: [par:device, read:x, trap, write:out]"
has "$T/d19" "  line 7: parallel i in m (par:device; writes out[4 * i..4 * i + 4]; reads x[4 * i..4 * i + 4])"
has "$T/d19" "  line 8: load_wide x[4 * i..4 * i + 4]: 16 bytes at once, Cache.streaming (.cs): ld.global.cs.v4.u32 on the device"
has "$T/d19" "  line 11: store_wide out[4 * i..4 * i + 4]: 16 bytes at once, Cache.streaming (.cs): st.global.cs.v4.u32 on the device"
cat >"$T/h.cairn" <<'CAIRN'
fn h(n:usize, x:ro<u8>[n], y:rw<f64>[n]) {
  let v = load_wide[16](x, 0, Cache.l2);
  let w = load_wide[2](y, 2);
  store_wide(y, 4, w, Cache.streaming);
}
fn g(n:usize, x:ro<f64>[n]@device, y:rw<f64>[n]@device) {
  parallel i in n / 2 {
    let v = load_wide[2](x, 2 * i, Cache.read_only);
    let u = load_wide[1](y, 2 * i + 1, Cache.last_use);
    store_wide(y, 2 * i, v);
  }
}
CAIRN
"$CAIRN" explain --device-target sm_90a "$T/h.cairn" >"$T/h" 2>"$T/h.err"
ok "explain of a host program exits 0 ($(head -c 200 "$T/h.err"))" $?
has "$T/h" "  line 2: load_wide x[0..16]: 16 bytes at once, Cache.l2 (.cg): 16 u8 loads in host memory, where a hint means nothing"
has "$T/h" "  line 3: load_wide y[2..4]: 16 bytes at once, Cache.all: 2 f64 loads in host memory, where a hint means nothing"
has "$T/h" "  line 4: store_wide y[4..6]: 16 bytes at once, Cache.streaming (.cs): 2 f64 stores in host memory, where a hint means nothing"
has "$T/h" "  line 8: load_wide x[2 * i..2 * i + 2]: 16 bytes at once, Cache.read_only (.nc): ld.global.nc.v4.u32 on the device"
has "$T/h" "  line 9: load_wide y[2 * i + 1..2 * i + 1 + 1]: 8 bytes at once, Cache.last_use (.lu): ld.global.lu.v2.u32 on the device"
has "$T/h" "  line 10: store_wide y[2 * i..2 * i + 2]: 16 bytes at once, Cache.all: st.global.v4.u32 on the device"
# wide lanes (tests/dev/run_wide_lanes.cairn): how each region's lanes run
"$CAIRN" explain --emulate --device-target sm_90a tests/dev/run_wide_lanes.cairn >"$T/wl" 2>"$T/wl.err"
ok "explain run_wide_lanes exits 0 ($(head -c 200 "$T/wl.err"))" $?
has "$T/wl" "  line 21: parallel i in n (par:device; writes out[i]; reads x[i], y[i]; wide: 4 lanes a thread, x, y loaded and out stored 4 elements at a time, in accesses of up to 16 bytes)"
has "$T/wl" "  line 24: parallel i in n (par:device; writes out[i]; reads x[i]; wide: 8 lanes a thread, x loaded and out stored 8 elements at a time, in accesses of up to 16 bytes)"
has "$T/wl" "  line 37: parallel i in n (par:device; writes out[i]; wide: 4 lanes a thread, out stored 4 elements at a time, in accesses of up to 16 bytes)"
has "$T/wl" "  line 40: parallel i in n (par:device; writes out[i]; reads x[i], out[i]; wide: 4 lanes a thread, x loaded 4 elements at a time, in accesses of up to 16 bytes)"
has "$T/wl" "  line 51: parallel i in n (par:device; writes out[i]; reads x[i]; lanes one a thread, each lane's own elements loaded ahead)"
has "$T/wl" "  line 55: parallel i in n (par:device; writes out[i]; reads x[i]; wide: 3 lanes a thread, x loaded and out stored 3 elements at a time, in accesses of up to 4 bytes)"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
