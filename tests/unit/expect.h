/*
 * expect.h: the counters and the check of the unit tests written in C.
 *
 * EXPECT(cond, fmt, ...) counts a pass, or prints `FAIL file:line: message`
 * and counts a failure; expect_summary() prints the runner's last line
 * (`N passed, N failed, 0 skipped`, tests/run.sh) and gives the exit status.
 */
#ifndef CAIRN_TEST_EXPECT_H
#define CAIRN_TEST_EXPECT_H

#include <stdio.h>

static int passed, failed;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (cond) {                                                           \
            passed++;                                                         \
        } else {                                                              \
            failed++;                                                         \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                       \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
    } while (0)

static inline int expect_summary(void)
{
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}

#endif
