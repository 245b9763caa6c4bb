/*
 * stage.c: the staging directory of one build.
 *
 * A build writes every output (NAME.c, NAME.h, the object, the executable
 * or libNAME.a, the receipt) under its final name inside a directory of its
 * own, DIR/NAME.cairn-tmp-PID-XXXXXX (mkdtemp), beside the outputs: the C
 * compiler reads a C file no other build can replace, and each output is
 * moved into place by rename(2), which replaces a file atomically on one
 * file system. So two builds of one program at once never see each other's
 * half-written files, and a reader of DIR sees an old output or a new one,
 * never a partial one. A build that fails or is interrupted removes its
 * stage; one killed outright (SIGKILL) leaves it, and the name says whose it
 * was: a later build of DIR removes every stage whose owner is no longer
 * running (stage_open).
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE_MARK ".cairn-tmp-"

const char *stage_path(Arena *a, const Stage *s, const char *final)
{
    const char *base = strrchr(final, '/');
    return arena_printf(a, "%s/%s", s->path, base ? base + 1 : final);
}

/* Removes a directory holding plain files only (a stage never holds more). */
static void remove_flat_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char file[4096];
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if ((size_t)snprintf(file, sizeof file, "%s/%s", path, e->d_name) < sizeof file)
                unlink(file);
        }
        closedir(d);
    }
    rmdir(path);
}

void stage_remove(Stage *s)
{
    if (s->path)
        remove_flat_dir(s->path);
    s->path = NULL;
}

/* The owner's PID in a stage's name "NAME.cairn-tmp-PID-XXXXXX", or 0 when
 * the name is not a stage's. */
static long stage_owner(const char *name)
{
    const char *m = strstr(name, STAGE_MARK);
    if (!m)
        return 0;
    m += strlen(STAGE_MARK);
    char *end;
    long pid = strtol(m, &end, 10);
    if (end == m || *end != '-' || strlen(end + 1) != 6 || pid <= 0)
        return 0;
    return pid;
}

/* Stages in dir whose owner has ended: its process is gone (ESRCH). A
 * live owner, or one we may not signal (EPERM), keeps its stage. */
static void sweep_dead(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        long pid = stage_owner(e->d_name);
        if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_flat_dir(path);
    }
    closedir(d);
}

bool stage_open(Arena *a, Stage *s, const char *dir, const char *name)
{
    sweep_dead(dir);
    char *tmpl = arena_printf(a, "%s/%s" STAGE_MARK "%ld-XXXXXX", dir, name, (long)getpid());
    s->path = mkdtemp(tmpl);
    if (!s->path) {
        fprintf(stderr, "cairn: cannot create a build directory in %s: %s\n", dir, strerror(errno));
        return false;
    }
    return true;
}

bool stage_commit(Arena *a, const Stage *s, const char *final)
{
    if (rename(stage_path(a, s, final), final) == 0)
        return true;
    fprintf(stderr, "cairn: cannot move the new %s into place: %s\n", final, strerror(errno));
    return false;
}
