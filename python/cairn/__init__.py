"""cairn: CAIRN libraries from Python (issue 15; docs/cli.md, "Libraries and C headers").

    import cairn
    k = cairn.load("kernels.cairn")      # builds once, cached by content, target and cairn
    k.saxpy(n, 2.0, x, y)                # checked, then called

`load` runs `cairn build --header` (this package has no compiler of its own) into a cache directory
and loads the library's NAME.so with ctypes. Each exported function becomes a method that checks
its arguments against the signature the build receipt records (`exports`) before any pointer
crosses: the number of arguments, each scalar's type and range, each array's element type,
placement, contiguity and element count (computed from the integer arguments as the view's extent
says), and that no array the function writes overlaps another argument. A refusal raises
ArgumentTypeError (a TypeError) or ArgumentValueError (a ValueError) naming the argument and what
was expected.

Arrays: a torch.Tensor (a CPU tensor for a host view, a CUDA tensor for an @device view), or for a
host view any object with the buffer protocol (array.array, bytearray, numpy arrays). Device work
goes through cq_NAME on torch's current stream and returns without waiting; a function without a
cq_ entry (E-ENQUEUE) runs through cf_NAME with the library's device work bound to that stream.

torch.compile: each function that returns nothing is also a torch.library custom op,
`k.saxpy.op` (torch.ops.cairn.LIB_FN_KEY), opaque to the compiler, which mutates the function's
written views. Called inside a compiled function, `k.saxpy(...)` is that op; eagerly it is the
direct call. The op's fake implementation checks dtypes, devices, contiguity and extents at trace
time, so a wrong tensor is refused when the graph is built.
"""
import ctypes
import hashlib
import inspect
import json
import keyword
import os
import re
import shutil
import subprocess
import tempfile

from . import _fast

__all__ = ["load", "Library", "CairnError", "BuildError", "ArgumentTypeError", "ArgumentValueError"]


class CairnError(Exception):
    """Every error this package raises is one."""


class BuildError(CairnError, RuntimeError):
    """cairn build refused the source; the message holds its diagnostics."""


class ArgumentTypeError(CairnError, TypeError):
    """An argument of the wrong kind: a float for an integer, a float64 array for f32, ..."""


class ArgumentValueError(CairnError, ValueError):
    """An argument of the right kind but a wrong value: out of range, too short, overlapping."""


# CAIRN scalar types: (ctypes type, kind, bits)
_SCALARS = {
    "bool": (ctypes.c_bool, "bool", 1),
    "i8": (ctypes.c_int8, "int", 8), "i16": (ctypes.c_int16, "int", 16),
    "i32": (ctypes.c_int32, "int", 32), "i64": (ctypes.c_int64, "int", 64),
    "u8": (ctypes.c_uint8, "uint", 8), "u16": (ctypes.c_uint16, "uint", 16),
    "u32": (ctypes.c_uint32, "uint", 32), "u64": (ctypes.c_uint64, "uint", 64),
    "usize": (ctypes.c_size_t, "uint", 64), "isize": (ctypes.c_ssize_t, "int", 64),
    "f32": (ctypes.c_float, "float", 32), "f64": (ctypes.c_double, "float", 64),
}
# element types as the buffer protocol spells them (struct module codes) and their sizes
_BUFFER_CODES = {
    "bool": ("?",), "i8": ("b",), "u8": ("B",), "i16": ("h",), "u16": ("H",),
    "i32": ("i", "l") if ctypes.sizeof(ctypes.c_long) == 4 else ("i",),
    "u32": ("I", "L") if ctypes.sizeof(ctypes.c_long) == 4 else ("I",),
    "i64": ("q", "l") if ctypes.sizeof(ctypes.c_long) == 8 else ("q",),
    "u64": ("Q", "L") if ctypes.sizeof(ctypes.c_long) == 8 else ("Q",),
    "usize": ("N",), "isize": ("n",), "f32": ("f",), "f64": ("d",), "f16": ("e",),
}
_TORCH_DTYPES = {
    "bool": "bool", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
    "u32": "uint32", "i64": "int64", "u64": "uint64", "f32": "float32", "f64": "float64",
    "f16": "float16", "bf16": "bfloat16", "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
}
_ELEM_BYTES = {"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4,
               "f32": 4, "i64": 8, "u64": 8, "f64": 8, "usize": 8, "isize": 8, "f8e4m3": 1, "f8e5m2": 1}


def _cairn_command():
    """$CAIRN, else the checkout's bin/cairn beside this package, else cairn on PATH."""
    env = os.environ.get("CAIRN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    local = os.path.join(here, "..", "..", "bin", "cairn")
    if os.access(local, os.X_OK):
        return os.path.abspath(local)
    found = shutil.which("cairn")
    if not found:
        raise CairnError("cairn is not on PATH (set CAIRN to the cairn command, or run `make` in the checkout)")
    return found


def _cache_root():
    return os.environ.get("CAIRN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "cairn")


def _file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load(path, target=None, emulate=False):
    """Builds the CAIRN source at `path` as a library (once: the build is cached under
    $CAIRN_CACHE, default ~/.cache/cairn, keyed by the source's bytes, the device target, emulation,
    the cairn command and its runtime headers) and returns it as a Library."""
    with open(path, "rb") as f:
        source = f.read()
    cairn = _cairn_command()
    name = os.path.splitext(os.path.basename(path))[0]
    key = hashlib.sha256()
    runtime = os.path.join(os.environ.get("CAIRN_HOME") or os.path.dirname(os.path.dirname(os.path.realpath(cairn))),
                           "runtime")
    headers = sorted(os.listdir(runtime)) if os.path.isdir(runtime) else []
    parts = [source, (target or "").encode(), b"emulate" if emulate else b"", _file_sha256(cairn).encode(),
             name.encode()] + [_file_sha256(os.path.join(runtime, h)).encode() for h in headers]
    for part in parts:
        key.update(hashlib.sha256(part).digest())
    final = os.path.join(_cache_root(), key.hexdigest()[:32])
    if not os.path.isfile(os.path.join(final, name + ".receipt.json")):
        _build(cairn, path, name, target, emulate, final)
    return Library(final, name)


def _build(cairn, path, name, target, emulate, final):
    """Builds into a fresh directory beside `final` and renames it into place: two processes
    building the same source both succeed, and the loser's copy is thrown away."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=os.path.dirname(final))
    try:
        cmd = [cairn, "build", os.path.abspath(path), "--header", "--out", tmp]
        if target:
            cmd += ["--device-target", target]
        if emulate:
            cmd.append("--emulate")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise BuildError("cairn build %s failed:\n%s" % (path, (r.stderr or r.stdout).rstrip()))
        try:
            os.rename(tmp, final)
        except OSError:
            if not os.path.isfile(os.path.join(final, name + ".receipt.json")):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _eval_extent(tree, env):
    if "int" in tree:
        return tree["int"]
    if "param" in tree:
        return env[tree["param"]]
    a, b = (_eval_extent(t, env) for t in tree["args"])
    op = tree["op"]
    if op in "/%" and b == 0:
        raise ArgumentValueError("the extent divides by zero")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)   # C's truncating division
    return q if op == "/" else a - q * b


class _Array:
    """An array argument as the checks see it: address, bytes, element count, where it lives."""

    def __init__(self, ptr, nbytes, count, device, keep):
        self.ptr, self.nbytes, self.count, self.device, self.keep = ptr, nbytes, count, device, keep


_TORCH = []


def _torch():
    """torch, or None where it is not installed (looked up once)."""
    if not _TORCH:
        try:
            import torch
            _TORCH.append(torch)
        except ImportError:
            _TORCH.append(None)
    return _TORCH[0]


def _placement(p, emulated):
    """Where a view's memory is as a caller sees it: an emulated device's memory is the host's."""
    place = p.get("placement", "host")
    return "device, emulated" if emulated and place == "device" else place


def _as_array(fn, p, value, emulated=False):
    """The array behind `value` for the view parameter p, checked for element type, placement and
    contiguity (not yet for length)."""
    elem, place, arg = p["elem"], _placement(p, emulated), "%s: argument %s" % (fn, p["name"])
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        want = _TORCH_DTYPES.get(elem)
        if want is None or str(value.dtype) != "torch." + want:
            raise ArgumentTypeError("%s must hold %s (torch.%s), not %s" % (arg, elem, want, value.dtype))
        if place == "device" and value.device.type != "cuda":
            raise ArgumentTypeError("%s is %s: a CUDA tensor is required (the view is @device)" % (arg, p["type"]))
        if place != "device" and value.device.type != "cpu":
            raise ArgumentTypeError("%s is %s: a CPU tensor is required (the view is @%s)" % (arg, p["type"], place))
        if not value.is_contiguous():
            raise ArgumentValueError("%s must be contiguous (call .contiguous())" % arg)
        return _Array(value.data_ptr(), value.numel() * value.element_size(), value.numel(),
                      value.device.type == "cuda", value)
    if place == "device":
        raise ArgumentTypeError("%s is %s: a CUDA torch.Tensor is required, not %s" % (arg, p["type"], type(value).__name__))
    try:
        mv = memoryview(value)
    except TypeError:
        raise ArgumentTypeError("%s is %s: an array (torch.Tensor or a buffer such as array.array) is required, not %s"
                                % (arg, p["type"], type(value).__name__)) from None
    codes = _BUFFER_CODES.get(elem, ())
    fmt = mv.format.lstrip("@=")
    if fmt not in codes or mv.itemsize != _ELEM_BYTES[elem]:
        raise ArgumentTypeError("%s must hold %s (buffer format %s), not format %r" % (arg, elem, "/".join(codes) or "?",
                                                                                       mv.format))
    if not mv.c_contiguous:
        raise ArgumentValueError("%s must be contiguous" % arg)
    if p["access"] == "rw" and mv.readonly:
        raise ArgumentValueError("%s is written (%s), but the buffer is read-only" % (arg, p["type"]))
    n = mv.nbytes // mv.itemsize
    if n == 0:
        return _Array(0, 0, 0, False, mv)
    if mv.readonly:   # bytes and the like: ctypes cannot point into them, so the call reads a copy
        holder = ctypes.create_string_buffer(mv.tobytes(), mv.nbytes)
    else:
        holder = (ctypes.c_char * mv.nbytes).from_buffer(mv.cast("B"))
    ptr = ctypes.addressof(holder)
    return _Array(ptr, mv.nbytes, n, False, (mv, holder))


def _scalar(fn, p, value):
    ctype, kind, bits = _SCALARS[p["type"]]
    arg = "%s: argument %s" % (fn, p["name"])
    if kind == "bool":
        if not isinstance(value, bool):
            raise ArgumentTypeError("%s is bool, not %s" % (arg, type(value).__name__))
        return value
    if kind in ("int", "uint"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError("%s is %s: an int is required, not %s" % (arg, p["type"], type(value).__name__))
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "int" else (0, (1 << bits) - 1)
        if not lo <= value <= hi:
            raise ArgumentValueError("%s is %s: %d does not fit (%d to %d)" % (arg, p["type"], value, lo, hi))
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError("%s is %s: a float is required, not %s" % (arg, p["type"], type(value).__name__))
    return float(value)


class _Function:
    def __init__(self, lib, sig):
        self.lib, self.sig, self.name = lib, sig, sig["name"]
        self.params = sig["params"]
        for p in self.params:
            if p["kind"] == "ref":
                self.unsupported = "parameter %s is %s: a reference parameter has no Python form yet" % (p["name"], p["type"])
                break
            if p["kind"] == "scalar" and p["type"] not in _SCALARS:
                self.unsupported = "parameter %s is %s, which has no Python form yet" % (p["name"], p["type"])
                break
        else:
            self.unsupported = None
        self.device = any(p["kind"] == "view" and p.get("placement") == "device" for p in self.params)
        argtypes = [ctypes.c_void_p if p["kind"] != "scalar" else _SCALARS.get(p["type"], (ctypes.c_void_p,))[0]
                    for p in self.params]
        ret = sig["returns"]
        restype = None if ret == "void" else _SCALARS.get(ret, (None,))[0]
        self.cf = getattr(lib.dll, sig["cf"])
        self.cf.argtypes, self.cf.restype = argtypes, restype
        self.cq = getattr(lib.dll, sig["cq"]) if sig.get("cq") else None
        if self.cq is not None:
            self.cq.argtypes, self.cq.restype = [ctypes.c_void_p] + argtypes, None
        self.__doc__ = "%s(%s) -> %s" % (self.name, ", ".join("%s:%s" % (p["name"], p["type"]) for p in self.params), ret)
        self.fast = None   # the generated call (_fast.py), made with the library
        torch = _torch()
        compiler = getattr(torch, "compiler", None) if torch is not None else None
        self._compiling = getattr(compiler, "is_compiling", None)
        self._op = None

    @property
    def op(self):
        """The function as a torch.library custom op, made when the library loaded (dynamo cannot
        trace the making): opaque under torch.compile and one node in a graph, mutating the
        function's written views."""
        if isinstance(self._op, Exception):
            raise self._op
        if self._op is None:
            raise CairnError("%s: custom ops need torch 2.4 or later" % self.name)
        return self._op

    def check_meta(self, args):
        """The checks that need no addresses (arity, scalars, dtype, device, contiguity, extents):
        what the custom op's fake implementation runs on fake tensors at trace time."""
        fn = self.name
        if len(args) != len(self.params):
            raise ArgumentTypeError("%s takes %d arguments (%s), %d given" % (
                fn, len(self.params), ", ".join(p["name"] for p in self.params), len(args)))
        env, torch = {}, _torch()
        symbolic = (torch.SymInt, torch.SymFloat, torch.SymBool)
        for p, v in zip(self.params, args):
            if p["kind"] == "scalar":
                if not isinstance(v, symbolic):   # a traced size: its range is checked at run time
                    _scalar(fn, p, v)
                if _SCALARS[p["type"]][1] in ("int", "uint"):
                    env[p["name"]] = v
        for p, v in zip(self.params, args):
            if p["kind"] != "view":
                continue
            arg = "%s: argument %s" % (fn, p["name"])
            if not isinstance(v, torch.Tensor):
                raise ArgumentTypeError("%s is %s: a torch.Tensor is required, not %s" % (arg, p["type"], type(v).__name__))
            want = _TORCH_DTYPES.get(p["elem"])
            if want is None or v.dtype != getattr(torch, want):
                raise ArgumentTypeError("%s must hold %s (torch.%s), not %s" % (arg, p["elem"], want, v.dtype))
            cuda = _placement(p, self.lib.emulated) == "device"
            if (v.device.type == "cuda") != cuda:
                raise ArgumentTypeError("%s is %s: a %s tensor is required" % (arg, p["type"], "CUDA" if cuda else "CPU"))
            if not v.is_contiguous():
                raise ArgumentValueError("%s must be contiguous (call .contiguous())" % arg)
            n = _eval_extent(p["extent"], env)
            if v.numel() != n:
                raise ArgumentValueError("%s is %s: %d elements are required, %d given" % (arg, p["type"], n, v.numel()))

    def __call__(self, *args):
        if self.fast is not None:
            return self.fast(*args)
        if self._compiling is not None and self._compiling():
            return self.op(*args)   # under torch.compile: the opaque custom op (dynamo traces this branch)
        return self._direct(args)

    def _direct(self, args):
        fn = self.name
        if self.unsupported:
            raise ArgumentTypeError("%s: %s" % (fn, self.unsupported))
        if len(args) != len(self.params):
            raise ArgumentTypeError("%s takes %d arguments (%s), %d given" % (
                fn, len(self.params), ", ".join(p["name"] for p in self.params), len(args)))
        env, values, arrays = {}, [], []
        for p, v in zip(self.params, args):
            if p["kind"] == "scalar":
                values.append(_scalar(fn, p, v))
                if _SCALARS[p["type"]][1] in ("int", "uint"):
                    env[p["name"]] = v
            else:
                values.append(None)
        for i, (p, v) in enumerate(zip(self.params, args)):
            if p["kind"] != "view":
                continue
            a = _as_array(fn, p, v, self.lib.emulated)
            if p.get("extent") is None:
                raise ArgumentTypeError("%s: argument %s is %s, whose length this binding cannot compute; "
                                        "call it from C" % (fn, p["name"], p["type"]))
            n = _eval_extent(p["extent"], env)
            if n < 0:
                raise ArgumentValueError("%s: argument %s is %s: its length %d is negative" % (fn, p["name"], p["type"], n))
            if a.count != n:
                raise ArgumentValueError("%s: argument %s is %s: %d elements are required, %d given" % (
                    fn, p["name"], p["type"], n, a.count))
            values[i] = a.ptr
            arrays.append((p, a))
        for p, a in arrays:   # a written array may overlap nothing else
            if p["access"] != "rw" or not a.nbytes:
                continue
            for q, b in arrays:
                if b is not a and b.nbytes and b.device == a.device and a.ptr < b.ptr + b.nbytes and b.ptr < a.ptr + a.nbytes:
                    raise ArgumentValueError("%s: argument %s (written) overlaps argument %s" % (fn, p["name"], q["name"]))
        return self._run(_torch(), values)

    def _run(self, torch, values):
        if not self.device:
            return self.cf(*values)
        stream = 0
        if torch is not None and not self.lib.emulated and torch.cuda.is_available():
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            stream = raw(torch.cuda.current_device()) if raw else torch.cuda.current_stream().cuda_stream
        if self.lib.emulated:   # the work runs at the call; cf_'s wait reports a trapped lane at once
            return self.cf(*values)
        if self.cq is not None:
            self.cq(stream, *values)
            return None
        if stream and torch.cuda.is_current_stream_capturing():
            # cf_ waits for its work, which a capture cannot hold: the wait would fail inside CUDA
            raise CairnError("%s has no cq_ entry (E-ENQUEUE: %s): it waits for its work, so it cannot be "
                             "captured in a CUDA graph; call it outside the capture" % (self.name, self.sig.get("no_cq")))
        self.lib.bind(stream)
        return self.cf(*values)


_PY_TYPES = {"int": int, "uint": int, "float": float, "bool": bool}


def _custom_op(f):
    """torch.library.custom_op for the _Function f: the schema from its parameters (int, float,
    bool, Tensor), mutates_args from its written views, the real implementation the checked call
    and the fake one the checks that need no data."""
    torch = _torch()
    if f.unsupported:
        raise ArgumentTypeError("%s: %s" % (f.name, f.unsupported))
    if f.sig["returns"] != "void":
        raise CairnError("%s returns %s: a custom op of it would make the graph depend on a value on the "
                         "host; write the result into a view (out:rw<T>[1]) to use it under torch.compile"
                         % (f.name, f.sig["returns"]))
    if any(p["kind"] == "view" and p.get("extent") is None for p in f.params):
        raise ArgumentTypeError("%s: a view whose length this binding cannot compute has no custom op" % f.name)
    params = []
    for p in f.params:
        name = p["name"] if not keyword.iskeyword(p["name"]) else p["name"] + "_"
        ann = torch.Tensor if p["kind"] == "view" else _PY_TYPES[_SCALARS[p["type"]][1]]
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ann))
    mutated = tuple(q.name for p, q in zip(f.params, params) if p["kind"] == "view" and p["access"] == "rw")

    def real(*args):
        f._direct(args)

    def fake(*args):
        f.check_meta(args)

    real.__signature__ = fake.__signature__ = inspect.Signature(params, return_annotation=None)
    tag = re.sub(r"\W", "_", "%s_%s_%s" % (f.lib.name, f.name, os.path.basename(f.lib.directory)[:8]))
    if tag in _OPS:   # the same build loaded again in this process: torch keeps one op per name
        return _OPS[tag]
    op = torch.library.custom_op("cairn::" + tag, real, mutates_args=mutated)
    op.register_fake(fake)
    _OPS[tag] = op
    return op


def _no_op(f):
    """What a function with no custom op has as its .op: a call that says why."""
    def op(*args):
        return f.op
    return op


_OPS = {}   # torch's operator registry is per process; so is this map from op name to op


class Library:
    """A built CAIRN library: one callable attribute per exported function."""

    def __init__(self, directory, name):
        with open(os.path.join(directory, name + ".receipt.json")) as f:
            receipt = json.load(f)
        self.directory, self.name, self.exports = directory, name, receipt["exports"]
        # emulated, the device is host threads and its memory host memory: @device views take CPU
        # tensors and buffers, and the entries ignore the stream
        self.emulated = bool(receipt.get("emulation"))
        self.dll = ctypes.CDLL(os.path.join(directory, name + ".so"))
        self._bind = None
        if self.exports["device"]:
            self._bind = getattr(self.dll, "cairn_%s_device_stream" % name)
            self._bind.argtypes, self._bind.restype = [ctypes.c_void_p], None
        self.functions = {}
        for sig in self.exports["functions"]:
            f = _Function(self, sig)
            self.functions[sig["name"]] = f
            setattr(self, sig["name"], f)
        torch = _torch()
        if torch is not None and hasattr(getattr(torch, "library", None), "custom_op"):
            for f in self.functions.values():
                try:
                    f._op = _custom_op(f)
                except CairnError as e:
                    f._op = e
        if torch is not None:   # the attribute is the generated call where there is one
            for name, f in self.functions.items():
                f.fast = _fast.make(f, torch, _SCALARS, _ELEM_BYTES, _TORCH_DTYPES)
                if f.fast is not None:
                    f.fast.op = f._op if not isinstance(f._op, Exception) and f._op is not None else _no_op(f)
                    setattr(self, name, f.fast)

    def bind(self, stream):
        if self._bind is not None:
            self._bind(stream)
