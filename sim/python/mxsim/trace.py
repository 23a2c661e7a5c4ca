"""mxsim.trace: GEMM traces (docs/TRACES.md) of PyTorch models, by running
one forward pass with hooks.  `mxsim trace --from-torch MODULE:FACTORY` runs
`python3 -m mxsim.trace` (sim/cmd_trace.c).

What is a GEMM: nn.Linear (T = rows of the input, K = in, N = out),
nn.Conv2d via im2col (T = batch*H_out*W_out, K = C_in/groups*kh*kw,
N = C_out/groups, count = groups) and torch.matmul / torch.bmm / `@` of two
tensors of rank >= 2 (count = the broadcast batch size), named from the
module tree (`layer.attn.matmul0` for the first matmul in module
`layer.attn`'s forward).  With --train, the backward rows follow the forward
ones in reverse layer order: dgrad when the layer's input (for matmul: the
first operand) requires a gradient -- the image or token ids do not, so the
first layer has none, as in traces/resnet50_train.csv -- and wgrad when its
weight (the second operand) does.  Shapes come from the tensors the model
really computes on; by default on PyTorch's `meta` device (shapes only, no
arithmetic), --device cpu for models with operations meta cannot run.
"""
import argparse
import importlib
import inspect
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME_MAX = 63


class _Recorder:
    def __init__(self):
        self.rows = []          # (name, M, N, K, count, a_grad, b_grad)
        self.stack = []
        self.mods = []
        self.counts = {}

    def cur(self):
        return self.stack[-1] if self.stack else ""

    def add(self, name, M, N, K, count, a_grad, b_grad):
        name = name.replace(",", "_") or "gemm"
        if len(name) > NAME_MAX:
            name = name[-NAME_MAX:]
        self.rows.append((name, int(M), int(N), int(K), int(count), bool(a_grad), bool(b_grad)))


def _leaf_hooks(rec, model):
    hs = []
    for name, m in model.named_modules():
        nm = name or "model"

        def pre(mod, inp, nm=nm):
            rec.stack.append(nm)
            rec.mods.append(mod)

        def post(mod, inp, out, nm=nm):
            rec.stack.pop()
            rec.mods.pop()
            x = inp[0] if inp else None
            if isinstance(mod, nn.Linear):
                T = x.numel() // mod.in_features
                rec.add(nm, T, mod.out_features, mod.in_features, 1, x.requires_grad, mod.weight.requires_grad)
            elif isinstance(mod, nn.Conv2d):
                g = mod.groups
                kh, kw = mod.kernel_size
                T = out.shape[0] * out.shape[2] * out.shape[3]
                rec.add(nm, T, mod.out_channels // g, mod.in_channels // g * kh * kw, g, x.requires_grad,
                        mod.weight.requires_grad)
        hs.append(m.register_forward_pre_hook(pre))
        hs.append(m.register_forward_hook(post))
    return hs


def _patch_matmul(rec):
    orig = {"matmul": torch.matmul, "bmm": torch.bmm, "mm": torch.mm, "__matmul__": torch.Tensor.__matmul__,
            "baddbmm": torch.baddbmm, "linear": F.linear}

    def record(kind, a, b):
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        count = 1
        for s in batch:
            count *= s
        owner = rec.cur()
        key = (owner, kind)
        i = rec.counts.get(key, 0)
        rec.counts[key] = i + 1
        rec.add("%s.%s%d" % (owner, kind, i) if owner else "%s%d" % (kind, i), a.shape[-2], b.shape[-1],
                a.shape[-1], count, a.requires_grad, b.requires_grad)

    def linear(x, w, bias=None):
        # F.linear outside an nn.Linear's own forward (whose hook records
        # it): nn.MultiheadAttention's projections, functional user code
        if not (rec.mods and isinstance(rec.mods[-1], nn.Linear)) and torch.is_tensor(x) and w.dim() == 2:
            owner = rec.cur()
            key = (owner, "linear")
            i = rec.counts.get(key, 0)
            rec.counts[key] = i + 1
            rec.add("%s.linear%d" % (owner, i) if owner else "linear%d" % i, x.numel() // w.shape[1], w.shape[0],
                    w.shape[1], 1, x.requires_grad, w.requires_grad)
        return orig["linear"](x, w, bias)

    def baddbmm(inp, a, b, *args, **kw):
        if torch.is_tensor(a) and torch.is_tensor(b) and a.dim() >= 2 and b.dim() >= 2:
            record("matmul", a, b)
        return orig["baddbmm"](inp, a, b, *args, **kw)

    def make(kind):
        f = orig[kind]

        def fn(a, b, *args, **kw):
            if torch.is_tensor(a) and torch.is_tensor(b) and a.dim() >= 2 and b.dim() >= 2:
                record("matmul", a, b)
            return f(a, b, *args, **kw)
        return fn
    torch.matmul, torch.bmm, torch.mm = make("matmul"), make("bmm"), make("mm")
    torch.Tensor.__matmul__ = make("__matmul__")
    torch.baddbmm, F.linear = baddbmm, linear

    def undo():
        torch.matmul, torch.bmm, torch.mm = orig["matmul"], orig["bmm"], orig["mm"]
        torch.Tensor.__matmul__ = orig["__matmul__"]
        torch.baddbmm, F.linear = orig["baddbmm"], orig["linear"]
    return undo


def _to_device(x, device):
    if torch.is_tensor(x):
        return x.to(device)
    if isinstance(x, (tuple, list)):
        return type(x)(_to_device(v, device) for v in x)
    if isinstance(x, dict):
        return {k: _to_device(v, device) for k, v in x.items()}
    return x


def trace_model(model, inputs, train=False, device="meta"):
    """Rows (name, M, N, K, phase, count) of one forward (and with train the
    backward) pass of model on inputs (a tensor, a tuple of positional
    arguments or a dict of keyword arguments)."""
    if not isinstance(model, nn.Module):
        raise TypeError("model: expected a torch.nn.Module, got %s" % type(model).__name__)
    model = model.to(device)
    inputs = _to_device(inputs, device)
    for p in model.parameters():
        p.requires_grad_(train)
    rec = _Recorder()
    hs = _leaf_hooks(rec, model)
    undo = _patch_matmul(rec)
    # nn.MultiheadAttention in eval mode may take PyTorch's native fast path,
    # which calls no F.linear/bmm: its Python path is taken while tracing
    mhas = [m for m in model.modules() if isinstance(m, nn.MultiheadAttention) and not m.training]
    for m in mhas:
        m.training = True
    try:
        with torch.set_grad_enabled(train):
            if isinstance(inputs, dict):
                model(**inputs)
            elif isinstance(inputs, (tuple, list)):
                model(*inputs)
            else:
                model(inputs)
    finally:
        undo()
        for m in mhas:
            m.training = False
        for h in hs:
            h.remove()
    rows = [(n, M, N, K, "fwd" if train else "inf", c) for n, M, N, K, c, _, _ in rec.rows]
    if train:
        for n, M, N, K, c, ag, bg in reversed(rec.rows):
            if ag:
                rows.append((n, M, K, N, "dgrad", c))     # dX = dY . W^T: M = T, N = Din, K = Dout
            if bg:
                rows.append((n, K, N, M, "wgrad", c))     # dW = X^T . dY: M = Din, N = Dout, K = T
    return rows


def write_trace(rows, f, comment=None):
    if comment:
        for line in comment.splitlines():
            f.write("# %s\n" % line)
    f.write("name,M,N,K,phase,count\n")
    for n, M, N, K, ph, c in rows:
        f.write("%s,%d,%d,%d,%s,%d\n" % (n, M, N, K, ph, c))


def load_factory(spec, batch, seq):
    """MODULE:FACTORY -> (model, inputs).  FACTORY is called with the
    keyword arguments batch= and seq= it accepts, and returns (model, inputs)
    or a model with an example_input(batch, seq) method."""
    if ":" not in spec:
        raise ValueError("--from-torch: expected MODULE:FACTORY, got '%s'" % spec)
    mod, fac = spec.rsplit(":", 1)
    try:
        m = importlib.import_module(mod)
    except ImportError as e:
        raise ValueError("--from-torch: cannot import module '%s': %s" % (mod, e)) from None
    fn = getattr(m, fac, None)
    if not callable(fn):
        raise ValueError("--from-torch: module '%s' has no callable '%s'" % (mod, fac))
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    kw = {}
    if "batch" in params:
        kw["batch"] = batch
    if "seq" in params:
        kw["seq"] = seq
    r = fn(**kw)
    if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], nn.Module):
        return r
    if isinstance(r, nn.Module) and hasattr(r, "example_input"):
        return r, r.example_input(batch, seq)
    raise ValueError("--from-torch: %s must return (model, inputs) or a model with example_input(batch, seq)" % spec)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="mxsim trace",
                                 description="Write a GEMM trace (docs/TRACES.md) of a PyTorch model.")
    ap.add_argument("--from-torch", required=True, metavar="MODULE:FACTORY")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--train", action="store_true", help="add the backward GEMMs (dgrad, wgrad)")
    ap.add_argument("--device", default="meta", help="meta (shapes only, default) or cpu")
    ap.add_argument("-o", "--output", default="-", help="trace file (default: standard output)")
    a = ap.parse_args(argv)
    try:
        if a.batch < 1 or a.seq < 1:
            raise ValueError("--batch and --seq must be >= 1")
        model, inputs = load_factory(a.from_torch, a.batch, a.seq)
        rows = trace_model(model, inputs, a.train, a.device)
        if not rows:
            raise ValueError("--from-torch: %s computed no GEMM (no Linear, Conv2d or matmul)" % a.from_torch)
    except (ValueError, TypeError, RuntimeError, NotImplementedError) as e:
        print("mxsim trace: %s" % str(e).splitlines()[0], file=sys.stderr)
        return 2
    comment = ("traced by mxsim trace --from-torch %s --batch %d --seq %d%s (forward hooks on %s)"
               % (a.from_torch, a.batch, a.seq, " --train" if a.train else "", a.device))
    if a.output == "-":
        try:
            write_trace(rows, sys.stdout, comment)
            sys.stdout.flush()
        except BrokenPipeError:  # `| head`: not an error
            import os
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    else:
        tmp = a.output + ".tmp"
        with open(tmp, "w") as f:
            write_trace(rows, f, comment)
        import os
        os.replace(tmp, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
