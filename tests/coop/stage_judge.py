#!/usr/bin/env python3
"""A brute-force judge for the stage rule (src/check_stage.c).

Random cooperative regions with one pipeline of depth 1 to 4: fills, waits, reads, releases and
barriers, in counted loops, loops whose trip count is a parameter (n1, n2) and ifs on bool
parameters (c1, c2). The judge runs each program concretely for every value of its parameters
(trip counts 0 to TRIPS, both truths), on an explicit ring of stages with pointers -- the page's
rules, kept apart from the checker's own abstraction (a count of stages in each state, loops that
must give back their state):

    fill     the stage at the fill pointer must be free; it goes in flight
    wait     no stage may be readable (else busy); the stage at the wait pointer must be in flight
    read     a stage must be readable
    release  the readable stage becomes released
    barrier  every released stage becomes free

A program is clean when no run breaks a rule. Soundness: the checker must refuse every program a
run breaks (any E-STAGE-* or E-COOP-* code). Precision: how many clean programs it accepts; a clean
program it refuses with E-STAGE-LOOP is counted, not failed (a loop of unknown trip count must give
back its state, which is stronger than what runs up to TRIPS show), and any other refusal of a clean
program is a failure.

    stage_judge.py --self-test
    stage_judge.py CHECKER SEEDS COUNT WORKDIR
"""
import json
import os
import random
import subprocess
import sys

TRIPS = 6
FREE, FLIGHT, READY, RELEASED = "free", "flight", "ready", "released"


class Broken(Exception):
    pass


class Ring:
    def __init__(self, depth):
        self.st = [FREE] * depth
        self.fp = 0
        self.wp = 0

    def op(self, o):
        d = len(self.st)
        if o == "fill":
            if self.st[self.fp % d] != FREE:
                raise Broken("E-STAGE-BUSY")
            self.st[self.fp % d] = FLIGHT
            self.fp += 1
        elif o == "wait":
            if READY in self.st:
                raise Broken("E-STAGE-BUSY")
            if self.st[self.wp % d] != FLIGHT:
                raise Broken("E-STAGE-UNREADY")
            self.st[self.wp % d] = READY
            self.wp += 1
        elif o in ("read", "release"):
            if READY not in self.st:
                raise Broken("E-STAGE-UNREADY")
            if o == "release":
                self.st[self.st.index(READY)] = RELEASED
        elif o == "barrier":
            self.st = [FREE if s == RELEASED else s for s in self.st]


def run(body, ring, env):
    for s in body:
        if isinstance(s, str):
            ring.op(s)
        elif s[0] == "for":
            count = s[1] if isinstance(s[1], int) else env[s[1]]
            for _ in range(count):
                run(s[2], ring, env)
        elif s[0] == "if":
            run(s[2] if env[s[1]] else s[3], ring, env)


def params(body, out):
    for s in body:
        if isinstance(s, str):
            continue
        if s[0] == "for":
            if not isinstance(s[1], int):
                out.add(s[1])
            params(s[2], out)
        else:
            out.add(s[1])
            params(s[2], out)
            params(s[3], out)
    return out


def judge(depth, body):
    """None when every run is clean, else (the code, the parameters of a breaking run)."""
    names = sorted(params(body, set()))
    envs = [{}]
    for p in names:
        vals = range(TRIPS + 1) if p.startswith("n") else (False, True)
        envs = [dict(e, **{p: v}) for e in envs for v in vals]
    for env in envs:
        try:
            run(body, Ring(depth), env)
        except Broken as b:
            return (str(b), env)
    return None


# ------------------------------------------------------------------ generating and writing

def gen_block(rng, level, size, names):
    out = []
    for _ in range(size):
        r = rng.random()
        if level < 2 and r < 0.12:
            out.append(("for", rng.randint(0, 3), gen_block(rng, level + 1, rng.randint(1, 4), names)))
        elif level < 2 and r < 0.24:
            out.append(("for", rng.choice(["n1", "n2"]), gen_block(rng, level + 1, rng.randint(1, 5), names)))
        elif level < 2 and r < 0.32:
            out.append(("if", rng.choice(["c1", "c2"]), gen_block(rng, level + 1, rng.randint(0, 3), names),
                        gen_block(rng, level + 1, rng.randint(0, 3), names)))
        else:
            out.append(rng.choice(["fill", "fill", "wait", "wait", "read", "release", "barrier", "barrier"]))
    return out


def pattern(rng, depth):
    """A well-formed pipeline (prologue, steady loop, drain), then a mutation or none: so about half
    the programs are clean."""
    pro = ["fill"] * rng.randint(0, depth)
    steady = ["fill", "wait", "read", "release", "barrier"]
    rng.shuffle(steady) if rng.random() < 0.2 else None
    body = pro + [("for", rng.choice(["n1", 3]), steady)]
    body += [("for", len(pro), ["wait", "read", "release", "barrier"])] if rng.random() < 0.5 else []
    if rng.random() < 0.5:
        i = rng.randrange(len(body) + 1)
        body.insert(i, rng.choice(["fill", "wait", "read", "release", "barrier"]))
    return body


def write_stmts(body, ind, out, var):
    pad = "  " * ind
    for s in body:
        if s == "fill":
            out.append(pad + "p.fill(x, 0, min(32, m));")
        elif s == "wait":
            out.append(pad + "p.wait();")
        elif s == "read":
            out.append(pad + "acc = add_wrap(acc, p[31 - t]);")
        elif s == "release":
            out.append(pad + "p.release();")
        elif s == "barrier":
            out.append(pad + "barrier;")
        elif s[0] == "for":
            v = "k%d" % var[0]
            var[0] += 1
            out.append(pad + "for %s in 0..%s {" % (v, s[1]))
            write_stmts(s[2], ind + 1, out, var)
            out.append(pad + "}")
        else:
            out.append(pad + "if %s {" % s[1])
            write_stmts(s[2], ind + 1, out, var)
            out.append(pad + "} else {")
            write_stmts(s[3], ind + 1, out, var)
            out.append(pad + "}")


def program(depth, body):
    lines = ["fn f(g:usize, m:usize, x:ro<u32>[m], out:rw<u32>[g * 32], n1:usize, n2:usize, c1:bool, c2:bool) {",
             "  blocks b in g threads t in 32 {",
             "    pipeline p:u32[32] depth %d;" % depth,
             "    let mut acc:u32 = 0;"]
    write_stmts(body, 2, lines, [0])
    lines += ["    out[b * 32 + t] = acc;", "  }", "}", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ the checker

def check(checker, path):
    p = subprocess.run([checker, "check", "--json", path], capture_output=True, text=True, timeout=60)
    if p.returncode == 0:
        return None
    codes = []
    for line in p.stderr.splitlines():
        try:
            codes.append(json.loads(line).get("code", ""))
        except ValueError:
            i = line.find("error[")
            if i >= 0:
                codes.append(line[i + 6:line.find("]", i)])
    return codes or ["?"]


def self_test():
    cases = [
        # (depth, body, the code a run breaks or None)
        (2, ["fill", ("for", "n1", ["fill", "wait", "read", "release", "barrier"])], None),      # d17
        (2, ["fill", ("for", "n1", ["fill", "wait", "read", "release"])], "E-STAGE-BUSY"),      # d18
        (1, ["fill", "read"], "E-STAGE-UNREADY"),
        (1, ["fill", "wait", "release", "read"], "E-STAGE-UNREADY"),
        (2, ["fill", "fill", "wait", "wait"], "E-STAGE-BUSY"),
        (2, ["fill", "fill", "fill"], "E-STAGE-BUSY"),
        (1, ["wait"], "E-STAGE-UNREADY"),
        (1, ["fill", "wait", "read", "release", "barrier", "fill", "wait", "read"], None),
        (2, [("if", "c1", ["fill"], [])], None),                                                   # clean, but E-STAGE-LOOP
        (3, [("for", 3, ["fill"]), ("for", 3, ["wait", "read", "release", "barrier"])], None),
        (2, [("for", 3, ["fill"])], "E-STAGE-BUSY"),
        (4, ["fill", ("for", "n1", ["wait", "read", "release", "barrier"])], "E-STAGE-UNREADY"),
        (2, [("if", "c1", ["fill", "wait"], ["fill"]), "read"], "E-STAGE-UNREADY"),
    ]
    passed = failed = 0
    for i, (d, body, want) in enumerate(cases):
        got = judge(d, body)
        got = got[0] if got else None
        if got == want:
            passed += 1
        else:
            failed += 1
            print("FAIL self-test case %d: judged %s, expected %s" % (i, got, want))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return failed == 0


def seeds_of(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    checker, seeds, count, work = argv[1], seeds_of(argv[2]), int(argv[3]), argv[4]
    os.makedirs(work, exist_ok=True)
    passed = failed = clean = accepted = loop_refused = 0
    for seed in seeds:
        rng = random.Random(seed)
        for k in range(count):
            depth = rng.randint(1, 4)
            body = pattern(rng, depth) if rng.random() < 0.6 else gen_block(rng, 0, rng.randint(2, 9), None)
            verdict = judge(depth, body)
            path = os.path.join(work, "s%d_p%d.cairn" % (seed, k))
            with open(path, "w") as f:
                f.write(program(depth, body))
            codes = check(checker, path)
            ours = [c for c in (codes or []) if c.startswith("E-STAGE-") or c.startswith("E-COOP-")]
            if codes and not ours:
                failed += 1
                print("FAIL generator: seed=%d prog=%d: refused with %s (%s)" % (seed, k, ",".join(codes), path))
                continue
            if verdict is None:
                clean += 1
                if codes is None:
                    accepted += 1
                    passed += 1
                elif codes == ["E-STAGE-LOOP"]:
                    loop_refused += 1
                    passed += 1
                else:
                    failed += 1
                    print("FAIL seed=%d prog=%d: every run is clean, but refused with %s (%s)"
                          % (seed, k, ",".join(codes), path))
            elif codes is None:
                failed += 1
                print("FAIL seed=%d prog=%d: accepted, but the run with %s breaks %s (%s)"
                      % (seed, k, verdict[1] or "no parameters", verdict[0], path))
            else:
                passed += 1
                if path and not os.environ.get("KEEP"):
                    os.remove(path)
    print("precision: %d/%d clean programs accepted (%.1f%%); %d more refused with E-STAGE-LOOP"
          % (accepted, clean, 100.0 * accepted / clean if clean else 0.0, loop_refused))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
