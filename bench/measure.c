/*
 * measure.c: runs a command and prints "WALL_NS CPU_NS MAXRSS_KB" on stderr
 * (clock_gettime around the child, getrusage of it): bench/check_speed.sh
 * and bench/coop_check_speed.sh build it. Its exit status is the child's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    (void)argc;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t p = fork();
    if (p == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    long long wall = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "%lld %lld %ld\n", wall, cpu, ru.ru_maxrss);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
