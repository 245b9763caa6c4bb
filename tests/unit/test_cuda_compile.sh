#!/usr/bin/env bash
# The device seam on every machine it has, from one source: a tiny program that allocates, copies in,
# launches a guarded kernel twice, queues it once more behind a ticket, waits and copies back
# (written below, in the common subset of C17 and C++17, as the lowering will write it).
#
#   1. nvcc -std=c++17 -x cu -c  of runtime/cairn_dev.h + cairn_exec.h alone, and of the program
#      (the CUDA machine compiles: default arch, and sm_90 through ptxas), and its PTX holds the
#      kernel's entry and the guard's trap;
#   2. the program linked against libcudart (it links; it runs only where there is a GPU: without one
#      it must stop with the seam's own message, never crash);
#   3. the same source under cc -std=c17 -DCAIRN_EMULATE and g++ -std=c++17 -DCAIRN_COUNT, run: both
#      print the answer plain loops give.
#
#   bash tests/unit/test_cuda_compile.sh     prints FAIL/SKIP lines and a last line
#                                       `N passed, N failed, N skipped`; exits 1 on failure
#
# Without nvcc, steps 1 and 2 are skipped with a message; step 3 runs anyway.
set -u
cd "$(dirname "$0")/../.."
DIR=build/cuda_compile
mkdir -p "$DIR"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "${2:-}" ] && sed 's/^/    /' "$2" | head -30; }

cat >"$DIR/smoke.c" <<'EOF'
/* smoke.c: the seam from one source on the CUDA, emulated and counting machines. */
#include "cairn_exec.h"

struct axpy {
    float a;
    const float *x;
    float *y;
    size_t n;
};
CN_DEV_LANE void axpy_lane(const struct axpy *c, size_t i)
{
    if (i >= c->n)
        cn_dev_trap_bounds("smoke.cairn", 3, 9, (long long)i, c->n, "y");
    c->y[i] = c->a * c->x[i] + c->y[i];
}
static const char axpy_k_what[] = "axpy_k";
CN_DEV_KERNEL(axpy_k, struct axpy, axpy_lane, 256)

enum { n = 1000 };
static float hx[n], hy[n];

int main(void)
{
    for (int i = 0; i < n; i++) {
        hx[i] = (float)i;
        hy[i] = 1.0f;
    }
    struct cn_exec *x = cn_exec_get();
    float *dx = (float *)cn_exec_alloc(x, sizeof hx, "smoke.cairn", 1, 1);
    float *dy = (float *)cn_exec_alloc(x, sizeof hy, "smoke.cairn", 2, 1);
    cn_exec_transfer(x, CN_DEV_H2D, dx, n, hx, n, sizeof(float), "smoke.cairn", 4, 1);
    cn_exec_transfer(x, CN_DEV_H2D, dy, n, hy, n, sizeof(float), "smoke.cairn", 5, 1);
    struct axpy a = {2.0f, dx, dy, n};
    cn_exec_launch(x, &axpy_k, n, &a); /* held: one wait for both, before the next observation */
    cn_exec_launch(x, &axpy_k, n, &a);
    struct cn_ticket t = cn_exec_spawn_launch(x, &axpy_k, n, &a, NULL, 0, "smoke.cairn", 8, 1);
    cn_exec_wait(&t, "smoke.cairn", 9, 1);
    cn_exec_transfer(x, CN_DEV_D2H, hy, n, dy, n, sizeof(float), "smoke.cairn", 10, 1);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += hy[i] != 1.0f + 6.0f * (float)i;
    cn_exec_free(x, dx);
    cn_exec_free(x, dy);
    cn_exec_leave();
    cn_exec_release_thread();
    printf("smoke (%s machine): %s\n", CN_DEV_MACHINE, wrong ? "WRONG" : "ok");
    return wrong != 0;
}
EOF
printf '#include "cairn_exec.h"\n' >"$DIR/headers.c"

# ---- 3. emulated and counting, from the same source ----------------------------------------------
if cc -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -DCAIRN_EMULATE \
        -Iruntime -o "$DIR/smoke_emulated" "$DIR/smoke.c" -lm -lpthread >"$DIR/emulated.log" 2>&1 &&
        "$DIR/smoke_emulated" >>"$DIR/emulated.log" 2>&1 && grep -q 'emulated machine): ok' "$DIR/emulated.log"; then
    ok
else
    bad "cc -std=c17 -DCAIRN_EMULATE: the smoke program does not build or agree" "$DIR/emulated.log"
fi
if g++ -std=c++17 -x c++ -O2 -Wall -Wextra -Werror -DCAIRN_COUNT -Iruntime -o "$DIR/smoke_counting" \
        "$DIR/smoke.c" -lm -lpthread >"$DIR/counting.log" 2>&1 &&
        "$DIR/smoke_counting" >>"$DIR/counting.log" 2>&1 && grep -q 'counting machine): ok' "$DIR/counting.log"; then
    ok
else
    bad "g++ -std=c++17 -DCAIRN_COUNT: the smoke program does not build or agree" "$DIR/counting.log"
fi

# ---- 1, 2. the CUDA machine -----------------------------------------------------------------------
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "SKIP the CUDA machine: nvcc is not installed (3 checks)"
    skip=$((skip + 3))
else
    if "$NVCC" -std=c++17 -x cu -c -Iruntime -o "$DIR/headers.o" "$DIR/headers.c" >"$DIR/headers.log" 2>&1; then
        ok
    else
        bad "nvcc -std=c++17 -x cu -c: cairn_dev.h and cairn_exec.h do not compile" "$DIR/headers.log"
    fi
    if "$NVCC" -std=c++17 -x cu -c -Iruntime -Xcompiler -Wall -o "$DIR/smoke.o" "$DIR/smoke.c" >"$DIR/nvcc.log" 2>&1 &&
            "$NVCC" -std=c++17 -x cu -c -Iruntime -gencode arch=compute_90,code=sm_90 -o "$DIR/smoke_sm90.o" \
                "$DIR/smoke.c" >>"$DIR/nvcc.log" 2>&1 &&
            "$NVCC" -std=c++17 -x cu -ptx -Iruntime -arch=compute_90 -o "$DIR/smoke.ptx" "$DIR/smoke.c" \
                >>"$DIR/nvcc.log" 2>&1 &&
            grep -q '^.entry .*axpy_k_kernel' "$DIR/smoke.ptx" && grep -q 'trap;' "$DIR/smoke.ptx"; then
        ok
    else
        bad "nvcc: the smoke program does not compile, or its PTX lacks the kernel or its trap" "$DIR/nvcc.log"
    fi
    if "$NVCC" -o "$DIR/smoke_cuda" "$DIR/smoke.o" -lcudart >"$DIR/link.log" 2>&1; then
        # Run it: with a GPU it must agree; without one it must stop with the seam's message.
        ("$DIR/smoke_cuda" >"$DIR/run.log" 2>&1; true) 2>/dev/null # no "Aborted" from the shell
        if grep -q 'cuda machine): ok' "$DIR/run.log" || grep -q '^cairn: device (cuda machine): ' "$DIR/run.log"; then
            ok
            echo "cuda_compile: linked against libcudart; run here: $(head -1 "$DIR/run.log")"
        else
            bad "the CUDA smoke program linked, but neither agreed nor stopped with the seam's message" "$DIR/run.log"
        fi
    else
        bad "the CUDA smoke program does not link against libcudart" "$DIR/link.log"
    fi
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
