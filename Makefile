# CAIRN toolchain. `make` builds bin/cairn; `make test` runs the whole suite.
# Objects go under build/obj-$(CC)$(SUFFIX)/ so gcc, clang and sanitizer builds never mix.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c17 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Wno-unused-parameter
ALLCFLAGS = $(WARN) $(CFLAGS) $(EXTRA_CFLAGS)
BUILD   ?= build/obj-$(notdir $(CC))$(SUFFIX)
BIN     ?= bin/cairn$(SUFFIX)

SRCS    = $(wildcard src/*.c) $(wildcard src/cli/*.c)
LIBSRCS = $(filter-out src/main.c src/cli/%,$(SRCS))
OBJS    = $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS = $(LIBSRCS:%.c=$(BUILD)/%.o)
HDRS    = $(wildcard src/*.h) $(wildcard src/cli/*.h)

.PHONY: all test test-quick test-exhaustive gpu asan clang fuzz bench-check bench-coop-check bench-emit clean

all: build/.setup-ok $(BIN) $(BUILD)/libcairn.a

# Installs (or names) what the build needs, once per checkout.
build/.setup-ok: tools/setup.sh
	bash tools/setup.sh
	@mkdir -p build && touch $@

$(BIN): $(OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -o $@ $(OBJS) -lcjson -lcrypto -lm

$(BUILD)/libcairn.a: $(LIBOBJS)
	@rm -f $@
	ar rcs $@ $(LIBOBJS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

# The compiler under ASan and UBSan, with the tree verified after every pass (CN_VERIFY, src/verify.c):
# the suite runs with it in CI.
asan:
	$(MAKE) SUFFIX=-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DCN_VERIFY"

# The same sources under clang, -Werror.
clang:
	$(MAKE) CC=clang SUFFIX=-clang

# The whole suite: gcc and clang builds under -Werror, the unit tests, and the corpus run with the
# compiler as built and again with it under ASan and UBSan.
test: all clang asan
	CAIRNS="bin/cairn bin/cairn-asan" bash tests/run.sh

# The suite with the plain compiler only (quicker, while working).
test-quick: all
	bash tests/run.sh

# Every f32 input through each storage float's narrowing, against MPFR (minutes; both cores), then
# every f32 input of each portable math function and 20 million f64 inputs each (hours of CPU).
test-exhaustive:
	bash tests/unit/exhaustive_floats.sh
	bash tests/math/exhaustive_math.sh

# The device suite, on a machine with an NVIDIA GPU: logs under build/gpu (see tests/device/run.sh),
# then every device program it built under compute-sanitizer (tests/device/sanitize.sh).
gpu:
	bash tests/device/run.sh build/gpu
	bash tests/device/sanitize.sh build/gpu

# libFuzzer over lexer, parser, checker and emitter (tests/fuzz/README.md): bin/cairn-fuzz reads
# inputs as CAIRN text, bin/cairn-fuzz-gen as choices of a program generator (tests/fuzz/gen.c), and
# bin/cairn-fuzz-print prints the program a generator input stands for.
FUZZ_CC = clang -std=c17 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Isrc
fuzz:
	$(MAKE) CC=clang SUFFIX=-fuzz CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" build/obj-clang-fuzz/libcairn.a
	@mkdir -p bin
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o bin/cairn-fuzz tests/fuzz/fuzz_front.c build/obj-clang-fuzz/libcairn.a -lm
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -DFUZZ_GENERATE -o bin/cairn-fuzz-gen tests/fuzz/fuzz_front.c tests/fuzz/gen.c build/obj-clang-fuzz/libcairn.a -lm
	$(FUZZ_CC) -o bin/cairn-fuzz-print tests/fuzz/gen_main.c tests/fuzz/gen.c

bench-check: all
	bash bench/check_speed.sh

# How long checking cooperative regions takes (issue 13's cost: milliseconds for the page's examples,
# under 100 ms for a 1024-thread region with a 10-phase loop).
bench-coop-check: all
	bash bench/coop_check_speed.sh

# Parse, check and emit (to a counting sink, without cc): lines/s from 10^3 to 10^6 lines.
bench-emit: all
	bash bench/emit_speed.sh

# The race judge at length (tests/par/race_judge.py, docs/testing.md): SOAK_SEEDS (a range or a
# list) of SOAK_COUNT programs each; make test runs one seed of 4000. Then the cooperative-region
# judge (tests/coop/coop_judge.py): COOP_SOAK_SEEDS of COOP_SOAK_COUNT; make test runs one seed of 500.
# Then the fast version's judge (tests/coop/fast_judge.py): FAST_SOAK_SEEDS of FAST_SOAK_COUNT; make
# test runs one seed of 40. Then the layout judge (tests/layout/layout_judge.py): LAYOUT_SOAK_SEEDS
# of 800 layouts; make test runs seed 1. Then the fragment judge (tests/tensor/frag_judge.py):
# FRAG_SOAK_SEEDS of 500 programs; make test runs seed 1 with 200. Then the derive grad judge
# (tests/grad/grad_judge.py): GRAD_SOAK_SEEDS of 200 functions; make test runs seed 1 with 60.
.PHONY: soak
SOAK_SEEDS ?= 1-40
SOAK_COUNT ?= 2500
COOP_SOAK_SEEDS ?= 1-20
COOP_SOAK_COUNT ?= 500
FAST_SOAK_SEEDS ?= 2 3 4 5 6 7 8 9 10 11
FAST_SOAK_COUNT ?= 200
LAYOUT_SOAK_SEEDS ?= 2 3 4 5 6 7 8 9 10 11
FRAG_SOAK_SEEDS ?= 2 3 4 5 6 7 8 9 10 11
GRAD_SOAK_SEEDS ?= 2 3 4 5 6 7 8 9 10 11
soak: all
	JUDGE_SEEDS=$(SOAK_SEEDS) JUDGE_COUNT=$(SOAK_COUNT) bash tests/par/test_race_judge.sh
	COOP_SEEDS=$(COOP_SOAK_SEEDS) COOP_COUNT=$(COOP_SOAK_COUNT) bash tests/coop/test_coop_judge.sh
	d=$$(mktemp -d) && for s in $(FAST_SOAK_SEEDS); do \
		python3 tests/coop/fast_judge.py bin/cairn $$s $(FAST_SOAK_COUNT) $$d >$$d/log; rc=$$?; \
		grep -v '^fast judge\|passed' $$d/log | head; tail -2 $$d/log; [ $$rc = 0 ] || exit 1; done; rm -rf $$d
	d=$$(mktemp -d) && for s in $(LAYOUT_SOAK_SEEDS); do \
		LAYOUT_SEED=$$s bash tests/layout/test_layout_judge.sh >$$d/log; rc=$$?; \
		tail -3 $$d/log; [ $$rc = 0 ] || exit 1; done; rm -rf $$d
	d=$$(mktemp -d) && for s in $(FRAG_SOAK_SEEDS); do \
		FRAG_SEED=$$s FRAG_COUNT=500 bash tests/tensor/test_frag_judge.sh >$$d/log; rc=$$?; \
		tail -3 $$d/log; [ $$rc = 0 ] || exit 1; done; rm -rf $$d
	d=$$(mktemp -d) && for s in $(GRAD_SOAK_SEEDS); do \
		GRAD_SEED=$$s GRAD_COUNT=200 bash tests/grad/test_grad_judge.sh >$$d/log; rc=$$?; \
		tail -3 $$d/log; [ $$rc = 0 ] || exit 1; done; rm -rf $$d

clean:
	rm -rf build bin
