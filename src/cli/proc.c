/*
 * proc.c: starting other programs (the C compiler, the built program)
 * without a shell, so no path or argument is ever re-parsed.
 */
#include "cli.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int proc_run(char *const argv[], const char *stdout_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (stdout_path)
        posix_spawn_file_actions_addopen(&fa, 1, stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
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
