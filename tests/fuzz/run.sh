#!/usr/bin/env bash
# Fuzz the front end (lex, parse, check) and the emitter with libFuzzer.
#
#   bash tests/fuzz/run.sh [SECONDS] [text|gen|both]      (default: 60, both)
#
# Builds the targets (`make fuzz`) and fuzzes for SECONDS (split in two halves with `both`):
#   text  bin/cairn-fuzz: inputs are CAIRN source, up to 64 KiB (the target's default -max_len).
#         The corpus, fuzz-corpus/ (gitignored), is seeded with every .cairn file under tests/ and
#         ../shared/spec/examples (when that exists).
#   gen   bin/cairn-fuzz-gen: inputs are choices of the program generator (tests/fuzz/gen.c): long
#         chains, deep blocks, many statements, long names, huge literals. The corpus,
#         build/fuzz-corpus-gen/, is seeded with a few choice lists that make each shape big.
# The corpora persist between runs, so runs add up. A crash, hang (-timeout), leak, out-of-memory
# or sanitizer report makes libFuzzer stop and write its input under build/fuzz-artifacts/ (an
# ignored dir, apart from the corpora so that a crash is never replayed as a seed); the script then
# exits non-zero. Minimize one with
#   bin/cairn-fuzz -minimize_crash=1 -runs=10000 -exact_artifact_path=OUT build/fuzz-artifacts/crash-...
# print a generator input as the program it stands for with
#   bin/cairn-fuzz-print build/fuzz-artifacts/crash-... > crash.cairn
# and keep it as tests/fuzz/regress/NAME.cairn with its `// expect:` header.
# Extra libFuzzer flags: FUZZ_FLAGS="-jobs=4 -workers=4" bash tests/fuzz/run.sh 600; to go on past
# findings and collect them all: FUZZ_FLAGS="-fork=1 -ignore_crashes=1 -ignore_timeouts=1".
set -u
cd "$(dirname "$0")/../.."
SECONDS_TO_RUN=${1:-60}
MODE=${2:-both}
ARTIFACTS=build/fuzz-artifacts

case $MODE in
text | gen) ;;
both) SECONDS_TO_RUN=$(((SECONDS_TO_RUN + 1) / 2)) ;;
*) echo "run.sh: the mode is text, gen or both, not '$MODE'" >&2; exit 2 ;;
esac

make -s fuzz >/dev/null || { echo "run.sh: make fuzz failed" >&2; exit 2; }
mkdir -p "$ARTIFACTS"

seed_text() {
    local seeds
    mkdir -p fuzz-corpus
    seeds=$(find tests -name '*.cairn' -not -path 'tests/out/*')
    [ -d ../shared/spec/examples ] && seeds="$seeds $(find ../shared/spec/examples -name '*.cairn')"
    for f in $seeds; do
        # named by content, like libFuzzer's own corpus files, so reseeding adds nothing twice
        cp "$f" "fuzz-corpus/seed-$(sha1sum <"$f" | cut -c1-16)"
    done
}

# Each seed is a choice list of gen.c: 1 = go on in t0, then the shape (0 chain, 1 blocks, 2 deep
# expression, 3 many statements, 4 wide call, 5 long name, 6 huge literal) and its choices; the
# size is an order of magnitude and two bytes (pick_count).
seed_gen() {
    local d=build/fuzz-corpus-gen
    mkdir -p "$d"
    printf '\001\000\000\003\000\100\001\000\000\001\000\001' >"$d/seed-chain-1k"
    printf '\001\000\001\003\000\100\001\000\000\001\000\001' >"$d/seed-and-chain-1k"
    printf '\001\000\000\002\000\100\003\000\000\001\000\001' >"$d/seed-right-chain"
    printf '\001\001\002\000\010\001\003\001' >"$d/seed-blocks-100"
    printf '\001\001\002\000\310\002\001\000\001' >"$d/seed-blocks-300"
    printf '\001\002\003\002\000\100' >"$d/seed-calls-300"
    printf '\001\003\003\000\100\003\000\001\002' >"$d/seed-many-1k"
    printf '\001\004\002\000\100\001' >"$d/seed-wide-call"
    printf '\001\005\003\000\100\001\003' >"$d/seed-long-name"
    printf '\001\006\002\000\050\000' >"$d/seed-huge-int"
    printf '\001\006\002\000\050\002' >"$d/seed-huge-float"
}

# `make fuzz` builds with UBSan in its default recover mode, where a report is printed and the
# run goes on; halt_on_error makes undefined behaviour stop the fuzzer like a crash does.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_text() {
    seed_text
    bin/cairn-fuzz fuzz-corpus \
        -dict=tests/fuzz/dict.txt \
        -timeout=10 -rss_limit_mb=2048 \
        -max_total_time="$SECONDS_TO_RUN" \
        -artifact_prefix="$ARTIFACTS/" \
        -print_final_stats=1 \
        ${FUZZ_FLAGS:-}
}

# A generated program is up to 4 MiB (gen.h), so an input may take seconds under ASan.
run_gen() {
    seed_gen
    bin/cairn-fuzz-gen build/fuzz-corpus-gen \
        -timeout=30 -rss_limit_mb=4096 \
        -max_total_time="$SECONDS_TO_RUN" \
        -artifact_prefix="$ARTIFACTS/" \
        -print_final_stats=1 \
        ${FUZZ_FLAGS:-}
}

rc=0
if [ "$MODE" != gen ]; then
    run_text || rc=$?
fi
if [ "$MODE" != text ] && [ $rc -eq 0 ]; then
    run_gen || rc=$?
fi
if [ $rc -ne 0 ]; then
    echo "run.sh: the fuzzer stopped with status $rc; its input is under $ARTIFACTS/" >&2
    exit 1
fi
