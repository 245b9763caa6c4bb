/*
 * utf8_probe.c: utf8_decode over byte strings read from stdin, one a line
 * in hex; prints "LENGTH CODEPOINT" for each (0 0 when not UTF-8), for
 * test_utf8.sh to compare with Python's strict decoder.
 */
#include "cairn.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        char bytes[8];
        size_t n = 0;
        for (char *p = line; p[0] && p[1] && p[0] != '\n' && n < sizeof bytes; p += 2) {
            char hex[3] = {p[0], p[1], 0};
            bytes[n++] = (char)strtoul(hex, NULL, 16);
        }
        uint32_t cp = 0;
        int k = utf8_decode(bytes, bytes + n, &cp);
        printf("%d %u\n", k, k ? (unsigned)cp : 0u);
    }
    return 0;
}
