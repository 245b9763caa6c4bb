/*
 * gen_main.c: prints the program that an input of the fuzzer's
 * structure-aware mode stands for, so that a finding of bin/cairn-fuzz-gen
 * can be replayed with bin/cairn itself:
 *
 *   bin/cairn-fuzz-print build/fuzz-artifacts/crash-... > crash.cairn
 *   bin/cairn check crash.cairn
 */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cairn-fuzz-print INPUT > PROGRAM.cairn\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static uint8_t data[1 << 20];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    size_t len;
    char *prog = gen_program(data, n, &len);
    fwrite(prog, 1, len, stdout);
    free(prog);
    return 0;
}
