"""What the brute-force judges share (tests/par/race_judge.py, tests/coop/coop_judge.py): their
seeds, their command line, and the run of `cairn check` on one program."""
import argparse
import subprocess


def seeds_of(text):
    """`7`, `1,2` or `1-40` (and mixes: `1-3,9`) as a list of seeds."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def arguments(description, refused_help, extra=()):
    """The judges' command line: CAIRN SEEDS COUNT WORK [--jobs N] [--show-refused] and extra flags
    as (flag, help) pairs."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("cairn")
    ap.add_argument("seeds")
    ap.add_argument("count", type=int)
    ap.add_argument("work")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-refused", action="store_true", help=refused_help)
    for flag, text in extra:
        ap.add_argument(flag, action="store_true", help=text)
    return ap.parse_args()


def cairn_check(cairn, path):
    """`cairn check PATH`: its exit status and what it said on stderr."""
    run = subprocess.run([cairn, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return run.returncode, run.stderr
