#!/usr/bin/env bash
# Layout declarations and their methods against a brute-force judge (tests/layout/layout_judge.py):
# random rows, swizzles and spreads, valid and not; the valid ones' methods on constant arguments
# printed by `cairn run` and held to a model written from docs/memory.md; the invalid ones each
# refused with E-LAYOUT at their line. Seed 1, 800 layouts (`make soak` may run more seeds).
# Prints FAIL lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v python3 >/dev/null || { echo "0 passed, 0 failed, 1 skipped"; exit 0; }
python3 tests/layout/layout_judge.py "$CAIRN" "${LAYOUT_SEED:-1}" "${LAYOUT_COUNT:-800}" "$T"
