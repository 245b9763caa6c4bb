/*
 * target.c: device targets: the spelling, the resolution, the toolkit
 * check, the features and the limits (target.h says what each is).
 *
 * The truth about a feature is what the installed ptxas assembles: each
 * feature has one probe, a kernel of a few instructions that needs exactly
 * that feature, assembled with `ptxas -arch=TARGET`. The answers are cached
 * under build/targets/, one small text file a target keyed by the ptxas
 * release, so a build asks ptxas once. The table below states the PTX ISA's
 * target requirements and answers only where there is no ptxas; the test
 * suite (tests/target/test_targets.sh) holds the two to each other.
 *
 * nvcc, ptxas and nvidia-smi are other programs: each is started without a
 * shell, and what they print is read from a temporary file.
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *const feature_names[] = {
#define X(id, s) s,
    TARGET_FEATURES(X)
#undef X
};

const char *target_feature_name(TargetFeature f)
{
    if ((int)f < 0 || f >= TF_NFEATURES)
        die("bad target feature %d", (int)f);
    return feature_names[f];
}

static const char accepted_forms[] =
    "a device target is sm_ and a compute capability, with an optional `a` (from sm_90) or `f` "
    "(from sm_100): sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a, sm_100f, sm_120, sm_120a";

static void set_error(TargetError *err, DiagCode code, const char *help, const char *fmt, ...)
{
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    snprintf(err->help, sizeof err->help, "%s", help ? help : "");
}

/* ------------------------------------------------------------ spelling */

/* A near miss of the spelling gets the spelling it meant: sm90, SM_90,
 * compute_90, 9.0. */
static bool suggest_spelling(const char *s, char *out, size_t n)
{
    const char *digits = NULL;
    if (!strncmp(s, "SM_", 3) || !strncmp(s, "Sm_", 3))
        digits = s + 3;
    else if (!strncmp(s, "sm", 2) && s[2] >= '0' && s[2] <= '9')
        digits = s + 2;
    else if (!strncmp(s, "compute_", 8))
        digits = s + 8;
    if (digits) {
        snprintf(out, n, "sm_%s", digits);
        return true;
    }
    int major, minor;
    char tail;
    if (sscanf(s, "%d.%d%c", &major, &minor, &tail) == 2 && major > 0 && minor >= 0 && minor < 10) {
        snprintf(out, n, "sm_%d%d", major, minor);
        return true;
    }
    return false;
}

bool target_parse(const char *s, Target *t, TargetError *err)
{
    memset(t, 0, sizeof *t);
    size_t len = strlen(s), nd = 0;
    const char *d = s + 3;
    if (!strncmp(s, "sm_", 3))
        while (d[nd] >= '0' && d[nd] <= '9')
            nd++;
    char suffix = strncmp(s, "sm_", 3) ? 0 : d[nd];
    bool ok = nd >= 2 && nd <= 3 && d[0] != '0' && (suffix == 0 || suffix == 'a' || suffix == 'f') &&
              len == 3 + nd + (suffix != 0);
    if (!ok) {
        char hint[64], help[600];
        if (!strcmp(s, "native") || !strcmp(s, "all") || !strcmp(s, "all-major"))
            snprintf(help, sizeof help, "nothing defaults to the GPU here or to every GPU: name one target; %s",
                     accepted_forms);
        else if (suggest_spelling(s, hint, sizeof hint))
            snprintf(help, sizeof help, "write `%s`; %s", hint, accepted_forms);
        else
            snprintf(help, sizeof help, "%s", accepted_forms);
        set_error(err, E_TARGET, help, "`%s` is not a device target", s);
        return false;
    }
    t->cc = atoi(d);
    t->suffix = suffix;
    snprintf(t->name, sizeof t->name, "%s", s);
    if (suffix == 'a' && t->cc < 90) {
        char help[300];
        snprintf(help, sizeof help, "write `sm_%d`: `a` targets begin at sm_90 (sm_90a, sm_100a, sm_120a)", t->cc);
        set_error(err, E_TARGET, help, "`%s`: there is no `a` target below sm_90", s);
        return false;
    }
    if (suffix == 'f' && t->cc < 100) {
        char help[300];
        if (t->cc >= 90)
            snprintf(help, sizeof help, "write `sm_%d` or `sm_%da`: `f` targets begin at sm_100 (sm_100f, sm_120f)",
                     t->cc, t->cc);
        else
            snprintf(help, sizeof help, "write `sm_%d`: `f` targets begin at sm_100 (sm_100f, sm_120f)", t->cc);
        set_error(err, E_TARGET, help, "`%s`: there is no `f` target below sm_100", s);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ processes */

/* Runs argv (found on PATH) with stdout and stderr into a temporary file and
 * gives back what it printed (at most 64 KiB). Returns the exit status, or
 * -1 when the program could not be started (it is not on PATH). */
static int run_capture(Arena *a, char *const argv[], const char **out)
{
    *out = "";
    char tmpl[] = "/tmp/cairn-target-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        enum { MAX_OUT = 1 << 16 };
        char *buf = malloc(MAX_OUT);
        ssize_t n = buf ? pread(fd, buf, MAX_OUT - 1, 0) : 0;
        *out = buf ? arena_strndup(a, buf, n > 0 ? (size_t)n : 0) : "";
        free(buf);
    } else
        rc = -1;
    close(fd);
    unlink(tmpl);
    return rc;
}

/* "... release 13.0, V13.0.88" -> "13.0.88" (nvcc and ptxas --version). */
static const char *tool_version(Arena *a, const char *prog)
{
    char *argv[] = {(char *)prog, "--version", NULL};
    const char *out;
    if (run_capture(a, argv, &out) != 0)
        return NULL;
    const char *v = strstr(out, ", V");
    if (v) {
        v += 3;
        size_t n = strspn(v, "0123456789.");
        if (n)
            return arena_strndup(a, v, n);
    }
    return "unknown";
}

/* ------------------------------------------------------------ resolution */

/* The capabilities nvidia-smi reports, one "M.m" a line: 0 when there is no
 * nvidia-smi or no GPU, else the number of distinct ones (the first two in
 * caps). */
static int gpu_capabilities(Arena *a, int caps[2], const char **answer)
{
    char *argv[] = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", NULL};
    const char *out;
    *answer = NULL;
    if (run_capture(a, argv, &out) != 0)
        return 0;
    *answer = out;
    int n = 0;
    for (const char *p = out; *p;) {
        int major, minor, used = 0;
        if (sscanf(p, " %d.%d%n", &major, &minor, &used) == 2 && major > 0 && minor >= 0 && minor < 10) {
            int cc = major * 10 + minor;
            bool seen = false;
            for (int i = 0; i < n && i < 2; i++)
                seen |= caps[i] == cc;
            if (!seen) {
                if (n < 2)
                    caps[n] = cc;
                n++;
            }
        }
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return n;
}

bool target_resolve(Arena *a, const char *flag, const char *manifest_value, const char *manifest_path,
                    Target *t, TargetError *err)
{
    if (flag) {
        if (!target_parse(flag, t, err))
            return false;
        t->by = TGT_BY_FLAG;
        return true;
    }
    if (manifest_value) {
        if (!target_parse(manifest_value, t, err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%.200s: [build] device_target: %.280s",
                     manifest_path ? manifest_path : "manifest", err->msg);
            memcpy(err->msg, msg, sizeof msg);
            return false;
        }
        t->by = TGT_BY_MANIFEST;
        t->where = manifest_path;
        return true;
    }
    int caps[2] = {0, 0};
    const char *answer;
    int n = gpu_capabilities(a, caps, &answer);
    if (n == 0) {
        set_error(err, E_TARGET,
                  "name the target: --device-target sm_90a, or device_target = \"sm_90a\" under [build] in "
                  "cairn.toml (nothing defaults to -arch=native)",
                  "no GPU and no target: the program has device work, no --device-target or [build] "
                  "device_target names a target, and nvidia-smi reports %s",
                  answer ? "no GPU" : "nothing (it is not on PATH)");
        return false;
    }
    if (n > 1) {
        char help[300];
        snprintf(help, sizeof help, "name one: --device-target sm_%d or --device-target sm_%d (or device_target "
                 "under [build] in cairn.toml)", caps[0], caps[1]);
        set_error(err, E_TARGET, help,
                  "GPUs of %s capabilities here (%d.%d and %d.%d), and no target named", n == 2 ? "two" : "several",
                  caps[0] / 10, caps[0] % 10, caps[1] / 10, caps[1] % 10);
        return false;
    }
    char name[16];
    snprintf(name, sizeof name, "sm_%d", caps[0]);
    if (!target_parse(name, t, err))
        return false;
    t->by = TGT_BY_NVIDIA_SMI;
    t->where = arena_printf(a, "%d.%d", caps[0] / 10, caps[0] % 10);
    return true;
}

/* ------------------------------------------------------------ toolkit */

/* nvcc's answer, asked once a process: nvcc's answers do not change while
 * cairn runs, and `cairn test DIR` validates the target once per file. */
typedef struct {
    bool asked;
    const char *version;         /* NULL: no nvcc on PATH; else version_buf */
    char version_buf[64];
    char codes[2048];            /* `nvcc --list-gpu-code`: "sm_75\nsm_80\n..." */
    char failed[256];            /* ... or, where it failed, the first line it printed */
} NvccAnswer;

static NvccAnswer *nvcc_answer(void)
{
    static NvccAnswer ans;       /* held in static storage: nothing to free at exit */
    if (ans.asked)
        return &ans;
    ans.asked = true;
    Arena *tmp = arena_new();
    const char *v = tool_version(tmp, "nvcc");
    if (v) {
        snprintf(ans.version_buf, sizeof ans.version_buf, "%s", v);
        ans.version = ans.version_buf;
        char *argv[] = {"nvcc", "--list-gpu-code", NULL};
        const char *out = "";
        if (run_capture(tmp, argv, &out) == 0)
            snprintf(ans.codes, sizeof ans.codes, "%s", out);
        else   /* an option in NVCC_APPEND_FLAGS it rejects, say: not the target's fault */
            snprintf(ans.failed, sizeof ans.failed, "%.*s", (int)strcspn(out ? out : "", "\n"), out ? out : "");
    }
    arena_free(tmp);
    return &ans;
}

static bool list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == '\n' || p[-1] == ' ') && (p[n] == '\n' || p[n] == ' ' || p[n] == '\r' || !p[n]))
            return true;
    return false;
}

/* Does the installed nvcc compile t? The plain capability must be among
 * `--list-gpu-code`; an `a` or `f` target is asked of nvcc by name, since the
 * list holds plain targets only. */
static bool nvcc_compiles(Arena *a, const Target *t, const NvccAnswer *ans)
{
    char plain[16];
    snprintf(plain, sizeof plain, "sm_%d", t->cc);
    if (!list_has(ans->codes, plain))
        return false;
    if (!t->suffix)
        return true;
    char *arch = arena_printf(a, "-arch=%s", t->name);
    char *argv[] = {"nvcc", "--dryrun", arch, "-c", "-x", "cu", "/dev/null", "-o", "/dev/null", NULL};
    const char *out;
    return run_capture(a, argv, &out) == 0;
}

static const char *codes_line(Arena *a, const char *codes)
{
    char *s = arena_strdup(a, codes);
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
        s[--n] = '\0';
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return *s ? s : "none";
}

/* ------------------------------------------------------------ features */

/* The PTX ISA's target requirements, for where there is no ptxas. */
unsigned target_table_features(const Target *t)
{
    int cc = t->cc, major = cc / 10;
    bool specific = t->suffix == 'a' || t->suffix == 'f';
    bool has[TF_NFEATURES] = {
        [TF_BF16] = cc >= 80,
        [TF_WMMA] = cc >= 70,
        [TF_MMA_SYNC] = cc >= 80,
        [TF_CP_ASYNC] = cc >= 80,
        [TF_CLUSTERS] = cc >= 90,
        [TF_TMA] = cc >= 90,
        [TF_WGMMA] = cc == 90 && t->suffix == 'a',
        [TF_TCGEN05] = specific && (major == 10 || major == 11),
        [TF_MMA_F8F6F4] = specific && major >= 10 && major <= 12,
    };
    unsigned bits = 0;
    for (int f = 0; f < TF_NFEATURES; f++)
        if (has[f])
            bits |= 1u << f;
    return bits;
}

/* One kernel a feature, needing that feature and nothing later. */
static const char *const probes[TF_NFEATURES] = {
    [TF_BF16] = ".reg .f32 %f<2>; .reg .b16 %h<2>; .reg .b64 %rd<2>;\n"
                "ld.param.u64 %rd1, [p];\nld.global.f32 %f1, [%rd1];\n"
                "cvt.rn.bf16.f32 %h1, %f1;\nst.global.b16 [%rd1], %h1;\n",
    [TF_WMMA] = ".reg .b32 %a<9>; .reg .f32 %c<9>; .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a1,%a2,%a3,%a4,%a5,%a6,%a7,%a8}, [%rd1];\n"
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c1,%c2,%c3,%c4,%c5,%c6,%c7,%c8}, "
                "{%a1,%a2,%a3,%a4,%a5,%a6,%a7,%a8}, {%a1,%a2,%a3,%a4,%a5,%a6,%a7,%a8}, "
                "{%c1,%c2,%c3,%c4,%c5,%c6,%c7,%c8};\n"
                "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%c1,%c2,%c3,%c4,%c5,%c6,%c7,%c8};\n",
    [TF_MMA_SYNC] = ".reg .b32 %a<5>; .reg .f32 %c<5>; .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
                    "ld.global.v4.b32 {%a1,%a2,%a3,%a4}, [%rd1];\nld.global.v4.f32 {%c1,%c2,%c3,%c4}, [%rd1];\n"
                    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%c1,%c2,%c3,%c4}, {%a1,%a2,%a3,%a4}, "
                    "{%a1,%a2}, {%c1,%c2,%c3,%c4};\nst.global.v4.f32 [%rd1], {%c1,%c2,%c3,%c4};\n",
    [TF_CP_ASYNC] = ".shared .align 16 .b8 s[16]; .reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
                    "ld.param.u64 %rd1, [p];\nmov.u32 %r1, s;\n"
                    "cp.async.cg.shared.global [%r1], [%rd1], 16;\ncp.async.wait_all;\n",
    [TF_CLUSTERS] = ".reg .b64 %rd<2>; .reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\n"
                    "mov.u32 %r1, %cluster_ctarank;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\n"
                    "st.global.u32 [%rd1], %r1;\n",
    [TF_TMA] = ".shared .align 128 .b8 s[256]; .shared .align 8 .b64 bar;\n"
               ".reg .b64 %rd<2>; .reg .b32 %r<4>;\nld.param.u64 %rd1, [p];\n"
               "mov.u32 %r1, s; mov.u32 %r2, bar; mov.u32 %r3, 0;\n"
               "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%r1], [%rd1, {%r3, %r3}], [%r2];\n",
    [TF_WGMMA] = ".reg .b64 %rd<2>; .reg .f32 %f<5>; .reg .pred %p;\nld.param.u64 %rd1, [p];\n"
                 "setp.ne.u64 %p, %rd1, 0;\nwgmma.fence.sync.aligned;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd1, %p, 1, 1, 0, 0;\n"
                 "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
                 "st.global.v4.f32 [%rd1], {%f1,%f2,%f3,%f4};\n",
    [TF_TCGEN05] = ".shared .align 4 .b32 slot; .reg .b32 %r<2>;\nmov.u32 %r1, slot;\n"
                   "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;\n"
                   "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n",
    [TF_MMA_F8F6F4] = ".reg .b32 %a<5>; .reg .f32 %c<5>; .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
                      "ld.global.v4.b32 {%a1,%a2,%a3,%a4}, [%rd1];\nld.global.v4.f32 {%c1,%c2,%c3,%c4}, [%rd1];\n"
                      "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%c1,%c2,%c3,%c4}, "
                      "{%a1,%a2,%a3,%a4}, {%a1,%a2}, {%c1,%c2,%c3,%c4};\n"
                      "st.global.v4.f32 [%rd1], {%c1,%c2,%c3,%c4};\n",
};

/* The newest PTX ISA a CUDA release assembles: 12.x -> 8.x up to 12.5,
 * then 12.6 -> 8.5, 12.8 -> 8.7, 12.9 -> 8.8; 13.x -> 9.x. */
static const char *ptx_isa_for(Arena *a, const char *ptxas_version)
{
    int major = 0, minor = 0;
    sscanf(ptxas_version, "%d.%d", &major, &minor);
    if (major == 12)
        return arena_printf(a, "8.%d", minor <= 5 ? minor : minor - 1);
    if (major == 13)
        return arena_printf(a, "9.%d", minor);
    return major > 13 ? "9.0" : "8.0";
}

/* The probe's kernel for feature f (f < 0: an empty kernel, which only asks
 * whether ptxas knows the target). */
static const char *probe_text(Arena *a, const Target *t, const char *isa, int f)
{
    return arena_printf(a, ".version %s\n.target %s\n.address_size 64\n"
                           ".visible .entry probe(.param .u64 p)\n{\n%sret;\n}\n",
                        isa, t->name, f >= 0 ? probes[f] : "");
}

/* ptxas's release, asked once a process (like nvcc's answers). */
static const char *ptxas_version(Arena *a)
{
    static char version[64];
    static bool asked, present;
    if (!asked) {
        asked = true;
        Arena *tmp = arena_new();
        const char *v = tool_version(tmp, "ptxas");
        if (v) {
            present = true;
            snprintf(version, sizeof version, "%s", v);
        }
        arena_free(tmp);
    }
    return present ? arena_strdup(a, version) : NULL;
}

/* Assembles one probe: 1 when ptxas accepts it, 0 when it refuses, -1 when
 * there is no ptxas (or no place for the probe). */
static int probe_one(Arena *a, const Target *t, const char *isa, int f)
{
    char dir[] = "/tmp/cairn-probe-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    const char *ptx = arena_printf(a, "%s/probe.ptx", dir), *cubin = arena_printf(a, "%s/probe.cubin", dir);
    FILE *fp = fopen(ptx, "w");
    int rc = -1;
    if (fp) {
        fputs(probe_text(a, t, isa, f), fp);
        if (!fclose(fp)) {
            char *argv[] = {"ptxas", arena_printf(a, "-arch=%s", t->name), (char *)ptx, "-o", (char *)cubin, NULL};
            const char *out;
            rc = run_capture(a, argv, &out);
        }
    }
    unlink(ptx);
    unlink(cubin);
    rmdir(dir);
    return rc < 0 ? -1 : rc == 0;
}

int target_probe(Arena *a, const Target *t, TargetFeature f)
{
    const char *v = ptxas_version(a);
    return v ? probe_one(a, t, ptx_isa_for(a, v), (int)f) : -1;
}

/* build/targets/ptxas-VERSION-pPROBES-TARGET.txt: "bf16 yes" a line. The
 * probe set's number changes with the probes, so an old answer is not read. */
enum { PROBE_SET = 1 };

static const char *cache_path(Arena *a, const Target *t, const char *version)
{
    return arena_printf(a, "build/targets/ptxas-%s-p%d-%s.txt", version, PROBE_SET, t->name);
}

static bool cache_read(const char *path, unsigned *bits)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[128];
    unsigned seen = 0, yes = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64], answer[16];
        if (sscanf(line, "%63s %15s", name, answer) != 2)
            continue;
        for (int i = 0; i < TF_NFEATURES; i++)
            if (!strcmp(name, feature_names[i])) {
                seen |= 1u << i;
                if (!strcmp(answer, "yes"))
                    yes |= 1u << i;
            }
    }
    fclose(f);
    *bits = yes;
    return seen == (1u << TF_NFEATURES) - 1;
}

static void cache_write(Arena *a, const char *path, unsigned bits)
{
    mkdir("build", 0755);
    mkdir("build/targets", 0755);
    const char *tmp = arena_printf(a, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;   /* no cache: the next run asks ptxas again */
    for (int i = 0; i < TF_NFEATURES; i++)
        fprintf(f, "%s %s\n", feature_names[i], bits >> i & 1 ? "yes" : "no");
    if (fclose(f) || rename(tmp, path))
        unlink(tmp);
}

/* The features: ptxas's answers, cached; the table where there is no ptxas. */
static void fill_features(Arena *a, Target *t)
{
    const char *v = ptxas_version(a);
    t->ptxas = v;
    t->probed = false;
    t->provided = target_table_features(t);
    if (!v)
        return;
    const char *path = cache_path(a, t, v);
    unsigned bits;
    if (!cache_read(path, &bits)) {
        const char *isa = ptx_isa_for(a, v);
        if (probe_one(a, t, isa, -1) != 1)
            return;   /* this ptxas does not know the target: keep the table */
        bits = 0;
        for (int f = 0; f < TF_NFEATURES; f++)
            if (probe_one(a, t, isa, f) == 1)
                bits |= 1u << f;
        cache_write(a, path, bits);
    }
    t->provided = bits;
    t->probed = true;
}

/* ------------------------------------------------------------ limits */

#define KIB 1024
/* CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability": every row has 255 registers a thread, 64 K registers an SM,
 * 1024 threads a block and 48 KiB of static shared memory a block. The
 * opt-in maximum is the SM's shared memory less the 1 KiB the driver keeps
 * per block (none on 7.5). */
static const TargetLimits limit_rows[] = {
    {75, 255, 65536, 1024, 48 * KIB, 64 * KIB, 64 * KIB, 32, 16},
    {80, 255, 65536, 1024, 48 * KIB, 163 * KIB, 164 * KIB, 64, 32},
    {86, 255, 65536, 1024, 48 * KIB, 99 * KIB, 100 * KIB, 48, 16},
    {87, 255, 65536, 1024, 48 * KIB, 163 * KIB, 164 * KIB, 48, 16},
    {89, 255, 65536, 1024, 48 * KIB, 99 * KIB, 100 * KIB, 48, 24},
    {90, 255, 65536, 1024, 48 * KIB, 227 * KIB, 228 * KIB, 64, 32},
    {100, 255, 65536, 1024, 48 * KIB, 227 * KIB, 228 * KIB, 64, 32},
    {103, 255, 65536, 1024, 48 * KIB, 227 * KIB, 228 * KIB, 64, 32},
    {110, 255, 65536, 1024, 48 * KIB, 227 * KIB, 228 * KIB, 48, 24},
    {120, 255, 65536, 1024, 48 * KIB, 99 * KIB, 100 * KIB, 48, 24},
    {121, 255, 65536, 1024, 48 * KIB, 99 * KIB, 100 * KIB, 48, 24},
};

const TargetLimits *target_limits(int cc)
{
    for (size_t i = 0; i < sizeof limit_rows / sizeof *limit_rows; i++)
        if (limit_rows[i].cc == cc)
            return &limit_rows[i];
    return NULL;
}

/* ------------------------------------------------------------ validation */

bool target_validate(Arena *a, Target *t, TargetError *err)
{
    NvccAnswer *ans = nvcc_answer();
    if (ans->version) {
        t->nvcc = arena_strdup(a, ans->version);
        if (!ans->codes[0]) {
            set_error(err, E_TARGET_TOOLKIT,
                      "run `nvcc --list-gpu-code` to see why; an option in NVCC_APPEND_FLAGS or NVCC_PREPEND_FLAGS "
                      "that nvcc rejects fails every call",
                      "the installed nvcc (%s) cannot say which targets it compiles: `nvcc --list-gpu-code` failed%s%s",
                      ans->version, ans->failed[0] ? ": " : "", ans->failed);
            return false;
        }
        if (!nvcc_compiles(a, t, ans)) {
            char help[512];
            snprintf(help, sizeof help, "this nvcc compiles %s%s; name one of them, or install a CUDA toolkit "
                     "that compiles %s", codes_line(a, ans->codes),
                     t->suffix ? " (with `a` from sm_90 and `f` from sm_100)" : "", t->name);
            set_error(err, E_TARGET_TOOLKIT, help, "the installed nvcc (%s) does not compile %s", ans->version,
                      t->name);
            return false;
        }
    }
    fill_features(a, t);
    t->limits = target_limits(t->cc);
    return true;
}

/* ------------------------------------------------------------ receipt */

static void json_features(FILE *f, unsigned bits)
{
    fputc('[', f);
    bool first = true;
    for (int i = 0; i < TF_NFEATURES; i++)
        if (bits >> i & 1) {
            fprintf(f, "%s\"%s\"", first ? "" : ", ", feature_names[i]);
            first = false;
        }
    fputc(']', f);
}

static void json_opt_str(FILE *f, const char *prefix, const char *s)
{
    if (s)
        fprintf(f, "\"%s%s\"", prefix, s);   /* names and versions: digits, dots, letters, '/' */
    else
        fputs("null", f);
}

void target_write_json(FILE *f, const Target *t)
{
    static const char *const by[] = {"flag", "manifest", "nvidia-smi"};
    fprintf(f, "{\"name\": \"%s\", \"compute_capability\": \"%d.%d\", \"resolved_by\": \"%s\",\n", t->name,
            t->cc / 10, t->cc % 10, by[t->by]);
    fputs("    \"features\": ", f);
    json_features(f, t->provided);
    fputs(", \"needed\": ", f);
    json_features(f, t->needed);
    fputs(", \"lacking\": ", f);
    json_features(f, t->needed & ~t->provided);
    fprintf(f, ",\n    \"features_from\": \"%s\",\n", t->probed ? "ptxas" : t->ptxas ? "table (ptxas does not know the target)"
                                                                              : "table (no ptxas on PATH)");
    fputs("    \"limits\": ", f);
    const TargetLimits *l = t->limits;
    if (l)
        fprintf(f, "{\"source\": \"CUDA C++ Programming Guide, compute capability %d.%d\", "
                   "\"registers_per_thread\": %d, \"registers_per_sm\": %d, \"threads_per_block\": %d, "
                   "\"shared_memory_per_block\": %d, \"shared_memory_per_block_optin\": %d, "
                   "\"shared_memory_per_sm\": %d, \"warps_per_sm\": %d, \"blocks_per_sm\": %d}",
                l->cc / 10, l->cc % 10, l->regs_per_thread, l->regs_per_sm, l->threads_per_block,
                l->smem_per_block, l->smem_per_block_optin, l->smem_per_sm, l->warps_per_sm, l->blocks_per_sm);
    else
        fputs("null", f);
    fputs(",\n    \"nvcc\": ", f);
    json_opt_str(f, "", t->nvcc);
    fputs(", \"probed_with\": ", f);
    json_opt_str(f, "ptxas ", t->probed ? t->ptxas : NULL);
    fputc('}', f);
}
