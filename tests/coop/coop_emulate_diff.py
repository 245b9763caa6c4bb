"""Random cooperative regions on the emulated machine against host threads (issue 13: "the same
program on the host, emulated and on the GPU must agree").

    python3 coop_emulate_diff.py CAIRN SEED COUNT WORKDIR

Makes COUNT regions of SEED with the judge's generator (tests/coop/coop_judge.py: one to three names
a side, 32 to 256 threads, zeroed and unzeroed shared arrays, barriers in and out of loops and
conditions, warp operations, atomic updates of an outside array). Each one the checker accepts is
run twice, with g = 3 and an input x that is not all zeros:
  - on the emulated machine: its three views @device, under --emulate (the region on teams of host
    threads as device work, runtime/cairn_coopdev.h);
  - on host threads: as it is, without --emulate (runtime/cairn_coop.h directly).
Both print a weighted checksum of `out` and of `hist`; they must exit 0 and print the same. A
region that hangs, crashes or traps on one side only shows here too. Prints one FAIL line per
program that differs, then `N passed, N failed, 0 skipped`.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coop_judge  # noqa: E402  (the generator only)

# The driver: lines ending in //D are the emulated form's, //H the host form's.
MAIN = """
fn main() -> i32 {
  buffer hx:i32[16384] = zeroed;
  for i in 0..16384 { hx[i] = i32(i % 97) - 40; }
  buffer hout:i32[16384] = zeroed;
  buffer hh:i32[16384] = zeroed;
  buffer hy:i32[16384] = zeroed;
  buffer x:i32[16384]@device = zeroed;      //D
  buffer out:i32[16384]@device = zeroed;    //D
  buffer h:i32[16384]@device = zeroed;      //D
  buffer y:i32[16384]@device = zeroed;      //D
  transfer(x, hx);                          //D
  f(3, out, h, x, y);                       //D
  transfer(hout, out);                      //D
  transfer(hh, h);                          //D
  transfer(hy, y);                          //D
  f(3, hout, hh, hx, hy);                   //H
  let mut s:i64 = 0;
  let mut t:i64 = 0;
  let mut u:i64 = 0;
  for i in 0..16384 { s = add_wrap(s, i64(hout[i]) * i64(i + 1)); t = add_wrap(t, i64(hh[i]) * i64(i + 1)); u = add_wrap(u, i64(hy[i]) * i64(i + 1)); }
  println("out", s, "hist", t, "y", u);
  return 0;
}
"""


def driver(emulated):
    keep, drop = ("//D", "//H") if emulated else ("//H", "//D")
    lines = []
    for ln in MAIN.split("\n"):
        if ln.endswith(drop):
            continue
        lines.append(ln[: -len(keep)].rstrip() if ln.endswith(keep) else ln)
    return "\n".join(lines)


def run(cairn, path, emulated):
    args = [cairn, "run"] + (["--emulate", "--device-target", "sm_90a"] if emulated else [])
    try:
        r = subprocess.run(args + ["--out", path + ".build", path], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return (None, "timed out after 300 s")
    return (r.returncode, r.stdout if r.returncode == 0 else r.stdout + r.stderr[-400:])


def main():
    cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    os.makedirs(work, exist_ok=True)
    passed = failed = accepted = 0
    for k, prog in enumerate(coop_judge.generate(seed, count)):
        base = os.path.join(work, f"p{seed}_{k}")
        with open(base + ".cairn", "w") as f:
            f.write(prog.text)
        if subprocess.run([cairn, "check", base + ".cairn"], capture_output=True).returncode != 0:
            continue
        accepted += 1
        on_device = re.sub(r"(r[ow]<i32>\[\d+\])", r"\1@device", prog.text.split("\n", 1)[0]) + "\n" + \
            prog.text.split("\n", 1)[1]
        with open(base + "_emu.cairn", "w") as f:
            f.write(on_device + driver(True))
        with open(base + "_host.cairn", "w") as f:
            f.write(prog.text + driver(False))
        emu = run(cairn, base + "_emu.cairn", True)
        host = run(cairn, base + "_host.cairn", False)
        if emu == host and emu[0] == 0 and emu[1].startswith("out "):
            passed += 1
        else:
            failed += 1
            print(f"FAIL seed={seed} prog={k}: emulated {emu!r}, on host threads {host!r}\n{prog.text}")
    print(f"coop emulate diff: seed {seed}, {count} programs, {accepted} accepted and run both ways")
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed or accepted == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
