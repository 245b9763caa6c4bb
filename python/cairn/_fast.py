"""The fast path of a call: for each exported function, straight-line Python generated once from its
signature, that makes every check of the general path on torch tensors and plain Python scalars
and then calls the C entry. Anything it does not take (a buffer, a subclass of Tensor, a wrong
argument) goes to the general path, which either takes it or raises the precise error, so the two
never disagree on what is accepted.

Why generated: a loop over a table of checks costs a Python dispatch per step; a function whose
every check is a line of its own costs only the checks (the call went from 14-18 us to what
evidence/2026-12-02-python-binding.md and tests/python/bench_call.py record)."""

_MISSING = object()


def _cdiv(a, b):
    """C's truncating division; -1 (which no element count equals) for a zero divisor, so the
    general path reports it."""
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a, b):
    return -1 if b == 0 else a - _cdiv(a, b) * b


def _extent(tree, names):
    """The extent tree as a Python expression over the argument names."""
    if "int" in tree:
        return repr(int(tree["int"]))
    if "param" in tree:
        return names[tree["param"]]
    a, b = (_extent(t, names) for t in tree["args"])
    op = tree["op"]
    if op in "+-*":
        return "(%s %s %s)" % (a, op, b)
    return "%s(%s, %s)" % ("_cdiv" if op == "/" else "_cmod", a, b)


def make(f, torch, scalars, elem_bytes, torch_dtypes):
    """The generated call for the _Function f, or None where f has no fast path (a view whose
    extent the receipt cannot give, a parameter with no Python form, an element torch lacks)."""
    if f.unsupported or any(p["kind"] == "view" and p.get("extent") is None for p in f.params):
        return None
    k = len(f.params)
    arg = ["a%d" % i for i in range(k)]
    ints = {p["name"]: arg[i] for i, p in enumerate(f.params)
            if p["kind"] == "scalar" and scalars[p["type"]][1] in ("int", "uint")}
    ns = {"_M": _MISSING, "_cdiv": _cdiv, "_cmod": _cmod, "T": torch.Tensor, "fobj": f,
          "slow": f._direct, "compiling": f._compiling or (lambda: False)}
    everything = "(%s,)" % ", ".join(arg) if k else "()"
    given = "tuple(v for v in %s if v is not _M) + rest" % everything
    out = ["def call(%s):" % ", ".join([a + "=_M" for a in arg] + ["*rest"]),
           "    if compiling():",
           "        return fobj.op(%s)" % ", ".join(arg),
           "    if rest%s:" % (" or %s is _M" % arg[-1] if k else ""),
           "        return slow(%s)" % given]
    bail = "        return slow(%s)" % everything
    values, views = [], []
    for i, p in enumerate(f.params):
        a = arg[i]
        if p["kind"] == "scalar":
            _, kind, bits = scalars[p["type"]]
            if kind == "float":
                out += ["    if type(%s) is not float:" % a,
                        "        if type(%s) is not int:" % a,
                        "    " + bail,
                        "        %s = float(%s)" % (a, a)]
            elif kind == "bool":
                out += ["    if type(%s) is not bool:" % a, bail]
            else:
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "int" else (0, (1 << bits) - 1)
                out += ["    if type(%s) is not int or not %d <= %s <= %d:" % (a, lo, a, hi), bail]
            values.append(a)
            continue
        dt = getattr(torch, torch_dtypes.get(p["elem"], ""), None)
        if dt is None:
            return None
        ns["dt%d" % i] = dt
        cuda = p.get("placement") == "device" and not f.lib.emulated
        out += ["    e%d = %s" % (i, _extent(p["extent"], ints)),
                "    if type(%s) is not T or %s.dtype is not dt%d or %s.is_cuda is not %s or not %s.is_contiguous() "
                "or %s.numel() != e%d:" % (a, a, i, a, cuda, a, a, i), bail,
                "    p%d = %s.data_ptr()" % (i, a)]
        values.append("p%d" % i)
        views.append((i, cuda, p["access"] == "rw", elem_bytes[p["elem"]]))
    for i, cuda, rw, size in views:   # a written array may overlap no other array in its memory
        if not rw:
            continue
        for j, cuda2, _, size2 in views:
            if j != i and cuda2 == cuda:
                out += ["    if e%d and e%d and p%d < p%d + e%d * %d and p%d < p%d + e%d * %d:"
                        % (i, j, i, j, j, size2, j, i, i, size), bail]
    vals = ", ".join(values)
    if not f.device:
        ns["cf"] = f.cf
        out.append("    return cf(%s)" % vals)
    elif f.lib.emulated:   # cf_: the emulated work runs at the call, and a trapped lane reports at its wait
        ns["cf"] = f.cf
        out.append("    return cf(%s)" % vals)
    elif f.cq is not None and hasattr(torch._C, "_cuda_getCurrentRawStream"):
        ns.update(cq=f.cq, stream=torch._C._cuda_getCurrentRawStream, device=torch._C._cuda_getDevice)
        out += ["    cq(stream(device())%s)" % (", " + vals if vals else ""), "    return None"]
    else:
        ns.update(run=f._run, torch=torch)
        out.append("    return run(torch, [%s])" % vals)
    exec(compile("\n".join(out) + "\n", "<cairn %s>" % f.name, "exec"), ns)   # noqa: S102 - our own text
    call = ns["call"]
    call.__name__ = call.__qualname__ = f.name
    call.__doc__ = f.__doc__
    call.source = "\n".join(out)
    return call
