#!/usr/bin/env bash
# Fuzz the front end (lex, parse, check) with libFuzzer.
#
#   bash tests/fuzz/run.sh [SECONDS]      (default 60)
#
# Builds bin/cairn-fuzz (`make fuzz`), seeds the corpus dir fuzz-corpus/ (gitignored) with every
# .cairn file under tests/ and ../shared/spec/examples (when that exists), and fuzzes for SECONDS.
# The corpus persists between runs, so runs add up. A crash, hang (-timeout), leak, out-of-memory
# or sanitizer report makes libFuzzer stop and write its input under build/fuzz-artifacts/ (an
# ignored dir, apart from the corpus so that a crash is never replayed as a seed); the script then
# exits non-zero. Minimize one with
#   bin/cairn-fuzz -minimize_crash=1 -runs=10000 -exact_artifact_path=OUT build/fuzz-artifacts/crash-...
# and keep it as tests/fuzz/regress/NAME.cairn with its `// expect:` header.
# Extra libFuzzer flags: FUZZ_FLAGS="-jobs=4 -workers=4" bash tests/fuzz/run.sh 600
set -u
cd "$(dirname "$0")/../.."
SECONDS_TO_RUN=${1:-60}
CORPUS=fuzz-corpus
ARTIFACTS=build/fuzz-artifacts

make -s fuzz >/dev/null || { echo "run.sh: make fuzz failed" >&2; exit 2; }

mkdir -p "$CORPUS" "$ARTIFACTS"
seeds=$(find tests -name '*.cairn' -not -path 'tests/out/*')
[ -d ../shared/spec/examples ] && seeds="$seeds $(find ../shared/spec/examples -name '*.cairn')"
for f in $seeds; do
    # named by content, like libFuzzer's own corpus files, so reseeding adds nothing twice
    cp "$f" "$CORPUS/seed-$(sha1sum <"$f" | cut -c1-16)"
done

# `make fuzz` builds with UBSan in its default recover mode, where a report is printed and the
# run goes on; halt_on_error makes undefined behaviour stop the fuzzer like a crash does.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

bin/cairn-fuzz "$CORPUS" \
    -dict=tests/fuzz/dict.txt \
    -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
    -max_total_time="$SECONDS_TO_RUN" \
    -artifact_prefix="$ARTIFACTS/" \
    -print_final_stats=1 \
    ${FUZZ_FLAGS:-}
rc=$?
if [ $rc -ne 0 ]; then
    echo "run.sh: the fuzzer stopped with status $rc; its input is under $ARTIFACTS/" >&2
    exit 1
fi
