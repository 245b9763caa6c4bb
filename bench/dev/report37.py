#!/usr/bin/env python3
"""The tables of an evidence record from one run of bench/dev/call37.sh.

    python3 bench/dev/report37.py OUT      (OUT: the run's $OUT, holding call.log and c37/all.tgz or c37/l)

Prints markdown: the exact sums' time against CUB's for every variant (scan_variants.sh's
variants.txt: name, benchmark, n, ratio, CAIRN ms, CUB ms), the multiplies' TFLOP/s and share of
cuBLAS for each mma_bench build, the stall reasons Nsight Compute gave for each fold, and the
PASS/FAIL lines of the call. Reads what is there and says what is missing; it judges nothing.
"""
import glob
import os
import re
import sys
import tarfile
import tempfile


def logs_dir(out):
    for base in (os.path.join(out, "c37"), out):
        if os.path.isdir(os.path.join(base, "l")):
            return os.path.join(base, "l")
        tgz = os.path.join(base, "all.tgz")
        if os.path.isfile(tgz):
            tmp = tempfile.mkdtemp()
            with tarfile.open(tgz) as t:
                t.extractall(tmp, filter="data")
            return os.path.join(tmp, "l")
    return None


def sums(l):
    path = os.path.join(l, "var", "variants.txt")
    if not os.path.isfile(path):
        print("(no variants.txt: the sums did not run)\n")
        return
    rows = {}
    variants = []
    cub = {}
    for line in open(path):
        f = line.split()
        if len(f) != 6 or not f[2].isdigit():
            continue
        v, bench, n, ratio, ms, cub_ms = f[0], f[1], int(f[2]), f[3], f[4], f[5]
        if v not in variants:
            variants.append(v)
        rows.setdefault((bench, n), {})[v] = (ratio, ms)
        cub.setdefault((bench, n), []).append(float(cub_ms))
    print("| sum | n | CUB ms (median of the runs) | " + " | ".join(variants) + " |")
    print("|---|---|---|" + "---|" * len(variants))
    for (bench, n) in sorted(rows, key=lambda k: (k[0], k[1])):
        c = sorted(cub[(bench, n)])[len(cub[(bench, n)]) // 2]
        cells = [rows[(bench, n)].get(v, ("-", "-"))[0] for v in variants]
        print(f"| {bench} | 2^{n.bit_length() - 1} | {c:.4f} | " + " | ".join(cells) + " |")
    print("\n(each cell: the variant's time / CUB's in the same run)\n")


def multiplies(l):
    logs = sorted(glob.glob(os.path.join(l, "mb*.log")))
    if not logs:
        print("(no mma_bench logs)\n")
        return
    print("| build | kernel | n | TFLOP/s | of cuBLAS |")
    print("|---|---|---|---|---|")
    for path in logs:
        build = os.path.basename(path)[:-4]
        blas = {}
        got = []
        for line in open(path):
            f = line.split()
            if len(f) >= 6 and f[1] in ("f16", "bf16") and f[2].isdigit():
                name, ty, n, tf = f[0], f[1], int(f[2]), float(f[4])
                if name == "cublas":
                    blas[(ty, n)] = tf
                else:
                    got.append((name, ty, n, tf))
        for name, ty, n, tf in got:
            share = f"{100 * tf / blas[(ty, n)]:.0f}%" if (ty, n) in blas else "-"
            print(f"| {build} | {name} ({ty}) | {n} | {tf:.1f} | {share} |")
        for (ty, n), tf in sorted(blas.items()):
            print(f"| {build} | cublas ({ty}) | {n} | {tf:.1f} | |")
    print()


def stalls(l):
    files = sorted(glob.glob(os.path.join(l, "ncu.*.txt")))
    if not files:
        print("(no Nsight Compute output)\n")
        return
    for path in files:
        what = os.path.basename(path)[4:-4]
        vals = {}
        scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}   # times to microseconds
        for line in open(path):
            m = re.match(r"\s+(\S+)\s+(\S+)\s+([\d,.]+)\s*$", line)
            if m:
                vals[m.group(1)] = float(m.group(3).replace(",", "")) * scale.get(m.group(2), 1.0)
        if not vals:
            print(f"- {what}: no metrics (see the file)")
            continue
        top = sorted(((v, k) for k, v in vals.items() if "stalled" in k), reverse=True)[:5]
        tops = ", ".join(f"{k.split('stalled_')[1].split('_per_')[0]} {v:.0f}%" for v, k in top)
        t = vals.get("gpu__time_duration.sum", 0)
        d = vals.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", 0)
        w = vals.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0)
        print(f"- {what}: {t:.1f} us, DRAM {d:.0f}%, warps active {w:.0f}%; stalls: {tops}")
    print()


def verdicts(out):
    path = os.path.join(out, "call.log")
    if not os.path.isfile(path):
        print("(no call.log)")
        return
    for line in open(path):
        if re.match(r"\s*(3|4|5)\. ", line) or "FAIL" in line:
            print("    " + line.rstrip())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report37.py OUT")
    out = sys.argv[1]
    l = logs_dir(out)
    if not l:
        sys.exit(f"report37.py: no c37/l or all.tgz under {out}")
    print("## The exact sums\n")
    sums(l)
    print("## Where the folds wait (Nsight Compute, 2^26)\n")
    stalls(l)
    print("## The multiplies\n")
    multiplies(l)
    print("## Checks\n")
    verdicts(out)


if __name__ == "__main__":
    main()
