#!/usr/bin/env bash
# The derive grad judge (tests/grad/grad_judge.py): random differentiable functions in the page's
# forms, each f_grad held to central differences inside the program (make soak runs more seeds).
# GRAD_SEED, GRAD_COUNT: seed 1, 60 functions. Prints the judge's FAIL lines and
# `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 tests/grad/grad_judge.py "$CAIRN" "${GRAD_SEED:-1}" "${GRAD_COUNT:-60}" "$T"
