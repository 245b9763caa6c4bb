#!/usr/bin/env bash
# Device targets (docs/cli.md, "Device targets"): the spelling and its `a`/`f` floors, the resolution
# order (flag, manifest, nvidia-smi, else E-TARGET), E-TARGET-TOOLKIT from what nvcc answers, the
# features ptxas assembles held to the table, the limits, the receipt's device_target object, and
# TmemAcc's E-TARGET-FEATURE. nvcc and nvidia-smi are faked by scripts on PATH where a test needs a
# particular answer; the probes use the real ptxas when there is one.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL target: $1"; fi
}
status() { "$@" >"$T/out" 2>"$T/err"; echo $?; }
has_code() { grep -q "\"code\": \"$1\"" "$T/err"; }
# receipt FILE PYTHON-EXPR: the expression over d (the device_target object) is true
receipt() { python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["device_target"]
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

cat >"$T/host.cairn" <<'EOF'
fn half(x:f32) -> f32 = x / 2.0;
fn main() -> i32 {
    let b:bf16 = bf16(half(3.0));
    println("half:", f32(b));
    return 0;
}
EOF
cat >"$T/plain.cairn" <<'EOF'
fn main() -> i32 { return 0; }
test fn fine() { assert(1 + 1 == 2); }
EOF
cat >"$T/device.cairn" <<'EOF'
fn ones(n:usize, x:rw<f32>[n]@device) { parallel i in n { x[i] = 1.0; } }
fn main() -> i32 { return 0; }
EOF
cp tests/spec/n11-tmem-acc.cairn "$T/n11.cairn"

# Fakes. nvcc-all compiles every target; nvcc-124 is a CUDA 12.4 that stops at sm_90 (and sm_90a).
mkdir -p "$T/all" "$T/old" "$T/smi1" "$T/smi2" "$T/smi0" "$T/none" "$T/broken"
cat >"$T/all/nvcc" <<'EOF'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 13.9, V13.9.1" ;;
--list-gpu-code) for c in 75 80 86 87 88 89 90 99 100 103 110 120 121; do echo sm_$c; done ;;
esac
exit 0
EOF
cat >"$T/old/nvcc" <<'EOF'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 12.4, V12.4.131" ;;
--list-gpu-code) printf 'sm_75\nsm_80\nsm_86\nsm_87\nsm_89\nsm_90\n' ;;
--dryrun) [ "$2" = -arch=sm_90a ] || { echo "nvcc fatal   : Unsupported gpu architecture" >&2; exit 1; } ;;
esac
exit 0
EOF
# an nvcc whose every call but --version fails, as NVCC_APPEND_FLAGS with an option it rejects makes it
cat >"$T/broken/nvcc" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0; }
echo "nvcc fatal   : Unknown option '--bogus'"; exit 1
EOF
printf '#!/bin/sh\necho 9.0\n' >"$T/smi1/nvidia-smi"
printf '#!/bin/sh\necho 8.6\necho 9.0\necho 8.6\n' >"$T/smi2/nvidia-smi"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver"\nexit 9\n' >"$T/smi0/nvidia-smi"
chmod +x "$T"/*/nvcc "$T"/*/nvidia-smi
# A PATH with no nvidia-smi and no CUDA: only what cairn check needs (nothing).
NOGPU="$T/none"
ALL="$T/all:$PATH"
cd "$T"

# ---- spellings ------------------------------------------------------------------------------------
for t in sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_110 sm_120 sm_120a sm_120f sm_121; do
    ok "spelling $t accepted" "$([ "$(PATH=$ALL status "$CAIRN" check --device-target $t plain.cairn)" = 0 ]; echo $?)"
done
for t in sm_80a sm_89a sm_75a; do
    ok "$t: no a below sm_90 (E-TARGET, help)" "$([ "$(PATH=$ALL status "$CAIRN" check --json --device-target $t plain.cairn)" = 1 ] &&
        has_code E-TARGET && grep -q "no \`a\` target below sm_90" "$T/err" && grep -q '"help": "write `sm_' "$T/err"; echo $?)"
done
for t in sm_90f sm_89f sm_80f; do
    ok "$t: no f below sm_100 (E-TARGET, help)" "$([ "$(PATH=$ALL status "$CAIRN" check --json --device-target $t plain.cairn)" = 1 ] &&
        has_code E-TARGET && grep -q "no \`f\` target below sm_100" "$T/err"; echo $?)"
done
for t in sm90 SM_90 compute_90 9.0 native sm_ sm_9 sm_1000 sm_09 sm_90x sm_90af gfx90a; do
    ok "garbage '$t' is E-TARGET naming the accepted forms" "$([ "$(PATH=$ALL status "$CAIRN" check --json --device-target "$t" plain.cairn)" = 1 ] &&
        has_code E-TARGET && grep -q 'sm_ and a compute capability' "$T/err"; echo $?)"
done
ok "sm90 gets its spelling" "$(PATH=$ALL status "$CAIRN" check --device-target sm90 plain.cairn >/dev/null; grep -q 'write `sm_90`' "$T/err"; echo $?)"
ok "human form: error[E-TARGET] and a help line" "$(PATH=$ALL status "$CAIRN" check --device-target sm_80a plain.cairn >/dev/null;
    grep -q '^error\[E-TARGET\]' "$T/err" && grep -q '^  help: ' "$T/err"; echo $?)"
ok "--device-target with no value is a usage error (2)" "$([ "$(status "$CAIRN" check plain.cairn --device-target)" = 2 ]; echo $?)"
ok "--emulate builds a host program judged against the target; the receipt says so" "$([ "$(status "$CAIRN" build --emulate --device-target sm_90 plain.cairn)" = 0 ] &&
    receipt build/plain/plain.receipt.json 'True' && python3 -c 'import json,sys; e=json.load(open("build/plain/plain.receipt.json"))["emulation"]; sys.exit(not (e and e["judged_against"] == "sm_90"))'; echo $?)"

# ---- resolution -----------------------------------------------------------------------------------
mkdir -p proj
cp host.cairn proj/prog.cairn
printf '[build]\nkind = "exe"\nsource = "prog.cairn"\ndevice_target = "sm_120a"\n' >proj/cairn.toml
ok "manifest target" "$([ "$(PATH=$ALL status "$CAIRN" build proj)" = 0 ] &&
    receipt build/prog/prog.receipt.json 'd["name"] == "sm_120a" and d["resolved_by"] == "manifest"'; echo $?)"
ok "flag beats manifest" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target sm_80 proj)" = 0 ] &&
    receipt build/prog/prog.receipt.json 'd["name"] == "sm_80" and d["resolved_by"] == "flag"'; echo $?)"
printf '[build]\nsource = "prog.cairn"\ndevice_target = "sm_86a"\n' >proj/cairn.toml
ok "bad manifest target: E-TARGET naming the manifest, exit 1" "$([ "$(PATH=$ALL status "$CAIRN" build proj)" = 1 ] &&
    grep -q 'error\[E-TARGET\]: proj/cairn.toml: \[build\] device_target: `sm_86a`' "$T/err"; echo $?)"
ok "a good flag overrides a bad manifest target" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target sm_86 proj)" = 0 ]; echo $?)"
ok "host program, no target named: device_target null" "$([ "$(status "$CAIRN" build host.cairn)" = 0 ] &&
    python3 -c 'import json,sys; sys.exit(json.load(open("build/host/host.receipt.json"))["device_target"] is not None)'; echo $?)"
ok "host program: nvidia-smi is not asked (two GPUs, still accepted)" "$([ "$(PATH=$T/smi2 status "$CAIRN" check plain.cairn)" = 0 ]; echo $?)"
ok "device work, no flag, no manifest, no nvidia-smi: E-TARGET no GPU" "$([ "$(PATH=$NOGPU status "$CAIRN" check --json device.cairn)" = 1 ] &&
    has_code E-TARGET && grep -q 'no GPU and no target' "$T/err"; echo $?)"
ok "device work, nvidia-smi fails (no driver): E-TARGET no GPU" "$([ "$(PATH=$T/smi0 status "$CAIRN" check --json device.cairn)" = 1 ] &&
    has_code E-TARGET && grep -q 'no GPU and no target' "$T/err"; echo $?)"
ok "device work, one GPU (9.0): resolved from nvidia-smi, accepted" "$([ "$(PATH=$T/smi1 status "$CAIRN" check --json device.cairn)" = 0 ] &&
    ! has_code E-TARGET; echo $?)"
ok "device work, GPUs of two capabilities: E-TARGET asking for --device-target" "$([ "$(PATH=$T/smi2 status "$CAIRN" check --json device.cairn)" = 1 ] &&
    has_code E-TARGET && grep -q '8.6 and 9.0' "$T/err" && grep -q -- '--device-target sm_86 or --device-target sm_90' "$T/err"; echo $?)"
ok "device work with a named target: nvidia-smi not asked (two GPUs, still accepted)" "$([ "$(PATH=$T/smi2 status "$CAIRN" check --json --device-target sm_90 device.cairn)" = 0 ] &&
    ! has_code E-TARGET; echo $?)"

# ---- toolkit --------------------------------------------------------------------------------------
OLD="$T/old:$PATH"
ok "E-TARGET-TOOLKIT: nvcc 12.4 does not compile sm_100, names its version" "$([ "$(PATH=$OLD status "$CAIRN" check --json --device-target sm_100 plain.cairn)" = 1 ] &&
    has_code E-TARGET-TOOLKIT && grep -q '(12.4.131) does not compile sm_100' "$T/err" && grep -q 'sm_75 sm_80' "$T/err"; echo $?)"
ok "E-TARGET-TOOLKIT: nvcc 12.4 does not compile sm_120a" "$([ "$(PATH=$OLD status "$CAIRN" check --json --device-target sm_120a plain.cairn)" = 1 ] &&
    has_code E-TARGET-TOOLKIT; echo $?)"
ok "E-TARGET-TOOLKIT: an a target nvcc is asked about by name" "$([ "$(PATH=$OLD status "$CAIRN" check --json --device-target sm_100a plain.cairn)" = 1 ] &&
    has_code E-TARGET-TOOLKIT; echo $?)"
ok "E-TARGET-TOOLKIT: an nvcc that cannot list its targets says so, with what it printed" "$([ "$(PATH=$T/broken:$PATH status "$CAIRN" check --json --device-target sm_90a plain.cairn)" = 1 ] &&
    has_code E-TARGET-TOOLKIT && grep -q 'cannot say which targets it compiles' "$T/err" &&
    grep -q "Unknown option '--bogus'" "$T/err" && ! grep -q 'does not compile sm_90a' "$T/err"; echo $?)"
ok "near miss: nvcc 12.4 compiles sm_90 and sm_90a" "$([ "$(PATH=$OLD status "$CAIRN" check --device-target sm_90 plain.cairn)" = 0 ] &&
    [ "$(PATH=$OLD status "$CAIRN" check --device-target sm_90a plain.cairn)" = 0 ]; echo $?)"
ok "E-TARGET-TOOLKIT: exit 1, human form" "$([ "$(PATH=$OLD status "$CAIRN" build --device-target sm_121 plain.cairn)" = 1 ] &&
    grep -q '^error\[E-TARGET-TOOLKIT\]' "$T/err" && grep -q '^  help: this nvcc compiles' "$T/err"; echo $?)"
if command -v nvcc >/dev/null 2>&1 && nvcc --version | grep -q 'release 13\.'; then
    ok "real nvcc 13: sm_50 and sm_70 are E-TARGET-TOOLKIT" "$([ "$(status "$CAIRN" check --json --device-target sm_50 plain.cairn)" = 1 ] &&
        has_code E-TARGET-TOOLKIT && [ "$(status "$CAIRN" check --json --device-target sm_70 plain.cairn)" = 1 ] && has_code E-TARGET-TOOLKIT; echo $?)"
    ok "real nvcc 13: sm_88a is E-TARGET (spelling), sm_121f accepted" "$([ "$(status "$CAIRN" check --json --device-target sm_88a plain.cairn)" = 1 ] &&
        has_code E-TARGET && [ "$(status "$CAIRN" check --device-target sm_121f plain.cairn)" = 0 ]; echo $?)"
fi

# ---- features: ptxas's answers, the table, and the two held together --------------------------------
# The expected rows are what ptxas 13.0 assembles (and the table says).
cat >"$T/expect.txt" <<'EOF'
sm_75 wmma
sm_80 bf16 wmma mma_sync cp.async
sm_89 bf16 wmma mma_sync cp.async
sm_90 bf16 wmma mma_sync cp.async clusters tma
sm_90a bf16 wmma mma_sync cp.async clusters tma wgmma
sm_100 bf16 wmma mma_sync cp.async clusters tma
sm_100a bf16 wmma mma_sync cp.async clusters tma tcgen05 mma_f8f6f4
sm_100f bf16 wmma mma_sync cp.async clusters tma tcgen05 mma_f8f6f4
sm_103a bf16 wmma mma_sync cp.async clusters tma tcgen05 mma_f8f6f4
sm_110a bf16 wmma mma_sync cp.async clusters tma tcgen05 mma_f8f6f4
sm_120 bf16 wmma mma_sync cp.async clusters tma
sm_120a bf16 wmma mma_sync cp.async clusters tma mma_f8f6f4
sm_120f bf16 wmma mma_sync cp.async clusters tma mma_f8f6f4
sm_121a bf16 wmma mma_sync cp.async clusters tma mma_f8f6f4
EOF
HAVE_PTXAS=0
command -v ptxas >/dev/null 2>&1 && ptxas --version | grep -q 'release 13\.' && HAVE_PTXAS=1
NOPTXAS="$T/all:/usr/bin:/bin"
while read -r t feats; do
    want=$(python3 -c 'import sys; print(repr(sys.argv[1:]))' $feats)
    if [ "$HAVE_PTXAS" = 1 ]; then
        ok "ptxas: $t provides exactly: $feats" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target $t --out b-$t host.cairn)" = 0 ] &&
            receipt b-$t/host.receipt.json "d['features'] == $want and d['features_from'] == 'ptxas' and d['probed_with'].startswith('ptxas 13.')"; echo $?)"
    fi
    ok "table (no ptxas): $t provides exactly: $feats" "$([ "$(PATH=$NOPTXAS status "$CAIRN" build --device-target $t --out c-$t host.cairn)" = 0 ] &&
        receipt c-$t/host.receipt.json "d['features'] == $want and d['features_from'].startswith('table') and d['probed_with'] is None"; echo $?)"
done <"$T/expect.txt"
if [ "$HAVE_PTXAS" = 1 ]; then
    ok "probe answers cached under build/targets/, keyed by ptxas release and target" "$(ls build/targets/ptxas-13.*-sm_90a.txt >/dev/null 2>&1 &&
        grep -qx 'wgmma yes' build/targets/ptxas-13.*-sm_90a.txt; echo $?)"
    ok "a cached answer is read back (an edited cache is believed)" "$(f=$(ls build/targets/ptxas-13.*-sm_75.txt) && sed -i 's/^wmma yes/wmma no/' "$f" &&
        PATH=$ALL "$CAIRN" build --device-target sm_75 --out d-75 host.cairn 2>/dev/null && receipt d-75/host.receipt.json "'wmma' not in d['features']"; r=$?; rm -f "$f"; echo $r)"
fi

# ---- receipt: needed, limits, versions -------------------------------------------------------------
ok "receipt: bf16 on the host needs nothing of sm_75: the host program builds and runs (near miss of E-TARGET-FEATURE)" "$([ "$(PATH=$ALL status "$CAIRN" run --device-target sm_75 --out r75 host.cairn)" = 0 ] &&
    grep -qx 'half: 1.5' "$T/out" && receipt r75/host.receipt.json "d['needed'] == [] and d['lacking'] == []"; echo $?)"
# devices.md: "a program needing a feature the target lacks: bf16 on sm_75" is E-TARGET-FEATURE, and
# emulation refuses what the target refuses (issue 11: it was accepted, its receipt saying lacking bf16).
cat >"$T/dbf16.cairn" <<'EOF'
fn round_bf16(n:usize, x:rw<f32>[n]@device) { parallel i in n { x[i] = f32(bf16(x[i])); } }
fn main() -> i32 { return 0; }
EOF
for how in "" "--emulate"; do
    ok "bf16 in a device lane on sm_75${how:+ ($how)}: E-TARGET-FEATURE at the conversion" "$([ "$(PATH=$ALL status "$CAIRN" check --json $how --device-target sm_75 dbf16.cairn)" = 1 ] &&
        grep -q '"code": "E-TARGET-FEATURE", "file": "[^"]*", "line": 1, "column": 76' "$T/err"; echo $?)"
done
ok "bf16 in a device lane on sm_80: accepted, and the receipt needs bf16 (near miss)" "$([ "$(PATH=$ALL status "$CAIRN" build --emulate --device-target sm_80 --out d80 dbf16.cairn)" = 0 ] &&
    receipt d80/dbf16.receipt.json "d['needed'] == ['bf16'] and d['lacking'] == []"; echo $?)"
ok "receipt: limits of 9.0 from the Programming Guide" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target sm_90a --out r90 host.cairn)" = 0 ] &&
    receipt r90/host.receipt.json "d['limits']['registers_per_thread'] == 255 and d['limits']['threads_per_block'] == 1024 and d['limits']['shared_memory_per_block'] == 48*1024 and d['limits']['shared_memory_per_block_optin'] == 227*1024 and d['limits']['warps_per_sm'] == 64 and d['compute_capability'] == '9.0'"; echo $?)"
ok "receipt: limits of 12.0 (99 KiB opt-in, 48 warps) and 7.5 (64 KiB, 32 warps)" "$(PATH=$ALL "$CAIRN" build --device-target sm_120f --out r120 host.cairn 2>/dev/null &&
    PATH=$ALL "$CAIRN" build --device-target sm_75 --out r75b host.cairn 2>/dev/null &&
    receipt r120/host.receipt.json "d['limits']['shared_memory_per_block_optin'] == 99*1024 and d['limits']['warps_per_sm'] == 48" &&
    receipt r75b/host.receipt.json "d['limits']['shared_memory_per_block_optin'] == 64*1024 and d['limits']['warps_per_sm'] == 32"; echo $?)"
ok "receipt: a target without a row has limits null" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target sm_99 --out r99 host.cairn)" = 0 ] &&
    receipt r99/host.receipt.json "d['limits'] is None"; echo $?)"
ok "receipt: sm_88 has no row (the pages list none for 8.8), so its limits are null" "$([ "$(PATH=$ALL status "$CAIRN" build --device-target sm_88 --out r88 host.cairn)" = 0 ] &&
    receipt r88/host.receipt.json "d['limits'] is None and d['compute_capability'] == '8.8'"; echo $?)"
ok "receipt: nvcc version recorded" "$(receipt r99/host.receipt.json "d['nvcc'] == '13.9.1'"; echo $?)"
ok "receipt: no nvcc on PATH -> nvcc null, not a refusal" "$([ "$(PATH=/usr/bin:/bin status "$CAIRN" build --device-target sm_90 --out rn host.cairn)" = 0 ] &&
    receipt rn/host.receipt.json "d['nvcc'] is None and d['name'] == 'sm_90'"; echo $?)"
ok "receipt is JSON with every field" "$(receipt r90/host.receipt.json "sorted(d) == sorted(['name', 'compute_capability', 'resolved_by', 'features', 'needed', 'lacking', 'features_from', 'limits', 'nvcc', 'probed_with'])"; echo $?)"
ok "cairn test takes --device-target" "$([ "$(PATH=$ALL status "$CAIRN" test --device-target sm_80 plain.cairn)" = 0 ] &&
    grep -q 'fine ... ok' "$T/out"; echo $?)"
ok "cairn test refuses a bad target" "$([ "$(PATH=$ALL status "$CAIRN" test --device-target sm_80a plain.cairn)" = 1 ] && grep -q 'E-TARGET' "$T/err"; echo $?)"

# ---- E-TARGET-FEATURE -----------------------------------------------------------------------------
ok "n11: TmemAcc is E-TARGET-FEATURE with no target" "$([ "$(status "$CAIRN" check --json n11.cairn)" = 1 ] && has_code E-TARGET-FEATURE; echo $?)"
ok "TmemAcc is E-TARGET-FEATURE even on sm_100a (nothing lowers it), naming the target" "$([ "$(PATH=$ALL status "$CAIRN" check --json --device-target sm_100a n11.cairn)" = 1 ] &&
    has_code E-TARGET-FEATURE && grep -q 'sm_100a' "$T/err"; echo $?)"
printf 'fn f(x:TmemAcc[f32, 128, 256, 16]) { }\n' >"$T/tmem_type.cairn"
ok "TmemAcc as a type is E-TARGET-FEATURE" "$([ "$(status "$CAIRN" check --json tmem_type.cairn)" = 1 ] && has_code E-TARGET-FEATURE; echo $?)"
ok "near miss: bf16 on sm_75 in host code is accepted" "$([ "$(PATH=$ALL status "$CAIRN" check --device-target sm_75 host.cairn)" = 0 ]; echo $?)"

cd "$ROOT"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
