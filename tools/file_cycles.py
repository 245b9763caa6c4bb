#!/usr/bin/env python3
"""Which source files of the compiler call each other in circles.

    python3 tools/file_cycles.py [OBJDIR]      (default build/obj-cc)

Reads each object's defined and undefined symbols (nm), draws an edge A -> B when A.o uses a
function or object B.o defines, and prints the strongly connected groups of more than one file
(each a circle of files that need each other) and a summary line: `cycles: G groups, F files`.
The lower the better: a pass should need the passes before it, not the ones after.
"""
import os
import subprocess
import sys

objdir = sys.argv[1] if len(sys.argv) > 1 else "build/obj-cc"
objs = []
for root, _, files in os.walk(os.path.join(objdir, "src")):
    objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
objs = [o for o in objs if "/cli/" not in o and not o.endswith("/main.o")]   # the compiler proper
defs, uses = {}, {}
for o in objs:
    name = os.path.relpath(o, objdir)[:-2] + ".c"
    out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
    uses[name] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defs[parts[2]] = name
        elif len(parts) == 2 and parts[0] == "U":
            uses[name].add(parts[1])
graph = {f: sorted({defs[s] for s in u if s in defs and defs[s] != f}) for f, u in uses.items()}

# Tarjan's strongly connected components, iteratively
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
for root in sorted(graph):
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
        if i < len(graph[v]):
            work.append((v, i + 1))
            w = graph[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        for w in graph[v]:
            if w in on:
                low[v] = min(low[v], low[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            sccs.append(sorted(comp))
groups = [c for c in sccs if len(c) > 1]
for c in sorted(groups, key=len, reverse=True):
    print(" <-> ".join(c))
print(f"cycles: {len(groups)} groups, {sum(len(c) for c in groups)} files")
