#!/usr/bin/env bash
# Tuning the device scan's tiles (issue 16): bench/dev/coll_kernels.cairn emitted once by cairn, then
# its file compiled again with the runtime's tuning macros set (runtime/cairn_devcoll.h:
# CN_DEV_SCAN_THREADS, CN_DEV_SCAN_BLOCKS_SM, CN_DEV_SCAN_K4, CN_DEV_SCAN_K8, CN_SCAN_WINDOWS,
# CN_COMPACT_GROUP; runtime/cairn_devsum.h: CN_DSUM32_U, CN_DSUM64_U, CN_DSUM32_MIN_BLOCKS,
# CN_DSUM_PARTS_BLOCK), each variant linked into coll_bench and run once with VARGS (default
# "--log2 26,28"; every check of coll_bench still applies: a variant whose results differ from
# CUB's or from the host's exact sum fails), keeping the rows whose names match ROWS (an awk
# regex, default the scans and the compaction). Run from the repository root on the GPU machine:
#   bash bench/dev/scan_variants.sh OUTDIR ["NAME FLAGS" ...]
# OUTDIR/variants.txt: one line a variant and benchmark: name, n, ratio, CAIRN ms, CUB ms.
set -u
OUTDIR=$1; shift
mkdir -p "$OUTDIR"
ARCH=${ARCH:-sm_90a}
GENCODE="-gencode=arch=compute_${ARCH#sm_},code=$ARCH"
CAIRN=${CAIRN:-bin/cairn}
[ $# -gt 0 ] || set -- "base" "b12 -DCN_DEV_SCAN_BLOCKS_SM=12" "k23 -DCN_DEV_SCAN_K4=23 -DCN_DEV_SCAN_K8=15"
# NOBUILD=1: the variants' coll_bench are already under OUTDIR (bench/dev/call24.sh builds them on a
# machine without a GPU); BUILD_ONLY=1: build them and stop.
[ -n "${NOBUILD:-}" ] ||
"$CAIRN" build bench/dev/coll_kernels.cairn --header --device-target "$ARCH" --out "$OUTDIR/lib" >"$OUTDIR/cairn.log" 2>&1 ||
    { echo "scan_variants.sh: cairn build failed"; cat "$OUTDIR/cairn.log"; exit 1; }
[ -n "${NOBUILD:-}" ] || for v in "$@"; do
    name=${v%% *}; flags=${v#"$name"}
    (
        d="$OUTDIR/$name"; mkdir -p "$d"
        # shellcheck disable=SC2086
        nvcc -std=c++17 -O3 -x cu --fmad=false "$GENCODE" -Xcompiler -ffp-contract=off,-fno-fast-math,-fno-strict-aliasing \
            -w $flags -Iruntime -Xptxas -v -c -o "$d/k.o" "$OUTDIR/lib/coll_kernels.c" >"$d/build.log" 2>&1 &&
            ar rcs "$d/libcoll_kernels.a" "$d/k.o" &&
            nvcc -std=c++17 -O3 --fmad=false "$GENCODE" -I"$OUTDIR/lib" -Iruntime -o "$d/coll_bench" \
                bench/dev/coll_bench.cu "$d/libcoll_kernels.a" -lcudart >>"$d/build.log" 2>&1 || echo "BUILD FAIL $name"
    ) &
done
wait
[ -z "${BUILD_ONLY:-}" ] || exit 0
: >"$OUTDIR/variants.txt"
for v in "$@"; do
    name=${v%% *}; d="$OUTDIR/$name"
    [ -x "$d/coll_bench" ] || { echo "$name: not built" | tee -a "$OUTDIR/variants.txt"; continue; }
    # shellcheck disable=SC2086
    "$d/coll_bench" ${VARGS:---log2 26,28} --reps ${REPS:-12} >"$d/run.log" 2>&1
    echo "$name (${v#"$name"}): exit $? $(grep -c 'RESULT PASS' "$d/run.log") pass" | tee -a "$OUTDIR/variants.txt"
    awk -v V="$name" -v R="${ROWS:-^(scan|compact)}" '!/^#/ && NF == 7 && $1 ~ R { print V, $1, $2, $5, $3, $4 }' "$d/run.log" |
        tee -a "$OUTDIR/variants.txt"
done
