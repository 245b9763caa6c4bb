#!/usr/bin/env bash
# The fragment judge (tests/tensor/frag_judge.py): random cooperative regions of WMMA and mma.sync
# stores and loads, a thread's reads and writes and barriers, each held to a model of the phase rule
# that executes every thread (make soak runs more seeds). FRAG_SEED, FRAG_COUNT: seed 1, 200 programs.
# Prints the judge's FAIL lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 tests/tensor/frag_judge.py "$CAIRN" "${FRAG_SEED:-1}" "${FRAG_COUNT:-200}" "$T"
