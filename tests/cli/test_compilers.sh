#!/usr/bin/env bash
# Blaming the right party (docs/cli.md, "When the compiler fails"): a $CC that cannot be run, or that
# does not work, is named as the environment's, with exit 2 and a help line, never as a cairn bug; so is
# the default cc missing from PATH, nvcc missing for a device build, and a C compiler killed by a
# signal. A compiler that works and refuses the emitted C is cairn's bug ("internal error"), and the
# emitted NAME.c is kept to report. Prints one line per failed check and `N passed, N failed, N skipped`.
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
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL compilers: $1 -- $(head -c 400 "$T/err")"; fi
}
build() {   # build ENV... : cairn build prog.cairn in $T with ENV; exit status in $T/rc
    (cd "$T" && env "$@" "$CAIRN" build prog.cairn >/dev/null 2>"$T/err"; echo $? >"$T/rc")
}
rc() { cat "$T/rc"; }
not_ours() { ! grep -q 'internal error\|bug in cairn' "$T/err"; }

printf 'fn main() -> i32 {\n    println("hi");\n    return 0;\n}\n' >"$T/prog.cairn"

build CC=/nonexistent/cc
ok "CC=/nonexistent/cc: exit 2" "$([ "$(rc)" = 2 ]; echo $?)"
ok "... names the compiler, says it is \$CC, and why it cannot run" "$(grep -q "cannot run the C compiler '/nonexistent/cc' (the environment's \$CC): No such file or directory" "$T/err"; echo $?)"
ok "... with a help line, and no word of a bug in cairn" "$(grep -q '^  help: set CC to a working C17 compiler' "$T/err" && not_ours; echo $?)"

build CC=false
ok "CC=false: exit 2" "$([ "$(rc)" = 2 ]; echo $?)"
ok "... says \$CC does not work, even on an empty program" "$(grep -q "the C compiler 'false' (the environment's \$CC) does not work: it failed (status 1), and fails on an empty program too" "$T/err"; echo $?)"
ok "... with a help line, and no word of a bug in cairn" "$(grep -q '^  help:' "$T/err" && not_ours; echo $?)"

build -u CC PATH=/nonexistent
ok "no \$CC and no cc on PATH: exit 2, naming the default" "$([ "$(rc)" = 2 ] &&
    grep -q "cannot run the C compiler 'cc' (the default: \$CC is not set)" "$T/err" && not_ours; echo $?)"

# A compiler killed by a signal: out of memory, or stopped from outside.
printf '#!/bin/sh\ncase " $* " in *" --version "*) exec cc "$@" ;; esac\nkill -KILL $$\n' >"$T/killedcc"
chmod +x "$T/killedcc"
build CC="$T/killedcc"
ok "a compiler killed by SIGKILL: exit 2, the signal named, not a bug in cairn" "$([ "$(rc)" = 2 ] &&
    grep -q "was killed by signal 9 (SIGKILL)" "$T/err" && not_ours; echo $?)"

# A compiler that works but refuses the emitted program (as it would if cairn emitted bad C).
printf '#!/bin/sh\ncase " $* " in *.probe.c*|*" --version "*) exec cc "$@" ;; esac\necho "prog.c:1: error: made up" >&2\nexit 1\n' >"$T/pickycc"
chmod +x "$T/pickycc"
build CC="$T/pickycc"
ok "a working compiler that refuses the emitted C: cairn's bug, exit 2" "$([ "$(rc)" = 2 ] &&
    grep -q "internal error: the C compiler '$T/pickycc' (the environment's \$CC) refused the emitted build/prog/prog.c" "$T/err"; echo $?)"
ok "... and build/prog/prog.c is there to report, with no executable beside it" "$([ -s "$T/build/prog/prog.c" ] &&
    [ ! -e "$T/build/prog/prog" ] && [ -z "$(ls "$T/build/prog" | grep cairn-tmp)" ]; echo $?)"

# nvcc that cannot be started, for a device build.
cat >"$T/dev.cairn" <<'EOF'
fn main() -> i32 {
  buffer x:f32[4]@device = zeroed;
  parallel i in 4 { x[i] = 1.0; }
  return 0;
}
EOF
if PATH=/usr/bin:/bin command -v nvcc >/dev/null 2>&1; then
    echo "SKIP compilers: nvcc is in /usr/bin, so no PATH here lacks it"
    skip=$((skip + 1))
else
    (cd "$T" && PATH=/usr/bin:/bin "$CAIRN" build --device-target sm_90a dev.cairn >/dev/null 2>"$T/err"; echo $? >"$T/rc")
    ok "no nvcc on PATH for a device build: exit 2, nvcc and the target named, a help line" "$([ "$(rc)" = 2 ] &&
        grep -q "cannot run the CUDA compiler 'nvcc' (from PATH) for the device target sm_90a: No such file or directory" "$T/err" &&
        grep -q '^  help: put the CUDA toolkit' "$T/err" && not_ours; echo $?)"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
