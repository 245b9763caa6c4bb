#!/usr/bin/env bash
# What README.md and docs/*.md cite must exist:
#   - a markdown link's target (and its #anchor, when it names a heading of another page);
#   - a path under docs/ src/ runtime/ tests/ evidence/ bench/ examples/ tools/ notes/ (globs such as
#     tests/dev/place_*.cairn must match a file);
#   - a bare file name (`cairn_dev.h`, `run_saxpy.cairn`) must name a file somewhere in the tree;
#   - a runtime or C identifier (cn_*, CN_*, CAIRN_*, cairn_*) must appear in src/, runtime/ or tests/;
#   - `make TARGET` must be a target of the Makefile;
#   - a section cited as PAGE.md, "Heading" (or PAGE.md's "Heading") must be a heading of that page.
# Text in ``` fences is an example of what a user writes or sees, and is not checked, except links.
# A few names are templates a user fills in (NAME.c, t.cairn); they are listed below.
# Every reference checked is a pass; every dangling one a `FAIL docs: FILE:LINE: ...` line.
# Ends with `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
python3 - README.md docs/*.md <<'EOF'
import glob, os, re, sys

files = sys.argv[1:]
passed = failed = 0

def check(ok, where, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL docs: {where}: {what}")

PATH = re.compile(r"(?<![\w./<-])((?:\.\./)?(?:docs|src|runtime|tests|evidence|bench|examples|tools|notes)/[\w./*?-]*[\w*])")
BARE = re.compile(r"(?<![\w./-])([\w-]+\.(?:md|cairn|h|c|sh|cu|py|hpp))\b")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]+)?\)")
IDENT = re.compile(r"\b((?:cn|CN|CAIRN|cairn)_[A-Za-z0-9_]+)")
MAKE = re.compile(r"`make ([\w-]+)")
SECTION = re.compile(r"(\w[\w-]*\.md)\)?(?:'s)?,? \"([^\"]+)\"")
# Names a user fills in, or a file the user's own project holds: not files of this repository.
TEMPLATES = {"NAME.c", "NAME.h", "t.cairn", "file.cairn", "saxpy.cairn", "x.err", "barrier.c",
             "submission.py", "model_new.py", "eval.py", "NAME.cairn"}  # the files a benchmark package holds

corpus = []
for p in glob.glob("src/**/*.[ch]", recursive=True) + glob.glob("runtime/*.h") + \
         glob.glob("tests/**/*", recursive=True) + ["Makefile"]:
    if os.path.isfile(p):
        corpus.append(open(p, errors="replace").read())
corpus = "\n".join(corpus)
targets = set(re.findall(r"^([\w-]+):", open("Makefile").read(), re.M))
tree = {os.path.basename(p) for p in glob.glob("**/*", recursive=True)}

def headings(page):
    return {re.sub(r"^#+\s*", "", l).strip() for l in open(page) if l.startswith("#")}

def anchor(h):
    return re.sub(r"[^\w -]", "", h).strip().lower().replace(" ", "-")

for f in files:
    base = os.path.dirname(f)
    fenced = False
    for ln, line in enumerate(open(f), 1):
        at = f"{f}:{ln}"
        if line.startswith("```"):
            fenced = not fenced
        prose = re.sub(r"`[^`]*`", "", line)
        for m in LINK.finditer(prose):
            if m.group(1).startswith("http"):
                continue
            target = os.path.normpath(os.path.join(base, m.group(1)))
            check(os.path.exists(target), at, f"link to missing {m.group(1)}")
            if m.group(2) and target.endswith(".md") and os.path.exists(target):
                check(m.group(2)[1:] in {anchor(h) for h in headings(target)}, at,
                      f"{m.group(1)} has no heading for {m.group(2)}")
        if fenced:
            continue
        for m in PATH.finditer(line):
            p = m.group(1).rstrip(".")
            where = os.path.normpath(os.path.join(base, p)) if p.startswith("../") else p
            check(bool(glob.glob(where)), at, f"missing path {p}")
        for m in BARE.finditer(line):
            if m.group(1) not in TEMPLATES:
                check(m.group(1) in tree, at, f"no file named {m.group(1)} in the tree")
        for m in IDENT.finditer(line):
            name = m.group(1)
            if "NAME" in name or name.endswith("_T") or "_T_" in name:
                continue            # a pattern: cn_widen_T, cairn_NAME_device_stream
            check(name in corpus, at, f"{name} appears nowhere in src/, runtime/ or tests/")
        for m in MAKE.finditer(line):
            check(m.group(1) in targets, at, f"no make target {m.group(1)}")
        for m in SECTION.finditer(line):
            page, sec = m.group(1), m.group(2)
            p = os.path.join(base, page) if os.path.exists(os.path.join(base, page)) else page
            if not os.path.exists(p):
                check(False, at, f"section {sec!r} of a page that does not exist, {page}")
            else:
                check(sec in headings(p), at, f"{page} has no section {sec!r}")

print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
EOF
