/*
 * test.c: `cairn test`.
 *
 * A CAIRN test is a function declared `test fn NAME() { ... }` that passes
 * when it returns and fails when a guard fails in it (assert(c) is a guard,
 * and so is every bounds or overflow check). Each file's tests are built into
 * one executable whose argv[1] names the test to run, and each test runs in a
 * process of its own, so one failing test cannot take the others with it.
 */
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every .cairn file under dir, sorted, into files. */
static void collect(Arena *a, const char *dir, Vec *files)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    Vec here = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "build"))
            continue;
        vec_push(a, &here, arena_printf(a, "%s/%s", dir, e->d_name));
    }
    closedir(d);
    if (here.n)
        qsort(here.v, (size_t)here.n, sizeof *here.v, cmp_str);
    for (int i = 0; i < here.n; i++) {
        const char *p = here.v[i];
        struct stat st;
        if (stat(p, &st))
            continue;
        size_t n = strlen(p);
        if (S_ISDIR(st.st_mode))
            collect(a, p, files);
        else if (n > 6 && !strcmp(p + n - 6, ".cairn"))
            vec_push(a, files, (void *)p);
    }
}

typedef struct {
    int passed, failed;
} Tally;

/* The project a DIR holds: its cairn.toml, whose [build] device_target
 * judges every file as `cairn run DIR` would (NULL fields: no manifest). */
typedef struct {
    const char *path, *device_target;
} Project;

static void run_file_tests(const char *path, const Options *o, const Project *p, Tally *t)
{
    Unit u;
    if (!unit_load(&u, path, o)) {
        t->failed++;
        unit_free(&u);
        return;
    }
    Vec tests = {0};
    bool checked = unit_check_target(&u, o, p->device_target, p->path);
    if (checked)
        for (int i = 0; i < u.program->block.stmts.n; i++) {
            Node *d = u.program->block.stmts.v[i];
            if (d->kind == N_FN && d->fn.is_test)
                vec_push(u.arena, &tests, (void *)d->fn.id);
        }
    if (!checked) {
        printf("test %s ... REFUSED\n", path);
        t->failed++;
    } else if (tests.n) {
        BuildPlan b;
        Options bo = *o;
        build_plan_for(u.arena, &b, path, NULL, &bo);
        b.dir = arena_printf(u.arena, "build/test/%s", b.name);
        b.c_path = arena_printf(u.arena, "%s/%s.c", b.dir, b.name);
        b.exe_path = arena_printf(u.arena, "%s/%s", b.dir, b.name);
        b.receipt = arena_printf(u.arena, "%s/%s.receipt.json", b.dir, b.name);
        b.test_main = true;
        if (build_unit(&u, &b, &bo) != EXIT_OK) {
            printf("test %s ... BUILD FAILED\n", path);
            t->failed += tests.n;
        } else
            for (int i = 0; i < tests.n; i++) {
                char *argv[] = {(char *)b.exe_path, tests.v[i], NULL};
                fflush(stdout);
                int rc = proc_run(argv, NULL);
                printf("test %s::%s ... %s", path, (char *)tests.v[i], rc == 0 ? "ok\n" : "FAILED");
                if (rc)
                    printf(" (exit %d)\n", rc);
                rc == 0 ? t->passed++ : t->failed++;
            }
    }
    unit_free(&u);
}

static const char test_help[] =
    "usage: cairn test [FILE.cairn | DIR] [--emulate] [--device-target T]\n"
    "\n"
    "Runs every `test fn NAME() { ... }` in FILE, or in every .cairn file under\n"
    "DIR (default: the current directory); DIR's cairn.toml, if any, names the\n"
    "device target ([build] device_target). A test passes when it returns and\n"
    "fails when a guard fails in it (assert(c) is a guard). Each test runs in a\n"
    "process of its own. Prints one line a test and `N passed, N failed`; exits\n"
    "0 when every test passed and the files were accepted, 1 otherwise.\n"
    "\n"
    "  --device-target T judge and build each file for a device target\n"
    "  --emulate         run device work on host threads (CAIRN_EMULATE), judged\n"
    "                    against the device target\n";

int cmd_test(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "test", argc, argv, "json emulate device-target"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(test_help, stdout);
        return EXIT_OK;
    }
    Arena *a = arena_new();
    Vec files = {0};
    const char *path = o.path ? o.path : ".";
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "cairn test: no such file or directory: %s\n", path);
        arena_free(a);
        return EXIT_USAGE;
    }
    Project p = {0};
    if (S_ISDIR(st.st_mode)) {
        const char *toml = arena_printf(a, "%s/cairn.toml", path);
        Manifest m;
        if (!stat(toml, &st) && !manifest_read(a, toml, o.emulate, &m)) {
            arena_free(a);
            return m.exit_code;
        }
        if (!stat(toml, &st))
            p = (Project){toml, m.device_target};
        collect(a, path, &files);
    } else
        vec_push(a, &files, (void *)path);
    Tally t = {0};
    for (int i = 0; i < files.n; i++)
        run_file_tests(files.v[i], &o, &p, &t);
    printf("%d passed, %d failed\n", t.passed, t.failed);
    arena_free(a);
    return t.failed ? EXIT_REFUSED : EXIT_OK;
}
