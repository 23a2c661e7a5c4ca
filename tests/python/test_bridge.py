"""Tests of the Python bridge (sim/python/mxsim), run by `make test-python`.

The independent side of every bit-equality check is the CLI: the test writes
each GEMM's operands as .npy files in the trace convention of
docs/TRACES.md (fwd Y = X.W, dgrad dX = dY.W^T, wgrad dW = X^T.dY, with W the
Din x Dout matrix, i.e. PyTorch's weight transposed) and runs
`mxsim run --mode functional --data DIR --dump DIR2` on them.  Quantization
axes are checked against `mxsim quant` (the CLI's quantizer) along the axes
the docs name.

Environment: MXSIM_BIN (the mxsim binary), MXSIM_LIB (libmxcore.so).
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "sim", "python"))
BIN = os.environ.get("MXSIM_BIN", os.path.join(ROOT, "build", "mxsim"))

import torch  # noqa: E402

import mxsim  # noqa: E402
import mxsim.torch as mxt  # noqa: E402

torch.set_num_threads(1)
CONFIGS = ["configs/mxsf.yaml", "configs/mxsf_1d.yaml", "configs/bf16.yaml", "configs/mxfp8_e4m3.yaml"]


def cfgpath(c):
    return os.path.join(ROOT, c)


def cli_gemms(config, gemms):
    """gemms: list of (name, phase, A (M x K), B (K x N)).  Runs the CLI in
    functional mode on them and returns {(name, phase): out}."""
    with tempfile.TemporaryDirectory() as d:
        data, dump = os.path.join(d, "data"), os.path.join(d, "dump")
        os.mkdir(data)
        rows = ["name,M,N,K,phase,count"]
        for name, phase, a, b in gemms:
            a = np.ascontiguousarray(a, dtype=np.float32)
            b = np.ascontiguousarray(b, dtype=np.float32)
            assert a.shape[1] == b.shape[0]
            rows.append("%s,%d,%d,%d,%s,1" % (name, a.shape[0], b.shape[1], a.shape[1], phase))
            np.save(os.path.join(data, "%s.%s.a.npy" % (name, phase)), a)
            np.save(os.path.join(data, "%s.%s.b.npy" % (name, phase)), b)
        trace = os.path.join(d, "t.csv")
        with open(trace, "w") as f:
            f.write("\n".join(rows) + "\n")
        r = subprocess.run([BIN, "run", "-q", "--no-progress", "-c", cfgpath(config), "-t", trace,
                            "--mode", "functional", "--data", data, "--dump", dump, "-o", os.path.join(d, "o")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError("mxsim run failed: %s" % r.stderr)
        return {(n, p): np.load(os.path.join(dump, "%s.%s.out.npy" % (n, p))) for n, p, _, _ in gemms}


def cli_quant(x, fmt, block, axis=-1):
    """Dequantized x from `mxsim quant` (the CLI's quantizer)."""
    with tempfile.TemporaryDirectory() as d:
        i, o = os.path.join(d, "i.npy"), os.path.join(d, "o.npy")
        np.save(i, np.ascontiguousarray(x, dtype=np.float32))
        ax = [] if "x" in block else ["--axis", str(axis)]
        r = subprocess.run([BIN, "quant", "--format", fmt, "--block", block] + ax + [i, o],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError("mxsim quant failed: %s" % r.stderr)
        return np.load(o).astype(np.float64)


def bits(x):
    x = x.detach().numpy() if torch.is_tensor(x) else x
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


def assert_bits_equal(tc, got, want, what):
    g, w = bits(got), bits(want)
    tc.assertEqual(g.shape, w.shape, what)
    bad = int((g != w).sum())
    tc.assertEqual(bad, 0, "%s: %d of %d outputs differ in bits (max |diff| %g)"
                   % (what, bad, g.size, float(np.abs(g.view(np.float32) - w.view(np.float32)).max())))


def layer_run(config, T=37, din=70, dout=45, seed=1, bias=False):
    """A converted nn.Linear: forward on X, backward of G.  Returns the
    operands and the three results."""
    g = torch.Generator().manual_seed(seed)
    lin = torch.nn.Linear(din, dout, bias=bias)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(dout, din, generator=g) * 0.3)
    mxt.convert(lin, config=cfgpath(config))
    X = (torch.randn(T, din, generator=g) * 2.0).requires_grad_(True)
    G = torch.randn(T, dout, generator=g) * 0.01
    Y = lin(X)
    Y.backward(G)
    return lin, X.detach(), G, Y.detach(), X.grad.detach(), lin.weight.grad.detach()


class GemmTest(unittest.TestCase):
    def test_gemm_equals_cli(self):
        rng = np.random.default_rng(5)
        A = rng.standard_normal((19, 83)).astype(np.float32)
        B = rng.standard_normal((83, 29)).astype(np.float32) * 4
        for c in CONFIGS:
            want = cli_gemms(c, [("g", "fwd", A, B)])[("g", "fwd")]
            assert_bits_equal(self, mxsim.gemm(A, B, config=cfgpath(c)), want, "gemm %s" % c)
            assert_bits_equal(self, mxsim.gemm(A, B, config=cfgpath(c), threads=1), want, "gemm 1 thread %s" % c)

    def test_gemm_is_not_fp32_matmul(self):
        # a datapath, not numpy: MXSF quantization error is visible
        rng = np.random.default_rng(6)
        A = rng.standard_normal((16, 64)).astype(np.float32)
        B = rng.standard_normal((64, 16)).astype(np.float32)
        s = {}
        C = mxsim.gemm(A, B, config=cfgpath("configs/mxsf.yaml"), stats=s)
        ref = A.astype(np.float64) @ B.astype(np.float64)
        err = np.abs(C - ref).max()
        self.assertGreater(err, 1e-3)
        self.assertLess(err, 0.5)
        self.assertTrue(20 < s["qsnr_db"] < 60, s)
        self.assertGreater(s["cycles"], 0)

    def test_bad_input(self):
        A = np.ones((4, 8), np.float32)
        with self.assertRaisesRegex(ValueError, r"^config: no such configuration file: 'nope.yaml'"):
            mxsim.gemm(A, np.ones((8, 4), np.float32), config="nope.yaml")
        with self.assertRaisesRegex(ValueError, r"^B: shape \(7, 4\) does not match A \(4, 8\)"):
            mxsim.gemm(A, np.ones((7, 4), np.float32))
        with self.assertRaisesRegex(ValueError, r"^A: expected a 2-D matrix"):
            mxsim.gemm(np.ones(8, np.float32), np.ones((8, 4), np.float32))
        with self.assertRaisesRegex(ValueError, r"^phase: "):
            mxsim.gemm(A, np.ones((8, 4), np.float32), phase="backward")
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("arch:\n  colums: 3\n")
            f.flush()
            with self.assertRaisesRegex(ValueError, r"^config: .*:2: key 'arch.colums': unknown key"):
                mxsim.Config(f.name)
        lin = torch.nn.Linear(8, 4)
        with self.assertRaisesRegex(ValueError, r"^config: no such configuration file"):
            mxt.convert(lin, config="missing.yaml")
        with self.assertRaisesRegex(TypeError, r"^model: "):
            mxt.convert("not a model")
        mxt.convert(lin, config=cfgpath("configs/mxsf.yaml"))
        with self.assertRaisesRegex(ValueError, r"^x: layer 'linear' \(Linear 8 -> 4\) got input of shape \(3, 5\)"):
            lin(torch.ones(3, 5))
        conv = mxt.convert(torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3)), config=cfgpath("configs/mxsf.yaml"))
        with self.assertRaisesRegex(ValueError, r"^x: layer '0' \(Conv2d, 3 input channels\)"):
            conv(torch.ones(1, 2, 5, 5))
        with self.assertRaisesRegex(ValueError, r"^x: last dimension"):
            mxt.linear(torch.ones(3, 5), torch.ones(4, 8), config=cfgpath("configs/mxsf.yaml"))


class LinearTest(unittest.TestCase):
    def test_three_phases_equal_cli_dump(self):
        """THE key test: forward output, input gradient and weight gradient of
        a converted nn.Linear equal, bit for bit, the CLI's functional dumps
        of the three GEMMs in the docs/TRACES.md convention."""
        for c in CONFIGS:
            lin, X, G, Y, dX, dW = layer_run(c)
            W = lin.weight.detach().numpy()        # (Dout, Din) = the trace's W^T
            Xn, Gn = X.numpy(), G.numpy()
            out = cli_gemms(c, [("lin", "fwd", Xn, W.T),       # Y  = X . W      M=T   K=Din  N=Dout
                                ("lin", "dgrad", Gn, W),       # dX = dY . W^T   M=T   K=Dout N=Din
                                ("lin", "wgrad", Xn.T, Gn)])   # dW = X^T . dY   M=Din K=T    N=Dout
            assert_bits_equal(self, Y, out[("lin", "fwd")], "%s forward" % c)
            assert_bits_equal(self, dX, out[("lin", "dgrad")], "%s input gradient" % c)
            assert_bits_equal(self, dW.T, out[("lin", "wgrad")], "%s weight gradient" % c)

    def test_bias_and_batch_dims(self):
        c = "configs/mxsf.yaml"
        g = torch.Generator().manual_seed(3)
        lin = torch.nn.Linear(24, 16)
        ref = torch.nn.Linear(24, 16)
        ref.load_state_dict(lin.state_dict())
        mxt.convert(lin, config=cfgpath(c))
        X = torch.randn(2, 5, 24, generator=g)
        Y = lin(X)
        self.assertEqual(tuple(Y.shape), (2, 5, 16))
        G = cli_gemms(c, [("l", "fwd", X.reshape(10, 24).numpy(), lin.weight.detach().numpy().T)])[("l", "fwd")]
        want = torch.from_numpy(G) + lin.bias.detach()   # bias added in FP32 by PyTorch
        assert_bits_equal(self, Y.reshape(10, 16), want, "bias")
        Y.sum().backward()
        self.assertTrue(torch.equal(lin.bias.grad, torch.full((16,), 10.0)))
        # close to FP32 (MXSF error, not garbage)
        self.assertLess((Y - ref(X)).abs().max().item(), 0.1)

    def test_quantization_axes_1d(self):
        """1-D blocks run along each phase's reduction axis: the layer's
        results are the exact products of operands quantized by `mxsim quant`
        along the documented axes (FP32 accumulation adds ~1e-6 relative), and
        clearly not of operands quantized along the other axis."""
        c = "configs/mxsf_1d.yaml"
        lin, X, G, Y, dX, dW = layer_run(c, T=64, din=64, dout=64, seed=2)
        W, Xn, Gn = lin.weight.detach().numpy(), X.numpy(), G.numpy()

        def q(x, axis):
            return cli_quant(x, "mxsf", "32", axis)
        cases = [  # (result, (A, axis of A's K), (B, axis of B's K)) in numpy arrays as the layer holds them
            ("forward", Y.numpy(), lambda ax: q(Xn, ax[0]) @ q(W, ax[1]).T, (1, 1)),       # X along Din, W along Din
            ("dgrad", dX.numpy(), lambda ax: q(Gn, ax[0]) @ q(W, ax[1]), (1, 0)),          # dY along Dout, W along Dout
            ("wgrad", dW.numpy().T, lambda ax: q(Xn, ax[0]).T @ q(Gn, ax[1]), (0, 0)),     # X along T, dY along T
        ]
        for what, got, prod, axes in cases:
            got = got.astype(np.float64)
            scale = np.abs(got).max()
            right = np.abs(got - prod(axes)).max() / scale
            wrong = np.abs(got - prod((1 - axes[0], 1 - axes[1]))).max() / scale
            self.assertLess(right, 1e-5, "%s: documented axes %s" % (what, axes))
            self.assertGreater(wrong, 1e-3, "%s: the other axes also match" % what)

    def test_quantization_tiles_2d_shared(self):
        """2-D 8x8 tiles: one quantized copy of each operand serves all three
        phases (quantizing W or W^T in tiles gives the same values), and the
        results are the exact products of those copies."""
        c = "configs/mxsf.yaml"
        lin, X, G, Y, dX, dW = layer_run(c, T=64, din=64, dout=64, seed=4)
        W, Xn, Gn = lin.weight.detach().numpy(), X.numpy(), G.numpy()
        qW, qX, qG = (cli_quant(t, "mxsf", "8x8") for t in (W, Xn, Gn))
        np.testing.assert_array_equal(cli_quant(W.T, "mxsf", "8x8"), qW.T)
        for what, got, want in [("forward", Y.numpy(), qX @ qW.T), ("dgrad", dX.numpy(), qG @ qW),
                                ("wgrad", dW.numpy().T, qX.T @ qG)]:
            got = got.astype(np.float64)
            self.assertLess(np.abs(got - want).max() / np.abs(got).max(), 1e-5, what)


class RequantTest(unittest.TestCase):
    def test_requant_output_equals_mxsim_quant_of_cli_dump(self):
        """requant_output=True: each GEMM output re-quantized to format.out as
        the dump does -- equal to `mxsim quant` of the CLI's FP32 dump (2-D
        tiles over (M, N), or 1-D blocks along N)."""
        for c, fmt, block in [("configs/mxsf.yaml", "mxsf", "8x8"), ("configs/mxsf_1d.yaml", "mxsf", "32")]:
            g = torch.Generator().manual_seed(11)
            lin = torch.nn.Linear(40, 24, bias=False)
            mxt.convert(lin, config=cfgpath(c), requant_output=True)
            X = torch.randn(19, 40, generator=g).requires_grad_(True)
            Y = lin(X)
            G = torch.randn(Y.shape, generator=g)
            Y.backward(G)
            W = lin.weight.detach().numpy()
            out = cli_gemms(c, [("r", "fwd", X.detach().numpy(), W.T), ("r", "dgrad", G.numpy(), W),
                                ("r", "wgrad", X.detach().numpy().T, G.numpy())])
            assert_bits_equal(self, Y.detach(), cli_quant(out[("r", "fwd")], fmt, block), "%s requant fwd" % c)
            assert_bits_equal(self, X.grad, cli_quant(out[("r", "dgrad")], fmt, block), "%s requant dgrad" % c)
            assert_bits_equal(self, lin.weight.grad.T, cli_quant(out[("r", "wgrad")], fmt, block),
                              "%s requant wgrad" % c)
            # and it is a change: not the FP32 outputs
            self.assertFalse(np.array_equal(bits(Y), bits(out[("r", "fwd")])))


class ConvMatmulTest(unittest.TestCase):
    def test_conv2d_im2col_equals_cli(self):
        c = "configs/mxsf.yaml"
        g = torch.Generator().manual_seed(7)
        conv = torch.nn.Conv2d(3, 5, 3, stride=2, padding=1, bias=False)
        ref = torch.nn.Conv2d(3, 5, 3, stride=2, padding=1, bias=False)
        ref.load_state_dict(conv.state_dict())
        mxt.convert(conv, config=cfgpath(c))
        X = torch.randn(2, 3, 9, 9, generator=g).requires_grad_(True)
        Y = conv(X)
        self.assertEqual(tuple(Y.shape), (2, 5, 5, 5))
        G = torch.randn(Y.shape, generator=g)
        Y.backward(G)
        # im2col by hand: rows (n, oh, ow), columns (c, kh, kw)
        xp = np.pad(X.detach().numpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = np.stack([xp[n, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].reshape(-1)
                         for n in range(2) for i in range(5) for j in range(5)])
        W2 = conv.weight.detach().numpy().reshape(5, -1)
        G2 = G.numpy().transpose(0, 2, 3, 1).reshape(-1, 5)
        out = cli_gemms(c, [("conv", "fwd", cols, W2.T), ("conv", "wgrad", cols.T, G2), ("conv", "dgrad", G2, W2)])
        assert_bits_equal(self, Y.detach().permute(0, 2, 3, 1).reshape(-1, 5), out[("conv", "fwd")], "conv fwd")
        assert_bits_equal(self, conv.weight.grad.reshape(5, -1).T, out[("conv", "wgrad")], "conv wgrad")
        # dX = col2im(dXcol): compare with the FP32 reference gradient
        Xr = X.detach().clone().requires_grad_(True)
        ref(Xr).backward(G)
        self.assertLess((X.grad - Xr.grad).abs().max().item(), 0.05 * Xr.grad.abs().max().item())

    def test_attention_matmul_equals_cli(self):
        c = "configs/mxsf.yaml"

        class Attn(torch.nn.Module):
            def forward(self, q, k):
                return torch.matmul(q, k.transpose(-2, -1))
        g = torch.Generator().manual_seed(8)
        m = mxt.convert(Attn(), config=cfgpath(c))
        q = torch.randn(2, 12, 16, generator=g).requires_grad_(True)
        k = torch.randn(2, 12, 16, generator=g).requires_grad_(True)
        with mxt.trace_gemms() as rec:
            S = m(q, k)
            dS = torch.randn(S.shape, generator=g)
            S.backward(dS)
        self.assertEqual(sorted(set((r[1], r[2], r[3], r[4]) for r in rec)),
                         [(12, 12, 16, "fwd"), (12, 16, 12, "dgrad"), (16, 12, 12, "wgrad")])
        self.assertEqual(len(rec), 6)
        self.assertIs(torch.matmul, mxt._orig["matmul"])  # unpatched after forward
        qn, kn, dn = q.detach().numpy()[1], k.detach().numpy()[1], dS.numpy()[1]
        out = cli_gemms(c, [("s", "fwd", qn, kn.T), ("s", "dgrad", dn, kn), ("s", "wgrad", qn.T, dn)])
        assert_bits_equal(self, S.detach()[1], out[("s", "fwd")], "scores")
        assert_bits_equal(self, q.grad[1], out[("s", "dgrad")], "dQ = dS . K")
        assert_bits_equal(self, k.grad[1].T, out[("s", "wgrad")], "d(K^T) = Q^T . dS")

    def test_multihead_attention(self):
        """nn.MultiheadAttention: its projections (F.linear) and score/context
        bmm run through the datapath, in training and in eval (no native
        fast path), with the GEMM shapes of docs/TRACES.md."""
        c = cfgpath("configs/mxsf.yaml")
        torch.manual_seed(0)
        mha = torch.nn.MultiheadAttention(16, 2, batch_first=True)
        ref = torch.nn.MultiheadAttention(16, 2, batch_first=True)
        ref.load_state_dict(mha.state_dict())
        mxt.convert(mha, config=c)
        x = torch.randn(3, 5, 16)
        B, S, E, H = 3, 5, 16, 2
        want = [("linear", B * S, 3 * E, E, "fwd"), ("bmm", S, S, E // H, "fwd"), ("bmm", S, E // H, S, "fwd"),
                ("linear", B * S, E, E, "fwd")]
        for train in (True, False):
            mha.train(train)
            ref.train(train)
            with torch.set_grad_enabled(train), mxt.trace_gemms() as rec:
                y, _ = mha(x, x, x, need_weights=False)
            got = []
            for r in rec:  # per-(batch, head) GEMMs of one call collapse to one entry
                e = (r[0].split(".")[-1],) + tuple(r[1:])
                if not got or got[-1] != e:
                    got.append(e)
            self.assertEqual(got, want, "train=%s" % train)
            self.assertEqual(sum(1 for r in rec if r[0].endswith("bmm")), 2 * B * H)
            yr, _ = ref(x, x, x, need_weights=False)
            err = (y - yr).abs().max().item()
            self.assertTrue(0 < err < 0.05, "train=%s: |mx - fp32| = %g" % (train, err))
        self.assertIs(torch.nn.functional.linear, mxt._orig["linear"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
