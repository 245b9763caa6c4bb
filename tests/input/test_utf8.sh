#!/usr/bin/env bash
# utf8_decode (src/util.c) against an independent oracle, Python's strict UTF-8 decoder, on every
# string of one and two bytes, the edges of every sequence length (overlongs, surrogates, past
# U+10FFFF, truncations) and 200,000 random strings of three and four bytes.
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=c17 -D_DEFAULT_SOURCE -O1 -Isrc -o "$T/probe" tests/input/utf8_probe.c src/util.c; then
    echo "FAIL utf8: cannot build tests/input/utf8_probe.c"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
python3 - "$T/probe" <<'PY'
import random, subprocess, sys

def oracle(b):
    """(length, code point) of the one character b starts with, or (0, 0)."""
    for k in range(1, min(4, len(b)) + 1):
        try:
            s = b[:k].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(s) == 1:
            return k, ord(s)
        return 0, 0
    return 0, 0

groups = {"every string of one and two bytes":
              [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256) for b in range(256)],
          "the edges of three and four bytes": [], "200,000 random strings of three and four bytes": []}
for lead in (0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5):
    for b in (0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0):
        groups["the edges of three and four bytes"] += [bytes([lead, b, 0x80]), bytes([lead, b, 0xBF, 0x80]),
                                                        bytes([lead, b])]
r = random.Random(1)
groups["200,000 random strings of three and four bytes"] = [
    bytes(r.randrange(0x80, 0x100) if i == 0 else r.choice((r.randrange(0x80, 0xC0), r.randrange(256)))
          for i in range(r.choice((3, 4)))) for _ in range(200000)]
passed = failed = 0
for name, cases in groups.items():
    out = subprocess.run([sys.argv[1]], input="".join(c.hex() + "\n" for c in cases),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    wrong = [(c, line) for c, line in zip(cases, out) if tuple(int(x) for x in line.split()) != oracle(c)]
    for c, line in wrong[:5]:
        print(f"FAIL utf8: {name}: {c.hex()}: utf8_decode gives {line}, Python {oracle(c)}")
    passed += not wrong
    failed += bool(wrong)
print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
PY
