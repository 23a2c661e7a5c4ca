"""mxsim.torch: PyTorch layers whose GEMMs run through the mxsim C datapath.

    import mxsim.torch
    model = mxsim.torch.convert(model, config="configs/mxsf.yaml")

convert() replaces nn.Linear and nn.Conv2d (im2col, groups=1) in place by
layers whose three GEMMs per step -- forward Y = X.W^T, data gradient
dX = dY.W and weight gradient dW^T = X^T.dY -- are computed by the C core's
bit-exact functional datapath (mxsim.gemm); with matmul=True (default) the
torch.matmul / torch.bmm / `@` calls made inside the model's forward are
routed there too (attention scores and context).  Operand order per phase is
the one of docs/TRACES.md, so each operand is quantized along that phase's
reduction axis K (1-D blocks) or in 2-D tiles that are the same tiles in all
three phases.  Master weights, the optimizer, biases, normalisation,
activations, softmax, im2col/col2im and the loss stay FP32 in PyTorch.
"""
import contextlib
import threading

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from . import _core

__all__ = ["convert", "matmul", "linear", "conv2d", "mx_matmul_scope", "THREADS", "trace_gemms"]

THREADS = None  # threads per GEMM in the C core: None auto (mxsim.gemm), 0 all CPUs, N

_local = threading.local()


def _recorder():
    return getattr(_local, "rec", None)


class _Spec:
    """What a converted layer computes with: the config, and whether GEMM
    outputs are re-quantized to format.out (the RQU) before PyTorch sees them."""

    def __init__(self, config, requant=False):
        self.cfg = _core.get_config(config)
        self.requant = bool(requant)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _spec(config, requant=False):
    return config if isinstance(config, _Spec) else _Spec(config, requant)


def _mm(a, b, spec, phase, name):
    """a (M x K) . b (K x N) through the datapath: an FP32 torch tensor."""
    rec = _recorder()
    if rec is not None:
        rec.append((name, a.shape[0], b.shape[1], a.shape[1], phase))
    out = _core.gemm(a, b, config=spec.cfg, phase=phase, threads=THREADS)
    if spec.requant:
        out = _core.requant(out, spec.cfg)
    return torch.from_numpy(out)


def _mm_batch(a, b, spec, phase, name):
    """a (count x M x K) . b (count x K x N): count datapath GEMMs."""
    rec = _recorder()
    if rec is not None:
        rec.extend([(name, a.shape[1], b.shape[2], a.shape[2], phase)] * a.shape[0])
    out = _core.gemm_batch(a, b, config=spec.cfg, phase=phase, threads=THREADS)
    if spec.requant:
        out = np.stack([_core.requant(o, spec.cfg) for o in out])
    return torch.from_numpy(out)


def _check_float(t, name):
    if not torch.is_tensor(t):
        raise TypeError("%s: expected a torch.Tensor, got %s" % (name, type(t).__name__))
    if not t.is_floating_point():
        raise TypeError("%s: expected a floating-point tensor, got %s" % (name, t.dtype))


class _LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, cfg, name):
        x2 = x.reshape(-1, x.shape[-1]).float()
        w = weight.float()
        y = _mm(x2, w.t(), cfg, "fwd", name)                      # Y = X . W^T   (K = in)
        if bias is not None:
            y = y + bias.float()
        ctx.save_for_backward(x2, w)
        ctx.cfg, ctx.name, ctx.xshape, ctx.has_bias = cfg, name, x.shape, bias is not None
        return y.reshape(*x.shape[:-1], w.shape[0]).to(x.dtype)

    @staticmethod
    def backward(ctx, gy):
        x2, w = ctx.saved_tensors
        g2 = gy.reshape(-1, w.shape[0]).float()
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dx = _mm(g2, w, ctx.cfg, "dgrad", ctx.name).reshape(ctx.xshape)   # dX = dY . W  (K = out)
        if ctx.needs_input_grad[1]:
            dw = _mm(x2.t(), g2, ctx.cfg, "wgrad", ctx.name).t()             # dW^T = X^T . dY (K = tokens)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = g2.sum(0)
        return dx, dw, db, None, None


class _MatmulFn(torch.autograd.Function):
    """a (..., M, K) @ b (..., K, N), batch dims broadcast: one datapath GEMM
    per batch element; backward da = g . b^T (dgrad), db = a^T . g (wgrad),
    as docs/TRACES.md's attention convention."""

    @staticmethod
    def forward(ctx, a, b, cfg, name):
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        ae = a.float().expand(*batch, *a.shape[-2:]).reshape(-1, *a.shape[-2:])
        be = b.float().expand(*batch, *b.shape[-2:]).reshape(-1, *b.shape[-2:])
        out = _mm_batch(ae, be, cfg, "fwd", name)
        ctx.save_for_backward(ae, be)
        ctx.cfg, ctx.name, ctx.batch, ctx.ashape, ctx.bshape = cfg, name, batch, a.shape, b.shape
        return out.reshape(*batch, a.shape[-2], b.shape[-1]).to(torch.promote_types(a.dtype, b.dtype))

    @staticmethod
    def backward(ctx, g):
        ae, be = ctx.saved_tensors
        g3 = g.float().reshape(-1, *g.shape[-2:])
        da = db = None

        def unbroadcast(t, shape):
            t = t.reshape(*ctx.batch, *t.shape[-2:])
            while t.dim() > len(shape):
                t = t.sum(0)
            for i, s in enumerate(shape[:-2]):
                if s == 1 and t.shape[i] != 1:
                    t = t.sum(i, keepdim=True)
            return t

        if ctx.needs_input_grad[0]:
            da = unbroadcast(_mm_batch(g3, be.transpose(1, 2), ctx.cfg, "dgrad", ctx.name), ctx.ashape)
        if ctx.needs_input_grad[1]:
            db = unbroadcast(_mm_batch(ae.transpose(1, 2), g3, ctx.cfg, "wgrad", ctx.name), ctx.bshape)
        return da, db, None, None


class _Conv2dFn(torch.autograd.Function):
    """Conv2d as im2col GEMMs (docs/TRACES.md): T = batch*H_out*W_out,
    Din = C_in*kh*kw, Dout = C_out; dgrad dXcol = dY . W, then col2im (FP32
    additions in PyTorch)."""

    @staticmethod
    def forward(ctx, x, weight, bias, cfg, name, stride, padding, dilation):
        B, C, H, W = x.shape
        Co, _, kh, kw = weight.shape
        cols = F.unfold(x.float(), (kh, kw), dilation=dilation, padding=padding, stride=stride)  # B, CKK, L
        Ho = (H + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
        Wo = (W + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
        xc = cols.transpose(1, 2).reshape(B * Ho * Wo, -1)
        w2 = weight.float().reshape(Co, -1)
        y = _mm(xc, w2.t(), cfg, "fwd", name)
        if bias is not None:
            y = y + bias.float()
        ctx.save_for_backward(xc, w2)
        ctx.cfg, ctx.name = cfg, name
        ctx.geom = (x.shape, weight.shape, Ho, Wo, stride, padding, dilation)
        ctx.has_bias = bias is not None
        return y.reshape(B, Ho, Wo, Co).permute(0, 3, 1, 2).contiguous().to(x.dtype)

    @staticmethod
    def backward(ctx, gy):
        xc, w2 = ctx.saved_tensors
        xshape, wshape, Ho, Wo, stride, padding, dilation = ctx.geom
        B, Co = gy.shape[0], gy.shape[1]
        g2 = gy.float().permute(0, 2, 3, 1).reshape(B * Ho * Wo, Co)
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dxc = _mm(g2, w2, ctx.cfg, "dgrad", ctx.name)            # (T, CKK)
            dx = F.fold(dxc.reshape(B, Ho * Wo, -1).transpose(1, 2), xshape[2:], wshape[2:],
                        dilation=dilation, padding=padding, stride=stride)
        if ctx.needs_input_grad[1]:
            dw = _mm(xc.t(), g2, ctx.cfg, "wgrad", ctx.name).t().reshape(wshape)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = g2.sum(0)
        return dx, dw, db, None, None, None, None, None


def linear(x, weight, bias=None, config="configs/mxsf.yaml", name="linear", requant_output=False):
    """F.linear through the datapath (three GEMMs under autograd)."""
    _check_float(x, "x")
    _check_float(weight, "weight")
    if weight.dim() != 2 or x.dim() < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError("x: last dimension %s does not match weight of shape %s (out, in)"
                         % (tuple(x.shape)[-1:] if x.dim() else "()", tuple(weight.shape)))
    return _LinearFn.apply(x, weight, bias, _spec(config, requant_output), name)


def matmul(a, b, config="configs/mxsf.yaml", name="matmul", requant_output=False):
    """torch.matmul for tensors of rank >= 2 through the datapath."""
    _check_float(a, "a")
    _check_float(b, "b")
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError("a: mxsim.torch.matmul needs rank >= 2 operands, got %s and %s"
                         % (tuple(a.shape), tuple(b.shape)))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError("b: shape %s does not match a %s (a is ... x M x K, b ... x K x N)"
                         % (tuple(b.shape), tuple(a.shape)))
    return _MatmulFn.apply(a, b, _spec(config, requant_output), name)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, config="configs/mxsf.yaml", name="conv2d",
           requant_output=False):
    """F.conv2d (groups = 1, numeric padding) through the datapath via im2col."""
    _check_float(x, "x")
    if x.dim() != 4 or weight.dim() != 4 or x.shape[1] != weight.shape[1]:
        raise ValueError("x: shape %s does not match weight %s (N, C, H, W) / (C_out, C_in, kh, kw)"
                         % (tuple(x.shape), tuple(weight.shape)))
    pair = nn.modules.utils._pair
    return _Conv2dFn.apply(x, weight, bias, _spec(config, requant_output), name, pair(stride), pair(padding),
                           pair(dilation))


class MXLinear(nn.Linear):
    """nn.Linear whose GEMMs run through the datapath (made by convert())."""

    def forward(self, x):
        if not torch.is_tensor(x) or x.dim() < 1 or x.shape[-1] != self.in_features:
            raise ValueError("x: layer '%s' (Linear %d -> %d) got input of shape %s"
                             % (self.mx_name, self.in_features, self.out_features,
                                tuple(x.shape) if torch.is_tensor(x) else type(x).__name__))
        return _LinearFn.apply(x, self.weight, self.bias, self.mx_config, self.mx_name)


class MXConv2d(nn.Conv2d):
    """nn.Conv2d (groups = 1) whose im2col GEMMs run through the datapath."""

    def forward(self, x):
        if not torch.is_tensor(x) or x.dim() != 4 or x.shape[1] != self.in_channels:
            raise ValueError("x: layer '%s' (Conv2d, %d input channels) expects (N, %d, H, W), got %s"
                             % (self.mx_name, self.in_channels, self.in_channels,
                                tuple(x.shape) if torch.is_tensor(x) else type(x).__name__))
        return _Conv2dFn.apply(x, self.weight, self.bias, self.mx_config, self.mx_name, self.stride,
                               self.padding, self.dilation)


class MXMultiheadAttention(nn.MultiheadAttention):
    """nn.MultiheadAttention kept on PyTorch's Python path (whose F.linear
    and torch.bmm calls the scope routes through the datapath): in eval mode
    with dropout 0 the native fast path would bypass them, so the training
    flag is raised for the call (it only selects the path and dropout, which
    is 0 there)."""

    def forward(self, *args, **kw):
        if self.training or self.dropout:
            return super().forward(*args, **kw)
        self.training = True
        try:
            return super().forward(*args, **kw)
        finally:
            self.training = False


# ---- torch.matmul / torch.bmm / @ inside a converted model's forward ----------
_orig = {"matmul": torch.matmul, "bmm": torch.bmm, "__matmul__": torch.Tensor.__matmul__,
         "baddbmm": torch.baddbmm, "linear": F.linear}


def _routed_linear(x, weight, bias=None):
    """F.linear inside a scope (nn.MultiheadAttention's projections, user
    code): the three GEMMs through the datapath."""
    scope = getattr(_local, "scope", None)
    if scope is None or not (torch.is_tensor(x) and x.is_floating_point() and torch.is_tensor(weight)
                             and weight.dim() == 2 and x.dim() >= 1 and x.shape[-1] == weight.shape[1]):
        return _orig["linear"](x, weight, bias)
    spec, prefix = scope[-1]
    return _LinearFn.apply(x, weight, bias, spec, "%s.linear" % prefix if prefix else "linear")


def _routed_baddbmm(inp, a, b, *args, beta=1, alpha=1, **kw):
    """torch.baddbmm(inp, a, b) = inp + a @ b (beta = alpha = 1, as
    nn.MultiheadAttention's masked scores): the product through the datapath,
    the addition in FP32."""
    scope = getattr(_local, "scope", None)
    if scope is None or args or kw or beta != 1 or alpha != 1 or not (torch.is_tensor(a) and torch.is_tensor(b)):
        return _orig["baddbmm"](inp, a, b, *args, beta=beta, alpha=alpha, **kw)
    spec, prefix = scope[-1]
    return inp + _MatmulFn.apply(a, b, spec, "%s.baddbmm" % prefix if prefix else "baddbmm")


def _routed(kind):
    orig = _orig[kind]

    def fn(a, b, *args, **kw):
        scope = getattr(_local, "scope", None)
        if scope is None or args or kw or not (torch.is_tensor(a) and torch.is_tensor(b)) \
                or a.dim() < 2 or b.dim() < 2 or not (a.is_floating_point() and b.is_floating_point()):
            return orig(a, b, *args, **kw)
        cfg, prefix = scope[-1]
        return _MatmulFn.apply(a, b, cfg, "%s.%s" % (prefix, kind.strip("_")) if prefix else kind.strip("_"))
    return fn


_patch_lock = threading.Lock()
_patched = [0]


@contextlib.contextmanager
def mx_matmul_scope(config="configs/mxsf.yaml", prefix="", requant_output=False):
    """Within the block, torch.matmul / torch.bmm / a @ b on float tensors of
    rank >= 2 in this thread run through the datapath (with autograd)."""
    cfg = _spec(config, requant_output)
    with _patch_lock:
        if _patched[0] == 0:
            torch.matmul = _routed("matmul")
            torch.bmm = _routed("bmm")
            torch.Tensor.__matmul__ = _routed("__matmul__")
            torch.baddbmm = _routed_baddbmm
            F.linear = _routed_linear
        _patched[0] += 1
    stack = getattr(_local, "scope", None)
    _local.scope = (stack or []) + [(cfg, prefix)]
    try:
        yield cfg
    finally:
        _local.scope = stack
        with _patch_lock:
            _patched[0] -= 1
            if _patched[0] == 0:
                torch.matmul = _orig["matmul"]
                torch.bmm = _orig["bmm"]
                torch.Tensor.__matmul__ = _orig["__matmul__"]
                torch.baddbmm = _orig["baddbmm"]
                F.linear = _orig["linear"]


def _wrap_forward(module, cfg, prefix):
    inner = module.forward

    def forward(*args, **kw):
        with mx_matmul_scope(cfg, prefix):
            return inner(*args, **kw)
    module.forward = forward


def convert(model, config="configs/mxsf.yaml", matmul=True, requant_output=False):
    """Converts model in place (and returns it): every nn.Linear and nn.Conv2d
    (groups 1, zero padding) becomes a datapath layer of `config`, keeping its
    parameters (so an optimizer made before or after works alike); with
    matmul=True, the torch.matmul/bmm/baddbmm/@ and F.linear calls of every
    module's own forward code run through the datapath too, which covers
    nn.MultiheadAttention (kept off its native fast path).  requant_output=True: every GEMM output
    (forward and both gradients) is re-quantized to the config's format.out
    as the RQU writes it (mxsim.requant), gradients passing straight through.
    Layer names are the module tree's."""
    if not isinstance(model, nn.Module):
        raise TypeError("model: expected a torch.nn.Module, got %s" % type(model).__name__)
    cfg = _spec(config, requant_output)
    for name, m in model.named_modules():
        nm = name or type(m).__name__.lower()
        if type(m) is nn.Linear:
            m.__class__ = MXLinear
        elif type(m) is nn.Conv2d:
            if m.groups != 1 or m.padding_mode != "zeros" or isinstance(m.padding, str):
                raise ValueError("model: %s: Conv2d with groups=%d, padding=%r, padding_mode=%s is not supported"
                                 % (nm, m.groups, m.padding, m.padding_mode))
            m.__class__ = MXConv2d
        elif type(m) is nn.MultiheadAttention and matmul:
            m.__class__ = MXMultiheadAttention
        if isinstance(m, (MXLinear, MXConv2d)):
            m.mx_config, m.mx_name = cfg, nm
    if matmul:
        _wrap_forward(model, cfg, "")
    return model


@contextlib.contextmanager
def trace_gemms():
    """Records (name, M, N, K, phase) of every datapath GEMM made in the
    block (in this thread), in call order."""
    prev = _recorder()
    rec = []
    _local.rec = rec
    try:
        yield rec
    finally:
        _local.rec = prev
