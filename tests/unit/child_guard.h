/*
 * child_guard.h: shared by the runtime's unit tests. A guard aborts the
 * process, so a test of one runs it in a child and reads what it said.
 */
#ifndef CAIRN_TEST_CHILD_GUARD_H
#define CAIRN_TEST_CHILD_GUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child; true when it died of SIGABRT having written exactly
 * want (and a newline) on stderr. */
static bool child_guard(void (*fn)(void), const char *want)
{
    int p[2];
    if (pipe(p))
        return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);
        dup2(p[1], 2);
        close(p[0]);
        fn();
        _exit(0);
    }
    close(p[1]);
    char buf[512] = {0};
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(p[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    bool ok = WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && !strncmp(buf, want, strlen(want)) &&
              buf[strlen(want)] == '\n';
    if (!ok)
        printf("  child said: %s", buf);
    return ok;
}

#endif
