/*
 * proc.c: starting other programs (the C compiler, the built program)
 * without a shell, so no path or argument is ever re-parsed; and the
 * signals that would end cairn while it waits for one, or while a build
 * has temporaries to remove.
 *
 * Passing signals on. While cairn waits for a child, SIGINT, SIGTERM and
 * SIGHUP are blocked and taken with sigtimedwait; each is sent on to the
 * child, and cairn keeps waiting until the child has ended, so a signal
 * sent to cairn alone (`kill -INT PID`, not the terminal's Ctrl-C to the
 * whole group) never leaves the child running as an orphan. The signal is
 * then made pending again; it ends cairn when the caller unblocks it.
 *
 * Deferring. A build that has written temporaries holds a ProcDefer: the
 * three signals stay blocked, the build asks proc_interrupted() between its
 * steps, removes what it wrote when one is pending, and proc_defer_end then
 * lets the signal end cairn as it would have (default action, whatever
 * disposition cairn inherited, so the build cannot carry on half-stopped).
 * Defers nest: only the outermost end delivers the signal.
 *
 * A SIGHUP that cairn inherited ignored (nohup) stays ignored: it is neither
 * taken nor passed on. SIGINT and SIGTERM are always taken while blocked:
 * a shell starts a background job with SIGINT ignored, yet `kill -INT` sent
 * to it by PID means to stop it.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long one sigtimedwait waits before waitpid is asked again: SIGCHLD
 * ends the wait at once; this only bounds a wake-up that was missed. */
#define PROC_POLL_NS 200000000L

/* The signals that end cairn and are passed on: see the top of the file. */
static void ending_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
        sigaddset(set, SIGHUP);
}

void proc_defer_begin(ProcDefer *d)
{
    sigset_t set;
    ending_signals(&set);
    sigprocmask(SIG_BLOCK, &set, &d->saved);
}

int proc_interrupted(void)
{
    sigset_t pending, ending;
    sigpending(&pending);
    ending_signals(&ending);
    static const int order[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (sigismember(&ending, order[i]) && sigismember(&pending, order[i]))
            return order[i];
    return 0;
}

void proc_take_pending(void)
{
    sigset_t set;
    ending_signals(&set);
    struct timespec now = {0, 0};
    while (sigtimedwait(&set, NULL, &now) > 0)
        ;
}

void proc_defer_end(ProcDefer *d)
{
    int sig = proc_interrupted();
    if (sig && !sigismember(&d->saved, sig))
        signal(sig, SIG_DFL);      /* the outermost end: the signal ends cairn now */
    sigprocmask(SIG_SETMASK, &d->saved, NULL);
}

/* The child starts with every signal unblocked and the ending ones at their
 * default action, whatever cairn holds blocked while it waits. */
static void spawn_attrs(posix_spawnattr_t *at)
{
    sigset_t none, dfl;
    sigemptyset(&none);
    ending_signals(&dfl);
    sigaddset(&dfl, SIGCHLD);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setsigdefault(at, &dfl);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

/* Waits for pid, passing each ending signal on. Returns the wait status. */
static int wait_passing_on(pid_t pid, ProcCall *c, sigset_t *taken)
{
    sigset_t set;
    ending_signals(&set);
    sigaddset(&set, SIGCHLD);
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            die("proc: waitpid(%d): %s", (int)pid, strerror(errno));
        struct timespec poll = {0, PROC_POLL_NS};
        int sig = sigtimedwait(&set, NULL, &poll);
        if (sig > 0 && sig != SIGCHLD) {
            kill(pid, sig);
            c->forwarded = sig;
            sigaddset(taken, sig);
        }
    }
}

int proc_call(ProcCall *c)
{
    c->start_errno = 0;
    c->signal = 0;
    c->forwarded = 0;
    sigset_t block, saved, taken;
    ending_signals(&block);
    sigaddset(&block, SIGCHLD);
    sigemptyset(&taken);
    sigprocmask(SIG_BLOCK, &block, &saved);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (c->stdout_path)
        posix_spawn_file_actions_addopen(&fa, 1, c->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t at;
    spawn_attrs(&at);
    pid_t pid;
    int rc = c->file ? posix_spawn(&pid, c->file, &fa, &at, c->argv, environ)
                     : posix_spawnp(&pid, c->argv[0], &fa, &at, c->argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    int result = -1;
    if (rc != 0) {
        c->start_errno = rc;
    } else {
        int status = wait_passing_on(pid, c, &taken);
        if (WIFSIGNALED(status)) {
            c->signal = WTERMSIG(status);
            result = 128 + c->signal;
        } else {
            result = WEXITSTATUS(status);
        }
    }
    /* What was passed on is cairn's to act on too: pending again, it ends
     * cairn when unblocked, unless the caller defers it. */
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof ending / sizeof *ending; i++)
        if (sigismember(&taken, ending[i]))
            raise(ending[i]);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    return result;
}

int proc_run(char *const argv[], const char *stdout_path)
{
    ProcCall c = {.argv = argv, .stdout_path = stdout_path};
    return proc_call(&c);
}

const char *proc_signal_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}, {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "an unnamed signal";
}

const char *proc_version(Arena *a, const char *prog)
{
    char tmpl[] = "/tmp/cairn-version-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return "unknown";
    close(fd);
    char *argv[] = {(char *)prog, "--version", NULL};
    const char *result = "unknown";
    if (proc_run(argv, tmpl) == 0) {
        FILE *f = fopen(tmpl, "r");
        char line[512];
        if (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            result = arena_strdup(a, line);
        }
        if (f)
            fclose(f);
    }
    unlink(tmpl);
    return result;
}
