#!/usr/bin/env python3
"""A generator of differentiable functions, each held to central differences (numerics.md,
"Gradients"; issue 19).

    python3 grad_judge.py CAIRN SEED COUNT WORKDIR

Draws COUNT random functions gK(a, b, c, w) over f64 in the forms derive grad differentiates: immutable
lets, a float let mut one loop sums into, + - * /, unary -, sqrt, std.math.exp and std.math.log (their arguments kept in range: a
denominator or a log's argument is e * e + 1, an exp's is scaled down), calls of a derived helper
h(u, v), a `reduce + for` over a view w of three elements, and ifs whose paths return (branching on a
parameter against a constant the points keep away from). Each goes into one program with `derive grad
for f;` and a main that calls f_grad at three points and holds every partial (a, b, c and each w[j])
to the central difference (f(p + h) - f(p - h)) / 2h, h = 1e-6 (|p| + 1), within 1e-5 relative plus
1e-8 absolute, printing `K 1` when all agree and `K 0` otherwise. Every fourth function is a loop nest
mK(rows, cols, a, x, y) writing each y[r * cols + j] once (a lane per row with a sum over its row, a
lane per column, or a sequential nest), whose J^T u is held to central differences the same way. The oracle is numeric
differentiation inside the program: nothing of the derivation is shared with it.

Prints FAIL lines and `N passed, N failed, 0 skipped`.
"""
import os
import random
import subprocess
import sys


def expr(rng, depth, names):
    if depth <= 0 or rng.random() < 0.25:
        p = rng.random()
        if p < 0.7:
            return rng.choice(names)
        return "%.2f" % rng.uniform(-2, 2)
    k = rng.random()
    a = expr(rng, depth - 1, names)
    b = expr(rng, depth - 1, names)
    if k < 0.2:
        return "(%s + %s)" % (a, b)
    if k < 0.35:
        return "(%s - %s)" % (a, b)
    if k < 0.55:
        return "(%s * %s)" % (a, b)
    if k < 0.65:
        return "(%s / (%s * %s + 1.0))" % (a, b, b)
    if k < 0.72:
        return "sqrt(%s * %s + 1.0)" % (a, a)
    if k < 0.79:
        return "std.math.exp(%s * 0.1)" % a
    if k < 0.86:
        return "std.math.log(%s * %s + 1.0)" % (a, a)
    if k < 0.93:
        return "h(%s, %s)" % (a, b)
    return "(-%s)" % a


def function(rng, k):
    names = ["a", "b", "c"]
    lines = []
    for i in range(rng.randint(0, 3)):
        e = expr(rng, 2, names)
        if rng.random() < 0.2:   # a float let mut one loop sums into
            lines.append("  let mut t%d:f64 = %s;" % (i, e))
            lines.append("  for i in 0..3 { let u = w[i] * %s; t%d += u * %s; }" %
                         (rng.choice(names), i, expr(rng, 1, names)))
            names.append("t%d" % i)
            continue
        if rng.random() < 0.3:
            e = "(reduce + for i in 3 yield w[i] * %s)" % rng.choice(names)
        lines.append("  let t%d = %s;" % (i, e))
        names.append("t%d" % i)
    if rng.random() < 0.3:
        cut = rng.choice(["a", "b"])
        lines.append("  if %s > 0.25 { return %s; }" % (cut, expr(rng, 2, names)))
        guard = cut
    else:
        guard = None
    lines.append("  return %s;" % expr(rng, 3, names))
    src = "fn g%d(a:f64, b:f64, c:f64, w:ro<f64>[3]) -> f64 {\n%s\n}\nderive grad for g%d;\n" % (
        k, "\n".join(lines), k)
    return src, guard


def nest_function(rng, k):
    """mK(rows, cols, a, x, y): a loop nest writing y[r * cols + j] once each, in one of three forms:
    a lane per row (with a sum over its row), a lane per column, or a sequential nest. a is read by
    every lane (its adjoint goes through part buffers), x at the lane's elements."""
    form = rng.choice(["rows", "cols", "seq"])
    el = "x[r * cols + j]"
    outer, names = [], ["a"]
    if form == "rows" and rng.random() < 0.7:
        outer.append("let s = reduce + for q in cols yield x[r * cols + q] * %s;" % rng.choice(["a", "0.5"]))
        names.append("s")
    if rng.random() < 0.5:
        outer.append("let t = %s;" % expr(rng, 1, list(names)))
        names.append("t")
    inner_names = names + [el]
    inner = []
    if rng.random() < 0.5:
        inner.append("let v = %s;" % expr(rng, 2, inner_names))
        inner_names = inner_names + ["v"]
    write = "y[r * cols + j] = %s + %s;" % (el, expr(rng, 2, inner_names))
    body = " ".join(inner + [write])
    if form == "rows":
        nest = "  parallel r in rows {\n    %s\n    for j in 0..cols { %s }\n  }" % (" ".join(outer), body)
    elif form == "cols":
        nest = "  parallel j in cols {\n    %s\n    for r in 0..rows { %s }\n  }" % (" ".join(outer), body)
    else:
        nest = "  for r in 0..rows {\n    %s\n    for j in 0..cols { %s }\n  }" % (" ".join(outer), body)
    return ("fn m%d(rows:usize, cols:usize, a:f64, x:ro<f64>[rows * cols], y:rw<f64>[rows * cols]) {\n%s\n}\n"
            "derive grad for m%d;\n" % (k, nest, k))


def nest_check(k):
    # J^T u for a u of mixed signs at two points, held to central differences
    return """  {
    let mut ok = true;
    for q in 0..2 {
      let a = 0.7 - f64(q) * 0.9;
      for i in 0..6 { x[i] = 0.3 + f64(i) * 0.35 - f64(i %% 4) * 0.6 + f64(q) * 0.2; u[i] = 1.1 - f64(i) * 0.4; dx[i] = 0.0; }
      let mut da:f64 = 0.0;
      m%(k)d_grad(2, 3, a, x, y, da, dx, u);
      let ha = 1e-6 * (abs(a) + 1.0);
      m%(k)d(2, 3, a + ha, x, y);
      m%(k)d(2, 3, a - ha, x, y2);
      ok = ok && near(da, jtu(u, y, y2) / (2.0 * ha));
      for j in 0..6 {
        let keep = x[j];
        let hx = 1e-6 * (abs(keep) + 1.0);
        x[j] = keep + hx;
        m%(k)d(2, 3, a, x, y);
        x[j] = keep - hx;
        m%(k)d(2, 3, a, x, y2);
        x[j] = keep;
        ok = ok && near(dx[j], jtu(u, y, y2) / (2.0 * hx));
      }
    }
    if ok { println(%(k)d, 1); } else { println(%(k)d, 0); }
  }
""" % {"k": k}


def check_block(k, guard):
    # three points; for a branch on a parameter, points keep 0.05 away from its cut (0.25)
    return """  {
    let mut ok = true;
    for q in 0..3 {
      let a = 0.9 - f64(q) * 0.8;
      let b = -0.6 + f64(q) * 0.7;
      let c = 0.35 + f64(q) * 0.5;
      w[0] = 0.5 - f64(q) * 0.3; w[1] = -1.25 + f64(q); w[2] = 0.75;
      for j in 0..3 { dw[j] = 0.0; }
      let mut da:f64 = 0.0;
      let mut db:f64 = 0.0;
      let mut dc:f64 = 0.0;
      let r = g%(k)d_grad(a, b, c, w, 1.0, da, db, dc, dw);
      let ha = 1e-6 * (abs(a) + 1.0);
      let hb = 1e-6 * (abs(b) + 1.0);
      let hc = 1e-6 * (abs(c) + 1.0);
      ok = ok && r == g%(k)d(a, b, c, w)
              && near(da, (g%(k)d(a + ha, b, c, w) - g%(k)d(a - ha, b, c, w)) / (2.0 * ha))
              && near(db, (g%(k)d(a, b + hb, c, w) - g%(k)d(a, b - hb, c, w)) / (2.0 * hb))
              && near(dc, (g%(k)d(a, b, c + hc, w) - g%(k)d(a, b, c - hc, w)) / (2.0 * hc));
      for j in 0..3 {
        let keep = w[j];
        let hw = 1e-6 * (abs(keep) + 1.0);
        w[j] = keep + hw;
        let up = g%(k)d(a, b, c, w);
        w[j] = keep - hw;
        let down = g%(k)d(a, b, c, w);
        w[j] = keep;
        ok = ok && near(dw[j], (up - down) / (2.0 * hw));
      }
    }
    if ok { println(%(k)d, 1); } else { println(%(k)d, 0); }
  }
""" % {"k": k}


HEADER = """fn h(u:f64, v:f64) -> f64 = u * std.math.exp(v * 0.1) + v;
derive grad for h;
fn near(got:f64, want:f64) -> bool = abs(got - want) <= 1e-5 * abs(want) + 1e-8 + 1e-6 * abs(got);
fn jtu(u:ro<f64>[6], p:ro<f64>[6], m:ro<f64>[6]) -> f64 {
  let mut s:f64 = 0.0;
  for i in 0..6 { s = s + u[i] * (p[i] - m[i]); }
  return s;
}
"""


def main():
    cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    os.makedirs(work, exist_ok=True)
    fns, checks = [], []
    for k in range(count):
        if k % 4 == 3:   # every fourth: a loop nest writing a view
            fns.append(nest_function(rng, k))
            checks.append(nest_check(k))
            continue
        src, guard = function(rng, k)
        fns.append(src)
        checks.append(check_block(k, guard))
    bufs = "".join("  buffer %s:f64[%d] = zeroed;\n" % (b, n)
                   for b, n in (("w", 3), ("dw", 3), ("x", 6), ("dx", 6), ("u", 6), ("y", 6), ("y2", 6)))
    prog = HEADER + "\n".join(fns) + "\nfn main() -> i32 {\n" + bufs + "".join(checks) + "  return 0;\n}\n"
    path = os.path.join(work, "grad_judge.cairn")
    with open(path, "w") as f:
        f.write(prog)
    p = subprocess.run([cairn, "run", path], capture_output=True, text=True, timeout=600)
    passed = failed = 0
    if p.returncode != 0:
        print("FAIL grad judge: seed %d: the program exited %d: %s" % (seed, p.returncode, p.stderr[:800]))
        print("0 passed, 1 failed, 0 skipped")
        return 1
    lines = p.stdout.split("\n")
    for k in range(count):
        if k < len(lines) and lines[k] == "%d 1" % k:
            passed += 1
        else:
            failed += 1
            print("FAIL grad judge: seed %d function %d: f_grad differs from central differences:\n%s" %
                  (seed, k, fns[k]))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
