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
    stage_judge.py --two CHECKER SEEDS COUNT WORKDIR

--two: regions with two pipelines, p and q, filled and read in random interleavings (prologues,
steady loops of a constant or a parameter's trip count, ifs whose paths fill in other orders,
drains), all on @device arrays. Besides the rules, each wait's count is judged: a thread's cp.async
groups are one queue for both pipelines, and `cp.async.wait_group K` leaves the K newest pending, so
K must not pass the number of fills (of either pipeline) made after the one the wait needs, in any
run. The runs record that number at every wait; the checker's K is read from the C it emits
(`cairn build --emulate --emit-c`: the `#line` before each CN_COOPD_STAGE_WAIT(K), or
CN_COOPD_STAGE_WAIT_ONLY(K) where another wait follows at once). A K past the
fewest of any run is a failure (a race on the GPU); the report says how many waits got the fewest
exactly.
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
        if isinstance(s, str) or s[0] == "op":
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


# ------------------------------------------------------------------ two pipelines: the waits' counts

class Two:
    """Rings p and q, and the queue of fills (of both) in order: each in-flight stage knows its fill's
    place in it. keep[op] is the fewest fills after the awaited one seen at that wait."""

    def __init__(self, dp, dq, keep):
        self.r = {"p": Ring(dp), "q": Ring(dq)}
        self.at = {"p": [None] * dp, "q": [None] * dq}
        self.fills = 0
        self.keep = keep

    def op(self, o, ident):
        pipe = "q" if o.endswith("q") and o != "barrier" else "p"
        base = o[:-1] if pipe == "q" else o
        if base == "barrier":
            self.r["p"].op("barrier")
            self.r["q"].op("barrier")
            return
        ring = self.r[pipe]
        d = len(ring.st)
        if base == "fill":
            slot = ring.fp % d
            ring.op("fill")
            self.at[pipe][slot] = self.fills
            self.fills += 1
        elif base == "wait":
            slot = ring.wp % d
            ring.op("wait")
            after = self.fills - self.at[pipe][slot] - 1
            self.keep[ident] = min(self.keep.get(ident, after), after)
        else:
            ring.op(base)


def run_two(body, two, env):
    for s in body:
        if isinstance(s, tuple) and s[0] == "op":
            two.op(s[1], s[2])
        elif s[0] == "for":
            count = s[1] if isinstance(s[1], int) else env[s[1]]
            for _ in range(count):
                run_two(s[2], two, env)
        elif s[0] == "if":
            run_two(s[2] if env[s[1]] else s[3], two, env)


def judge_two(dp, dq, body):
    """(None or the code a run breaks, {wait ident: fewest fills after}) over every run."""
    names = sorted(params(body, set()))
    envs = [{}]
    for p in names:
        vals = range(TRIPS + 1) if p.startswith("n") else (False, True)
        envs = [dict(e, **{p: v}) for e in envs for v in vals]
    keep = {}
    for env in envs:
        try:
            run_two(body, Two(dp, dq, keep), env)
        except Broken as b:
            return (str(b), keep)
    return (None, keep)


def interleave(rng, a, b):
    a, b, out = list(a), list(b), []
    while a or b:
        out.append((a if a and (not b or rng.random() < 0.5) else b).pop(0))
    return out


def gen_two(rng, dp, dq):
    """A prologue, a steady loop and maybe a drain, for each pipeline, interleaved at random."""
    ident = [0]

    def op(o):
        ident[0] += 1
        return ("op", o, ident[0])

    kp, kq = rng.randint(0, dp - 1), rng.randint(0, dq - 1)
    pro = interleave(rng, ["fill"] * kp, ["fillq"] * kq)
    if rng.random() < 0.25 and pro:
        alt = interleave(rng, ["fill"] * kp, ["fillq"] * kq)
        body = [("if", "c1", [op(o) for o in pro], [op(o) for o in alt])]
    else:
        body = [op(o) for o in pro]
    steady = interleave(rng, ["fill", "wait", "read", "release"], ["fillq", "waitq", "readq", "releaseq"])
    if rng.random() < 0.15:
        steady.insert(rng.randrange(len(steady) + 1), rng.choice(["fill", "waitq", "release"]))
    body.append(("for", rng.choice(["n1", "n2", 2, 3]), [op(o) for o in steady + ["barrier"]]))
    if rng.random() < 0.5:
        drain = interleave(rng, ["wait", "read", "release"] * kp, ["waitq", "readq", "releaseq"] * kq)
        body += [op(o) for o in drain + ["barrier"]]
    return body


def write_two(body, ind, out, var, lines):
    pad = "  " * ind
    text = {"fill": "p.fill(x, 0, min(32, m));", "wait": "p.wait();", "read": "acc = add_wrap(acc, p[31 - t]);",
            "release": "p.release();", "barrier": "barrier;", "fillq": "q.fill(x, 0, min(32, m));",
            "waitq": "q.wait();", "readq": "acc = add_wrap(acc, q[t]);", "releaseq": "q.release();"}
    for s in body:
        if s[0] == "op":
            out.append(pad + text[s[1]])
            lines[s[2]] = len(out)
        elif s[0] == "for":
            v = "k%d" % var[0]
            var[0] += 1
            out.append(pad + "for %s in 0..%s {" % (v, s[1]))
            write_two(s[2], ind + 1, out, var, lines)
            out.append(pad + "}")
        else:
            out.append(pad + "if %s {" % s[1])
            write_two(s[2], ind + 1, out, var, lines)
            out.append(pad + "} else {")
            write_two(s[3], ind + 1, out, var, lines)
            out.append(pad + "}")


def program_two(dp, dq, body):
    """The program's text, and {wait ident: its line}."""
    out = ["fn f(g:usize, m:usize, x:ro<u32>[m]@device, out:rw<u32>[g * 32]@device, n1:usize, n2:usize, "
           "c1:bool, c2:bool) {",
           "  blocks b in g threads t in 32 {",
           "    pipeline p:u32[32] depth %d;" % dp,
           "    pipeline q:u32[32] depth %d;" % dq,
           "    let mut acc:u32 = 0;"]
    lines = {}
    write_two(body, 2, out, [0], lines)
    out += ["    out[b * 32 + t] = acc;", "  }", "}", "fn main() -> i32 { return 0; }", ""]
    return "\n".join(out), lines


def emitted_keeps(checker, path, work):
    """{line: K} of every wait in the C the checker emits for PATH (emulated)."""
    p = subprocess.run([checker, "build", "--emulate", "--device-target", "sm_90a", "--emit-c", "--quiet",
                        "--out", os.path.join(work, "b_" + os.path.basename(path)), path],
                       capture_output=True, text=True, timeout=120)
    keeps, line = {}, None
    for text in p.stdout.splitlines():
        t = text.strip()
        if t.startswith("#line "):
            line = int(t.split()[1])
        elif t.startswith(("CN_COOPD_STAGE_WAIT(", "CN_COOPD_STAGE_WAIT_ONLY(")) and line is not None:
            # _ONLY: a wait another follows at once, whose barrier serves both; its count is judged alike
            keeps[line] = min(keeps.get(line, 1 << 30), int(t.split("(", 1)[1].split(")")[0]))
    return keeps


def main_two(checker, seeds, count, work):
    import concurrent.futures
    os.makedirs(work, exist_ok=True)
    jobs = []
    for seed in seeds:
        rng = random.Random(seed)
        for k in range(count):
            dp, dq = rng.randint(1, 3), rng.randint(1, 3)
            body = gen_two(rng, dp, dq)
            jobs.append((seed, k, dp, dq, body))

    def one(job):
        seed, k, dp, dq, body = job
        verdict, fewest = judge_two(dp, dq, body)
        text, lines = program_two(dp, dq, body)
        path = os.path.join(work, "two_s%d_p%d.cairn" % (seed, k))
        with open(path, "w") as f:
            f.write(text)
        codes = check(checker, path, ("--device-target", "sm_90a"))
        res = {"clean": verdict is None, "accepted": codes is None, "waits": 0, "tight": 0, "fail": []}
        if codes and not [c for c in codes if c.startswith("E-STAGE-") or c.startswith("E-COOP-")]:
            res["fail"].append("FAIL generator: seed=%d prog=%d: refused with %s (%s)" % (seed, k, ",".join(codes), path))
        elif verdict is not None and codes is None:
            res["fail"].append("FAIL seed=%d prog=%d: accepted, but a run breaks %s (%s)" % (seed, k, verdict, path))
        elif verdict is None and codes is None:
            keeps = emitted_keeps(checker, path, work)
            for ident, least in sorted(fewest.items()):
                got = keeps.get(lines[ident])
                res["waits"] += 1
                if got is None:
                    res["fail"].append("FAIL seed=%d prog=%d: no wait count emitted for line %d (%s)"
                                       % (seed, k, lines[ident], path))
                elif got > least:
                    res["fail"].append("FAIL seed=%d prog=%d: the wait at line %d leaves %d fills pending, but a run "
                                       "has only %d after the fill it needs (%s)" % (seed, k, lines[ident], got, least, path))
                elif got == least:
                    res["tight"] += 1
        elif verdict is None and codes != ["E-STAGE-LOOP"]:
            res["fail"].append("FAIL seed=%d prog=%d: every run is clean, but refused with %s (%s)"
                               % (seed, k, ",".join(codes), path))
        if not res["fail"] and not os.environ.get("KEEP"):
            os.remove(path)
        return res

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(one, jobs))
    failed = sum(len(r["fail"]) for r in results)
    for r in results:
        for line in r["fail"]:
            print(line)
    waits = sum(r["waits"] for r in results)
    tight = sum(r["tight"] for r in results)
    clean = sum(r["clean"] for r in results)
    accepted = sum(r["clean"] and r["accepted"] for r in results)
    print("two pipelines: %d/%d clean programs accepted; %d waits judged, %d with the fewest pending fills of any "
          "run exactly (%.1f%%)" % (accepted, clean, waits, tight, 100.0 * tight / waits if waits else 0.0))
    print("%d passed, %d failed, 0 skipped" % (len(jobs) - sum(1 for r in results if r["fail"]), failed))
    return 0 if failed == 0 else 1


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

def check(checker, path, extra=()):
    p = subprocess.run([checker, "check", "--json", *extra, path], capture_output=True, text=True, timeout=60)
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
    if argv[1] == "--two":
        return main_two(argv[2], seeds_of(argv[3]), int(argv[4]), argv[5])
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
