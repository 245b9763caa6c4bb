#!/usr/bin/env bash
# Input hygiene (docs/cli.md "What cairn reads", docs/diagnostics.md "Text that cannot be shown"):
# only regular files up to 256 MiB are read; a file that is not text is one E-ENCODING line; the
# error list stops at 50 with an honest count; control bytes, bidirectional overrides and bytes
# that are not UTF-8 are shown escaped with the caret under them; file names of any bytes keep
# --json and the build receipt valid JSON. Inputs are generated here, never checked in.
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL input: $1"; fi
}
# status ARGS...: runs cairn (at most 10 s: nothing here may hang), stdout in $T/out, stderr in $T/err
status() { timeout 10 "$CAIRN" "$@" >"$T/out" 2>"$T/err"; echo $?; }
has_byte() { LC_ALL=C grep -q "$(printf "$1")" "$2"; }   # has_byte '\033' FILE
# Every line of FILE is one JSON object.
json_lines() { python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line)
' "$1" 2>/dev/null; }

# The caret's column in its line equals the escape's column in the excerpt (tabs stay tabs).
caret_under() {   # caret_under FILE TEXT: the caret line's first ^ is where TEXT starts above it
    python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for i, l in enumerate(lines[:-1]):
    nxt = lines[i + 1]
    if l[:5].strip().isdigit() and l[5:8] == " | " and nxt.startswith("      | ") and "^" in nxt:
        if l.find(sys.argv[2]) == nxt.index("^"):
            sys.exit(0)
sys.exit(1)' "$1" "$2"
}

# ---- only regular files, and not past the limit ------------------------------------------------
ok "/dev/zero is refused, exit 2" "$([ "$(status check /dev/zero)" = 2 ] && grep -q 'is a device' "$T/err"; echo $?)"
ok "a directory is refused, exit 2" "$([ "$(status check "$T")" = 2 ] && grep -q 'is a directory' "$T/err"; echo $?)"
mkfifo "$T/fifo"
ok "a FIFO is refused without waiting for a writer" \
    "$([ "$(status check "$T/fifo")" = 2 ] && grep -q 'pipe' "$T/err"; echo $?)"
truncate -s $((256 * 1024 * 1024 + 1)) "$T/huge.cairn"      # sparse: no disk, no memory
ok "a file past 256 MiB is refused, naming the limit" \
    "$([ "$(status check "$T/huge.cairn")" = 2 ] && grep -q 'at most 256 MiB' "$T/err"; echo $?)"
rm -f "$T/huge.cairn"
ok "a missing file is still 'cannot read', exit 2" \
    "$([ "$(status check "$T/none.cairn")" = 2 ] && grep -q 'cannot read' "$T/err"; echo $?)"

# ---- a file that is not text -------------------------------------------------------------------
head -c 65536 "$CAIRN" >"$T/elf.cairn"                       # an ELF header: 0x7f E L F 2 1 1 0
ok "a binary file is one E-ENCODING at its first NUL" \
    "$([ "$(status check "$T/elf.cairn")" = 1 ] && [ "$(grep -c 'error\[' "$T/err")" = 1 ] &&
       grep -q 'elf.cairn:1:8: error\[E-ENCODING\]: not a text file: byte 0x00 at offset 7' "$T/err" &&
       grep -q 'refused (1 error)' "$T/err" && grep -q 'help:' "$T/err"; echo $?)"
ok "... and its excerpt is escaped and cut short" \
    "$(! has_byte '\177' "$T/err" && grep -q '^    1 | \\x7fELF' "$T/err" &&
       [ "$(sed -n 2p "$T/err" | wc -c)" -lt 200 ]; echo $?)"
python3 -c 'import random, sys
r = random.Random(7)
sys.stdout.buffer.write(bytes(r.randrange(1, 256) for _ in range(20000)))' >"$T/noise.cairn"
ok "bytes that are mostly not UTF-8 are one E-ENCODING" \
    "$([ "$(status check "$T/noise.cairn")" = 1 ] && [ "$(grep -c 'error\[' "$T/err")" = 1 ] &&
       grep -q 'error\[E-ENCODING\]: not UTF-8 text: [0-9]* of its first 8192 bytes' "$T/err"; echo $?)"
python3 -c 'import sys
sys.stdout.buffer.write(b"fn main() -> i32 {\n    // " + b"x" * 9000 + b"\n    let b = \0 2;\n    return 0;\n}\n")' >"$T/latenul.cairn"
ok "a NUL past the first 8 KiB is one E-PARSE, shown as \\x00" \
    "$([ "$(status check "$T/latenul.cairn")" = 1 ] && [ "$(grep -c 'error\[' "$T/err")" = 1 ] &&
       grep -q 'latenul.cairn:3:13: error\[E-PARSE\]: unexpected character `\\x00`' "$T/err" &&
       caret_under "$T/err" '\x00'; echo $?)"
printf '// caf\351: a Latin-1 comment is still a text file\nfn main() -> i32 { return 0; }\n' >"$T/latin1.cairn"
ok "near miss: a Latin-1 byte in a comment is accepted" "$([ "$(status check "$T/latin1.cairn")" = 0 ]; echo $?)"

# ---- a string literal that is not UTF-8 ---------------------------------------------------------
# (generated here: the corpus's round trip and parse tests take every file there as one that lexes)
printf 'fn main() -> i32 {\n    println("caf\351 cr\350me");\n    return 0;\n}\n' >"$T/latin1str.cairn"
ok "a Latin-1 string literal is one E-ENCODING at its first bad byte" \
    "$([ "$(status check "$T/latin1str.cairn")" = 1 ] && [ "$(grep -c 'error\[' "$T/err")" = 1 ] &&
       grep -q 'latin1str.cairn:2:17: error\[E-ENCODING\]: string literal is not valid UTF-8: byte 0xe9' "$T/err" &&
       grep -q '  help: a string holds UTF-8 text' "$T/err" && caret_under "$T/err" '\xe9'; echo $?)"
printf 'fn main() -> i32 {\n    println("caf\303\251 cr\303\250me \342\234\223");\n    return 0;\n}\n' >"$T/utf8str.cairn"
ok "near miss: the same string in UTF-8 is accepted" "$([ "$(status check "$T/utf8str.cairn")" = 0 ]; echo $?)"
printf 'fn main() -> i32 {\n    println("\355\240\200 \300\257 \364\220\200\200");\n    return 0;\n}\n' >"$T/strict.cairn"
ok "a surrogate, an overlong form and past U+10FFFF are not UTF-8 either" \
    "$([ "$(status check "$T/strict.cairn")" = 1 ] && grep -q 'strict.cairn:2:14: error\[E-ENCODING\].*byte 0xed' "$T/err"; echo $?)"

# ---- the error list stops at 50 ----------------------------------------------------------------
python3 -c 'import sys
sys.stdout.write("fn main() -> i32 {\n" + "    let a = 3 # 4;\n" * 200000 + "    return 0;\n}\n")' >"$T/lexerrs.cairn"
start=$(date +%s%N)
st=$(status check "$T/lexerrs.cairn")
ms=$((($(date +%s%N) - start) / 1000000))
ok "200,000 bad lines: 50 errors shown, then 'too many errors; stopping'" \
    "$([ "$st" = 1 ] && [ "$(grep -c 'error\[E-PARSE\]' "$T/err")" = 50 ] &&
       [ "$(grep -c 'too many errors; stopping after 50' "$T/err")" = 1 ] &&
       grep -q '^   51 | ' "$T/err" && ! grep -q '^   52 | ' "$T/err"; echo $?)"
ok "... the count is not taken past the stop" "$(tail -1 "$T/err" | grep -q 'refused (50 errors)'; echo $?)"
ok "... in under 2 s (${ms} ms)" "$([ "$ms" -lt 2000 ]; echo $?)"
python3 -c 'import sys
sys.stdout.write("fn main() -> i32 {\n" + "    let a = ;\n" * 2000 + "    return 0;\n}\n")' >"$T/parseerrs.cairn"
ok "parser errors stop at 50 too" \
    "$([ "$(status check "$T/parseerrs.cairn")" = 1 ] && [ "$(grep -c 'error\[E-PARSE\]' "$T/err")" = 50 ] &&
       tail -1 "$T/err" | grep -q 'refused (50 errors)'; echo $?)"
status check --json "$T/lexerrs.cairn" >/dev/null
ok "--json: the stop is a note object; every line is JSON" \
    "$(json_lines "$T/err" && [ "$(wc -l <"$T/err")" = 51 ] &&
       tail -1 "$T/err" | grep -q '"severity": "note".*"too many errors; stopping after 50"' &&
       grep -q '"errors": 50' "$T/out"; echo $?)"

# ---- source text is shown escaped, the caret under it ------------------------------------------
printf 'fn main() -> i32 {\n\tlet x = 1;\n\tlet y\033[2J = 2;\n    return 0;\n}\n' >"$T/esc.cairn"
status check "$T/esc.cairn" >/dev/null
ok "ESC in the source is shown as \\x1b, never raw" \
    "$(! has_byte '\033' "$T/err" && grep -q 'unexpected character `\\x1b`' "$T/err" &&
       grep -q "$(printf '^    3 | \tlet y\\\\x1b\\[2J = 2;$')" "$T/err"; echo $?)"
ok "... and the caret stands under the escape" "$(caret_under "$T/err" '\x1b'; echo $?)"
printf 'fn main() -> i32 {\n    let \342\200\256x = 1;\n    return zz\377;\n}\n' >"$T/bidi.cairn"
status check "$T/bidi.cairn" >/dev/null
ok "a bidirectional override is shown as \\u{202e}" \
    "$(! has_byte '\342\200\256' "$T/err" && grep -q 'unexpected character `\\u{202e}`' "$T/err" &&
       caret_under "$T/err" '\u{202e}'; echo $?)"
ok "a byte that is not UTF-8 is shown as \\xff" \
    "$(! has_byte '\377' "$T/err" && grep -q 'unexpected character `\\xff`' "$T/err" &&
       caret_under "$T/err" '\xff'; echo $?)"
printf 'fn main() -> i32 {\n    let s = "\033]0;owned\007"; #\n    return 0;\n}\n' >"$T/strctl.cairn"
status check "$T/strctl.cairn" >/dev/null
ok "a control byte on the excerpt's line, in a string, is escaped too" \
    "$(! has_byte '\033' "$T/err" && ! has_byte '\007' "$T/err" &&
       grep -q 'let s = "\\x1b\]0;owned\\x07"; #$' "$T/err"; echo $?)"
status check --json "$T/bidi.cairn" >/dev/null
ok "--json quotes the same escaped text, valid JSON" \
    "$(json_lines "$T/err" && grep -q '"message": "unexpected character `\\\\u{202e}`"' "$T/err"; echo $?)"
python3 -c 'import sys
sys.stdout.write("fn main() -> i32 {\n    let v = " + "a + " * 3000 + "#;\n    return 0;\n}\n")' >"$T/long.cairn"
status check "$T/long.cairn" >/dev/null
ok "a 12,000-column line is shown as a window around the caret" \
    "$(grep -q 'long.cairn:2:12013: error\[E-PARSE\]' "$T/err" && [ "$(sed -n 2p "$T/err" | wc -c)" -lt 120 ] &&
       sed -n 2p "$T/err" | grep -q '^    2 | \.\.\..*+ #;$' && caret_under "$T/err" '#'; echo $?)"

# ---- file names of any bytes -------------------------------------------------------------------
weird="$T/$(printf 'we"ird\\na\001me\377').cairn"
printf 'fn main() -> i32 {\n    let a:u64 = 1;\n    let b:u32 = 2;\n    return i32(a + b);\n}\n' >"$weird"
status check --json "$weird" >/dev/null
ok "--json with a file name of quote, backslash, control and 0xff is valid JSON" \
    "$(json_lines "$T/err" && grep -q '"file": "[^"]*we\\"ird\\\\na\\u0001me\\\\xff.cairn"' "$T/err"; echo $?)"
status check "$weird" >/dev/null
grep -v ': refused (' "$T/err" >"$T/diags"      # the summary line is commands.c's, not the sink's
ok "... and the diagnostics' human form shows the name escaped" \
    "$(! has_byte '\001' "$T/diags" && ! has_byte '\377' "$T/diags" &&
       grep -q 'we"ird\\na\\x01me\\xff.cairn:4:16' "$T/diags"; echo $?)"
good="$T/$(printf 'ok"\\\001\377').cairn"
printf 'fn main() -> i32 { return 0; }\n' >"$good"
if command -v "${CC:-cc}" >/dev/null; then
    st=$(status build --out "$T/b" "$good")
    ok "the build receipt of such a file is valid JSON" \
        "$([ "$st" = 0 ] && python3 -m json.tool "$T"/b/*.receipt.json >/dev/null &&
           python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["sources"][0]["path"].endswith("ok\"\\\u0001\\xff.cairn"), r["sources"][0]["path"]' "$T"/b/*.receipt.json; echo $?)"
else
    skip=$((skip + 1))
    echo "SKIP input: the receipt test needs a C compiler"
fi

# The verdict line of check and explain names the file as diagnostics do: escaped.
esc="$T/v$(printf '\033')[31m.cairn"
printf 'fn main() -> i32 { return 0; }\n' >"$esc"
ok "check's 'accepted' line escapes the file name" "$([ "$(status check "$esc")" = 0 ] && ! has_byte '\033' "$T/out" &&
    grep -q 'v\\x1b\[31m.cairn: accepted$' "$T/out"; echo $?)"
printf 'fn main() -> i32 { return nope; }\n' >"$esc"
ok "check's 'refused' line escapes it too" "$([ "$(status check "$esc")" = 1 ] && ! has_byte '\033' "$T/err" &&
    grep -q 'v\\x1b\[31m.cairn: refused (1 error)$' "$T/err"; echo $?)"
ok "and explain's" "$([ "$(status explain "$esc")" = 1 ] && ! has_byte '\033' "$T/err"; echo $?)"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
