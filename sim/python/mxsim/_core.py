"""ctypes binding of libmxcore.so's C ABI (sim/mxsim_capi.h).

Nothing numeric happens here: operands are handed to the C core as FP32
buffers and the core's FP32 output bits come back in a numpy array.
"""
import ctypes
import os

import numpy as np

ABI = 3  # MXSIM_CAPI_ABI of sim/mxsim_capi.h

_PKG = os.path.dirname(os.path.abspath(__file__))
# sim/python/mxsim -> the repository root (a build tree), or None when installed
_ROOT = os.path.abspath(os.path.join(_PKG, "..", "..", ".."))
if not os.path.isfile(os.path.join(_ROOT, "configs", "mxsf.yaml")):
    _ROOT = None

PHASES = {"fwd": 0, "dgrad": 1, "wgrad": 2, "inf": 3}


def _find_lib():
    """MXSIM_LIB, the copy installed next to the package, or the build tree
    (MXSIM_BUILD, default build/) of the repository holding the package."""
    cands = []
    if os.environ.get("MXSIM_LIB"):
        cands.append(os.environ["MXSIM_LIB"])
    cands.append(os.path.join(_PKG, "_lib", "libmxcore.so"))
    if _ROOT:
        b = os.environ.get("MXSIM_BUILD", "build")
        cands.append(os.path.join(b if os.path.isabs(b) else os.path.join(_ROOT, b), "libmxcore.so"))
    for c in cands:
        if os.path.isfile(c):
            return c
    raise ImportError("mxsim: libmxcore.so not found (looked in: %s); run `make` or set MXSIM_LIB"
                      % ", ".join(cands))


LIB_PATH = _find_lib()
_lib = ctypes.CDLL(LIB_PATH)
_lib.mxsim_capi_abi.restype = ctypes.c_int
_lib.mxsim_capi_version.restype = ctypes.c_char_p
_lib.mxsim_capi_config_load.restype = ctypes.c_void_p
_lib.mxsim_capi_config_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                        ctypes.c_char_p, ctypes.c_size_t]
_lib.mxsim_capi_config_free.argtypes = [ctypes.c_void_p]
_lib.mxsim_capi_config_describe.restype = ctypes.c_int
_lib.mxsim_capi_config_describe.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
_lib.mxsim_capi_gemm.restype = ctypes.c_int
_lib.mxsim_capi_gemm.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_longlong,
                                 ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                 ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_longlong),
                                 ctypes.c_char_p, ctypes.c_size_t]
_lib.mxsim_capi_gemm_batch.restype = ctypes.c_int
_lib.mxsim_capi_gemm_batch.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_longlong,
                                       ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
_lib.mxsim_capi_requant.restype = ctypes.c_int
_lib.mxsim_capi_requant.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
if _lib.mxsim_capi_abi() != ABI:
    raise ImportError("mxsim: %s has C ABI %d, this package needs %d" % (LIB_PATH, _lib.mxsim_capi_abi(), ABI))


def version():
    return _lib.mxsim_capi_version().decode()


def resolve_config_path(config):
    """A path as given (relative to the current directory), else relative to
    the repository root (build tree) or the installed share/mxsim; a bare name
    such as 'mxsf' means configs/mxsf.yaml."""
    cands = [config]
    if not config.endswith((".yaml", ".yml")) and "/" not in config:
        cands.append(os.path.join("configs", config + ".yaml"))
    bases = [None]
    if _ROOT:
        bases.append(_ROOT)
    bases.append(os.path.join(_PKG, "_share"))
    for base in bases:
        for c in cands:
            p = c if base is None or os.path.isabs(c) else os.path.join(base, c)
            if os.path.isfile(p):
                return p
    return None


class Config:
    """An accelerator configuration loaded by the C YAML loader (the one
    `mxsim run -c` uses), with optional `--set`-style overrides."""

    def __init__(self, config="configs/mxsf.yaml", overrides=()):
        if not isinstance(config, (str, os.PathLike)):
            raise TypeError("config: expected a path or a config name, got %s" % type(config).__name__)
        config = os.fspath(config)
        path = resolve_config_path(config)
        if path is None:
            raise ValueError("config: no such configuration file: '%s'" % config)
        self.path = path
        self.overrides = tuple(overrides)
        err = ctypes.create_string_buffer(1024)
        sets = (ctypes.c_char_p * max(1, len(self.overrides)))(*[s.encode() for s in self.overrides])
        h = _lib.mxsim_capi_config_load(path.encode(), sets, len(self.overrides), err, len(err))
        if not h:
            raise ValueError("config: %s" % err.value.decode(errors="replace"))
        self._h = h
        buf = ctypes.create_string_buffer(4096)
        _lib.mxsim_capi_config_describe(h, buf, len(buf))
        d = dict(l.split("=", 1) for l in buf.value.decode().splitlines() if "=" in l)
        self.name = d["name"]
        self.a_format, self.b_format, self.out_format = d["a"], d["b"], d["out"]
        self.block = int(d["block"])
        self.tile = (int(d["tile_rows"]), int(d["tile_cols"])) if int(d["tile_rows"]) > 0 else None
        self.lanes = int(d["lanes"])

    # a Config owns a C handle: copies (copy.deepcopy of a converted model)
    # share it rather than free it twice
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and _lib is not None:
            _lib.mxsim_capi_config_free(h)

    def __repr__(self):
        blocks = "%dx%d tiles" % self.tile if self.tile else "1-D blocks of %d" % self.block
        return "<mxsim.Config %s: A %s, B %s, %s, %d lanes (%s)>" % (
            self.name, self.a_format, self.b_format, blocks, self.lanes, self.path)


_configs = {}


def get_config(config):
    """A Config from a Config, a path or a name (loaded once per path)."""
    if isinstance(config, Config):
        return config
    if isinstance(config, (str, os.PathLike)):
        key = os.fspath(config)
        if key not in _configs:
            _configs[key] = Config(key)
        return _configs[key]
    raise TypeError("config: expected a path, a config name or an mxsim.Config, got %s" % type(config).__name__)


def _operand(x, name, ndim=2):
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor, without importing torch
        x = x.detach().cpu()
        if str(x.dtype) != "torch.float32":
            x = x.float()
        x = x.numpy()
    try:
        a = np.asarray(x)
    except Exception as e:  # noqa: BLE001
        raise TypeError("%s: not an array: %s" % (name, e)) from None
    if a.ndim != ndim:
        raise ValueError("%s: expected a %s, got shape %s"
                         % (name, "2-D matrix" if ndim == 2 else "3-D batch of matrices", tuple(a.shape)))
    if a.dtype.kind not in "fiub":
        raise TypeError("%s: expected a real numeric array, got dtype %s" % (name, a.dtype))
    if 0 in a.shape:
        raise ValueError("%s: empty matrix, shape %s" % (name, tuple(a.shape)))
    return np.ascontiguousarray(a, dtype=np.float32)


# below this many MACs one thread: starting threads costs ~0.4 ms per call,
# more than such a GEMM takes (the bits do not depend on the thread count)
AUTO_THREADS_MACS = 1 << 21


def gemm(A, B, config="configs/mxsf.yaml", phase="fwd", threads=None, a_format=None, b_format=None,
         stats=None):
    """C = A . B through the bit-exact functional datapath of `config`.

    A (M x K) is quantized along K (its rows), B (K x N) along K (its
    columns), in 1-D blocks or 2-D tiles as the config says; the PE computes
    L-lane block dot products with FP32 accumulation.  Returns the FP32
    outputs, a numpy float32 array (M, N) -- the bits `mxsim run --mode
    functional --data --dump` writes for the same operands.  threads: None
    (1 below AUTO_THREADS_MACS, else all CPUs), <= 0 all CPUs, or a count.
    stats: an optional dict that receives 'qsnr_db' and 'cycles'.
    """
    cfg = get_config(config)
    if phase not in PHASES:
        raise ValueError("phase: expected one of %s, got %r" % ("/".join(PHASES), phase))
    a = _operand(A, "A")
    b = _operand(B, "B")
    if a.shape[1] != b.shape[0]:
        raise ValueError("B: shape %s does not match A %s: A is M x K, B must be K x N (K = %d)"
                         % (tuple(b.shape), tuple(a.shape), a.shape[1]))
    M, K = a.shape
    N = b.shape[1]
    if threads is None:
        threads = 1 if M * N * K < AUTO_THREADS_MACS else 0
    out = np.empty((M, N), dtype=np.float32)
    err = ctypes.create_string_buffer(1024)
    q = ctypes.c_double(0)
    cyc = ctypes.c_longlong(0)
    rc = _lib.mxsim_capi_gemm(cfg._h, M, N, K, a.ctypes.data, b.ctypes.data, out.ctypes.data, PHASES[phase],
                              a_format.encode() if a_format else None, b_format.encode() if b_format else None,
                              int(threads), ctypes.byref(q), ctypes.byref(cyc), err, len(err))
    if rc != 0:
        raise ValueError("config: %s" % err.value.decode(errors="replace"))
    if stats is not None:
        stats["qsnr_db"] = q.value
        stats["cycles"] = cyc.value
    return out


def gemm_batch(A, B, config="configs/mxsf.yaml", phase="fwd", threads=None):
    """C[i] = A[i] . B[i] for a batch of equal-shape GEMMs (A: count x M x K,
    B: count x K x N): each instance is exactly gemm(A[i], B[i]) (the same
    bits), the instances spread over threads (None: all CPUs unless the batch
    is tiny).  Returns a float32 array (count, M, N)."""
    cfg = get_config(config)
    if phase not in PHASES:
        raise ValueError("phase: expected one of %s, got %r" % ("/".join(PHASES), phase))
    a = _operand(A, "A", 3)
    b = _operand(B, "B", 3)
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError("B: shape %s does not match A %s: A is count x M x K, B must be count x K x N"
                         % (tuple(b.shape), tuple(a.shape)))
    cnt, M, K = a.shape
    N = b.shape[2]
    if threads is None:
        threads = 1 if cnt * M * N * K < (1 << 18) else 0
    out = np.empty((cnt, M, N), dtype=np.float32)
    err = ctypes.create_string_buffer(1024)
    rc = _lib.mxsim_capi_gemm_batch(cfg._h, cnt, M, N, K, a.ctypes.data, b.ctypes.data, out.ctypes.data,
                                    PHASES[phase], int(threads), err, len(err))
    if rc != 0:
        raise ValueError("config: %s" % err.value.decode(errors="replace"))
    return out


def requant(Y, config="configs/mxsf.yaml"):
    """The outputs Y (M x N) re-quantized to the config's format.out as the
    RQU stores them (what `mxsim run --dump` writes as out_codes/out_scales:
    2-D tiles over (M, N) or blocks along N), dequantized to float32."""
    cfg = get_config(config)
    y = _operand(Y, "Y")
    out = np.empty_like(y)
    err = ctypes.create_string_buffer(1024)
    if _lib.mxsim_capi_requant(cfg._h, y.shape[0], y.shape[1], y.ctypes.data, out.ctypes.data, err, len(err)) != 0:
        raise ValueError("config: %s" % err.value.decode(errors="replace"))
    return out
