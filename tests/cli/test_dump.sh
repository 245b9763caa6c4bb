#!/usr/bin/env bash
# cairn check --dump=ast|types|effects (docs/cli.md): each prints what its pass made, in its stable
# form, on stdout before the verdict; a pass that did not run prints nothing; an unknown dump is a
# usage error. Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL dump: $1"; fi
}
status() { "$@" >"$T/out" 2>"$T/err"; echo $?; }
has() { grep -qxF -- "$1" "$T/out"; }   # has LINE: stdout has exactly this line

cat >"$T/p.cairn" <<'EOF'
fn scale(n:usize, x:rw<u64>[n]) {
    parallel i in n { x[i] = x[i] * 2; }
}
fn main() -> i32 {
    buffer x:u64[4] = zeroed;
    scale(4, x);
    println(x[0] + 1);
    return 0;
}
EOF
cat >"$T/bad.cairn" <<'EOF'
fn main() -> i32 {
    let a:u64 = true;
    return 0;
}
EOF

ok "ast: exit 0" "$([ "$(status "$CAIRN" check --dump=ast "$T/p.cairn")" = 0 ]; echo $?)"
ok "ast: the program, a function, its region, indented by depth" "$(has "N_PROGRAM 1:1" && has "  N_FN 1:1 scale" &&
    has "      N_PARALLEL 2:5 i" && has "            N_BINARY 2:30 *" && has "              N_INT 2:37 2"; echo $?)"
ok "ast: types and parameters are in the tree" "$(has "    N_PARAM 1:10 n" && has "      N_TYPE 1:12 usize"; echo $?)"
ok "ast: before the verdict" "$([ "$(tail -1 "$T/out")" = "$T/p.cairn: accepted" ]; echo $?)"

ok "types: exit 0" "$([ "$(status "$CAIRN" check --dump=types "$T/p.cairn")" = 0 ]; echo $?)"
ok "types: each function and its parameters" "$(has "fn scale (fn_scale): fn(usize, rw<u64>[n])" &&
    has "  1:19 param x: rw<u64>[n]"; echo $?)"
ok "types: every expression with its type (a literal gets the type it was given)" "$(has "  2:30 N_BINARY x[i] * 2: u64" &&
    has "  2:37 N_INT 2: u64" && has "  7:13 N_BINARY x[0] + 1: u64"; echo $?)"

ok "effects: exit 0" "$([ "$(status "$CAIRN" check --dump=effects "$T/p.cairn")" = 0 ]; echo $?)"
ok "effects: each function's row" "$(has "fn scale (fn_scale): [par:host, read:x, trap, write:x]" &&
    has "fn main (fn_main): [alloc, io, par:host, read:x, trap, write:x]"; echo $?)"

ok "a refused program: the ast is printed, the types are not" "$([ "$(status "$CAIRN" check --dump=ast "$T/bad.cairn")" = 1 ] &&
    has "  N_FN 1:1 main" && [ "$(status "$CAIRN" check --dump=types "$T/bad.cairn")" = 1 ] && ! grep -q "^fn" "$T/out" &&
    grep -q "E-TYPE-MISMATCH" "$T/err"; echo $?)"
ok "an unknown dump is a usage error naming the known ones" "$([ "$(status "$CAIRN" check --dump=tree "$T/p.cairn")" = 2 ] &&
    grep -q "ast|types|effects" "$T/err" && [ ! -s "$T/out" ]; echo $?)"
ok "--dump is check's option only" "$([ "$(status "$CAIRN" expand --dump=ast "$T/p.cairn")" = 2 ]; echo $?)"

# a chain of 200,000 terms dumps one node a line, by a loop (no recursion down the chain)
awk 'BEGIN { printf "fn main() -> i32 {\n    let s:u64 = 0"; for (i = 0; i < 200000; i++) printf " + 1";
            print ";\n    return 0;\n}" }' >"$T/chain.cairn"
ok "a 200,000-term chain: one line a node" "$([ "$(status "$CAIRN" check --dump=ast "$T/chain.cairn")" = 0 ] &&
    [ "$(grep -c "N_INT" "$T/out")" = 200002 ] && [ "$(grep -c "N_BINARY" "$T/out")" = 200000 ]; echo $?)"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
