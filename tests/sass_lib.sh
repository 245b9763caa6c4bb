# sass_lib.sh: what the tests that read back SASS share (tests/wide/test_wide_sass.sh,
# tests/wide/test_wide_lanes_sass.sh, tests/coop/test_pipeline_sass.sh). Sourced after `cd` to the
# repository root.
#
#   sass_tools NAME TOOL...   puts the PyPI cuobjdump (nvidia-cuda-cuobjdump, which tools/setup.sh
#                             installs where nvcc is) on PATH when none is there, and where a TOOL is
#                             still missing prints `SKIP NAME: no TOOL` and the runner's skipped line,
#                             and exits 0
#   sass_of BINARY KERNEL     the SASS of the kernels of BINARY whose name holds KERNEL, one
#                             instruction a line, without addresses' encodings

sass_tools() {
    local name=$1 tool pybin
    shift
    if ! command -v cuobjdump >/dev/null 2>&1; then
        pybin=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "bin"))' 2>/dev/null)
        [ -n "$pybin" ] && [ -x "$pybin/cuobjdump" ] && PATH=$PATH:$pybin
    fi
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "SKIP $name: no $tool"
            echo "0 passed, 0 failed, 1 skipped"
            exit 0
        fi
    done
}

sass_of() {
    cuobjdump -sass "$1" | awk -v k="$2" '/Function :/ {on = index($0, k) > 0} on' |
        grep -E '^ +/\*[0-9a-f]{4}\*/' | sed 's|/\* 0x[0-9a-f]* \*/||; s/ *;.*//'
}
