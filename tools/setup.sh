#!/usr/bin/env bash
# Installs what building and testing CAIRN needs on a fresh Debian machine, when it is missing.
# Idempotent and quiet when everything is there.
set -euo pipefail
need=()
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v clang >/dev/null || need+=(clang)
# ASan/UBSan runtimes come with gcc (libasan, libubsan); check by linking a tiny program.
tmp=$(mktemp -d)
echo 'int main(void){return 0;}' >"$tmp/t.c"
cc -fsanitize=address,undefined -o "$tmp/t" "$tmp/t.c" 2>/dev/null || need+=(libasan8 libubsan1)
# MPFR and GMP are the independent oracles of the numeric unit tests.
printf '#include <mpfr.h>\nint main(void){mpfr_t x; mpfr_init(x); mpfr_clear(x); return 0;}\n' >"$tmp/m.c"
cc -o "$tmp/m" "$tmp/m.c" -lmpfr -lgmp 2>/dev/null || need+=(libmpfr-dev libgmp-dev)
# cJSON reads benchmark definitions and submissions (cairn new, cairn export); libcrypto's SHA-256
# names the sources a submission embeds.
printf '#include <cjson/cJSON.h>\n#include <openssl/evp.h>\nint main(void){cJSON_Delete(cJSON_Parse("1")); return EVP_sha256() == 0;}\n' >"$tmp/j.c"
cc -o "$tmp/j" "$tmp/j.c" -lcjson -lcrypto 2>/dev/null || need+=(libcjson-dev libssl-dev)
rm -rf "$tmp"
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "setup: installing ${need[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "setup: missing ${need[*]}: install them (Debian: apt-get install ${need[*]})" >&2
        exit 2
    fi
fi
# cuobjdump and nvdisasm read back the SASS nvcc compiled (tests/wide/test_wide_sass.sh). The CUDA
# toolkit on these machines comes without them; PyPI has both (the versions here were checked
# against nvcc 13.0's cubins). Best effort: that test skips without them.
if command -v nvcc >/dev/null && ! command -v cuobjdump >/dev/null &&
    ! python3 -c 'import nvidia, os, sys; sys.exit(not os.path.exists(os.path.join(list(nvidia.__path__)[0], "cu13", "bin", "cuobjdump")))' 2>/dev/null; then
    python3 -m pip install -q nvidia-cuda-cuobjdump==13.2.86 nvidia-cuda-nvdisasm==13.2.86 >/dev/null 2>&1 ||
        echo "setup: could not install cuobjdump and nvdisasm (tests/wide/test_wide_sass.sh will skip)" >&2
fi
