#!/usr/bin/env bash
# Random cooperative regions (the judge's generator, tests/coop/coop_judge.py) that the checker
# accepts, run on the emulated machine with their views @device and on host threads as they are:
# both exit 0 and print the same checksums of what they wrote (tests/coop/coop_emulate_diff.py).
# COOP_EMU_SEED (default 1) and COOP_EMU_COUNT (default 60 programs) widen the run.
# Prints FAIL lines and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 tests/coop/coop_emulate_diff.py "$CAIRN" "${COOP_EMU_SEED:-1}" "${COOP_EMU_COUNT:-60}" "$T"
