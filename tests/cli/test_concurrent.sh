#!/usr/bin/env bash
# Builds side by side, and builds cut short (docs/cli.md, "Outputs"): four `cairn run` of one file in
# one directory at once, five times over, each exits 0 with the right output; a build stopped by
# SIGTERM or SIGINT while the C compiler runs (a slow $CC that writes half an output first) leaves no
# partial NAME.c, NAME, NAME.h, libNAME.a or receipt, keeps a complete earlier build as it was, and
# removes its staging directory; one killed by SIGKILL leaves only its recognisable staging directory,
# which the next build removes; a failed library build leaves no header without its archive.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
cleanup() {   # the slow compilers' sleeps that outlived a SIGKILLed cairn
    [ -f "$T/sleepers" ] && while read -r p; do kill "$p" 2>/dev/null; done <"$T/sleepers"
    rm -rf "$T"
}
trap cleanup EXIT
pass=0
fail=0
ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL concurrent: $1"; fi
}

cat >"$T/prog.cairn" <<'EOF'
fn tri(n:u64) -> u64 {
    let mut s:u64 = 0;
    for i in 0..n { s += i + 1; }
    return s;
}
fn main() -> i32 {
    println("tri", tri(100), tri(2000));
    return 0;
}
EOF
cp "$T/prog.cairn" "$T/lib.cairn"
want="tri 5050 2001000"

# A C compiler that takes its time: it names itself in $MARK (its PID, which becomes sleep's), writes
# half an output first, as a real one might, and never finishes on its own.
cat >"$T/slowcc" <<'EOF'
#!/bin/sh
case " $* " in *" --version "*) exec cc "$@" ;; esac
out=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
[ -n "$out" ] && printf 'half an output' >"$out"
echo $$ >"$MARK.tmp" && mv "$MARK.tmp" "$MARK"
exec sleep 60
EOF
chmod +x "$T/slowcc"

outputs_of() {   # the final outputs and staging directories under build/NAME, one a line
    ls -a "$1" 2>/dev/null | grep -v '^\.\.\?$' | sort
}

# ---- 1. four runs at once, five times
all_ok=0
for round in 1 2 3 4 5; do
    for i in 1 2 3 4; do
        (cd "$T" && "$CAIRN" run prog.cairn >"out.$i" 2>"err.$i"; echo $? >"rc.$i") &
    done
    wait
    for i in 1 2 3 4; do
        if [ "$(cat "$T/rc.$i")" != 0 ] || [ "$(cat "$T/out.$i")" != "$want" ]; then
            all_ok=1
            echo "  round $round run $i: exit $(cat "$T/rc.$i"), output '$(cat "$T/out.$i")', $(head -c 300 "$T/err.$i")"
        fi
    done
done
ok "4 concurrent runs of one file, 5 times: each exits 0 and prints '$want'" $all_ok
ok "after them, build/prog holds prog, prog.c and the receipt, and no staging directory" \
    "$([ "$(outputs_of "$T/build/prog" | tr '\n' ' ')" = "prog prog.c prog.receipt.json " ]; echo $?)"
ok "the receipt is complete JSON" "$(python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
    "$T/build/prog/prog.receipt.json" 2>/dev/null; echo $?)"

# ---- 2. a build stopped while the compiler runs
# stopped_build DIR SIGNAL [ARGS...]: starts `cairn build` in DIR with the slow compiler, sends SIGNAL to
# cairn alone once the compiler runs; cairn's exit status goes to $T/rc, the compiler's PID to $T/sleeper.
stopped_build() {
    local dir=$1 sig=$2 mark="$T/mark"
    shift 2
    rm -f "$mark" "$T/sleeper"
    (cd "$dir" && CC="$T/slowcc" MARK="$mark" exec "$CAIRN" build "$@" >/dev/null 2>"$T/stopped.err") &
    local pid=$! n=0
    while [ ! -s "$mark" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    if [ -s "$mark" ]; then cp "$mark" "$T/sleeper"; cat "$mark" >>"$T/sleepers"; fi
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null    # (bash would report the SIGKILL)
    echo $? >"$T/rc"
}
rc_is() { [ "$(cat "$T/rc")" = "$1" ]; }

mkdir -p "$T/fresh"
cp "$T/prog.cairn" "$T/fresh/"
stopped_build "$T/fresh" TERM prog.cairn
ok "SIGTERM to cairn mid-compile: it exits 143" "$(rc_is 143; echo $?)"
ok "... and leaves no output and no staging directory" "$([ -z "$(outputs_of "$T/fresh/build/prog")" ]; echo $?)"
ok "... and the compiler it ran is gone too" "$(sleep 0.2; [ -s "$T/sleeper" ] && ! kill -0 "$(cat "$T/sleeper")" 2>/dev/null; echo $?)"

# A complete earlier build stays as it was, byte for byte.
(cd "$T/fresh" && "$CAIRN" build prog.cairn >/dev/null 2>&1)
sums=$(cd "$T/fresh/build/prog" && md5sum prog prog.c prog.receipt.json 2>/dev/null)
stopped_build "$T/fresh" INT prog.cairn
ok "SIGINT to cairn mid-compile: it exits 130" "$(rc_is 130; echo $?)"
ok "... and the earlier build's outputs are untouched, and no staging directory is left" \
    "$([ "$(cd "$T/fresh/build/prog" && md5sum prog prog.c prog.receipt.json 2>/dev/null)" = "$sums" ] &&
        [ "$(outputs_of "$T/fresh/build/prog" | tr '\n' ' ')" = "prog prog.c prog.receipt.json " ] &&
        [ "$("$T/fresh/build/prog/prog")" = "$want" ]; echo $?)"

cp "$T/lib.cairn" "$T/fresh/"
stopped_build "$T/fresh" TERM --header lib.cairn
ok "a library build stopped by SIGTERM exits 143" "$(rc_is 143; echo $?)"
ok "... and leaves no lib.h, liblib.a, lib.c or receipt" "$([ -z "$(outputs_of "$T/fresh/build/lib")" ]; echo $?)"

# ---- 3. SIGKILL: nothing partial under a final name; the next build removes the leftovers
mkdir -p "$T/killed"
cp "$T/prog.cairn" "$T/killed/"
stopped_build "$T/killed" KILL prog.cairn
ok "SIGKILL to cairn mid-compile" "$(rc_is 137; echo $?)"
left=$(outputs_of "$T/killed/build/prog")
ok "... leaves no final output, only a staging directory named prog.cairn-tmp-PID-XXXXXX" \
    "$(echo "$left" | grep -qE '^prog\.cairn-tmp-[0-9]+-......$' && [ "$(echo "$left" | wc -l)" = 1 ]; echo $?)"
[ -s "$T/sleeper" ] && kill "$(cat "$T/sleeper")" 2>/dev/null
ok "the next build succeeds and removes the dead build's staging directory" \
    "$( (cd "$T/killed" && "$CAIRN" build prog.cairn >/dev/null 2>&1) &&
        [ "$(outputs_of "$T/killed/build/prog" | tr '\n' ' ')" = "prog prog.c prog.receipt.json " ]; echo $?)"
# A live build's staging directory is never taken for a dead one's.
mkdir -p "$T/killed/build/prog/prog.cairn-tmp-$$-abcdef"
(cd "$T/killed" && "$CAIRN" build prog.cairn >/dev/null 2>&1)
ok "a staging directory whose owner still runs is left alone" "$([ -d "$T/killed/build/prog/prog.cairn-tmp-$$-abcdef" ]; echo $?)"

# ---- 4. a failed library build leaves no half of the pair
mkdir -p "$T/failed"
cp "$T/lib.cairn" "$T/failed/"
ok "a library build whose compiler fails exits 2" "$( (cd "$T/failed" && CC=false "$CAIRN" build --header lib.cairn \
    >/dev/null 2>&1); [ $? = 2 ]; echo $?)"
ok "... and leaves neither lib.h nor liblib.a" "$([ ! -e "$T/failed/build/lib/lib.h" ] && [ ! -e "$T/failed/build/lib/liblib.a" ] &&
    [ -z "$(ls "$T/failed/build/lib" | grep cairn-tmp)" ]; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
