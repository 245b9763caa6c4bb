/*
 * gen.h: the fuzzer's structure-aware mode: input bytes read as the choices
 * of a program generator (see gen.c).
 */
#ifndef CAIRN_FUZZ_GEN_H
#define CAIRN_FUZZ_GEN_H

#include <stddef.h>
#include <stdint.h>

/* The biggest program gen_program writes: past it, open blocks are closed
 * and nothing more is added. Big enough for 10^5-term chains and 20,000
 * statements, small enough that one input checks in well under the
 * fuzzer's -timeout under ASan. */
enum { GEN_MAX_BYTES = 4 << 20 };

/* The program that the choices in data[0..size) make: a malloc'd,
 * NUL-terminated text of *len bytes (the caller frees it). The same bytes
 * always make the same program. */
char *gen_program(const uint8_t *data, size_t size, size_t *len);

#endif
