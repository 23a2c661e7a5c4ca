"""`mxsim trace --from-torch` (sim/python/mxsim/trace.py via sim/cmd_trace.c):
the GEMMs of a small BERT-like model (tests/python/tinybert.py), derived by
hand below from its dimensions, and torchvision's ResNet-50 against the MAC
counts per phase of traces/resnet50_train.csv (generated independently by
traces/gen_traces.py)."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BIN = os.environ.get("MXSIM_BIN", os.path.join(ROOT, "build", "mxsim"))


def run_trace(args, extra_path=HERE):
    env = dict(os.environ)
    env["PYTHONPATH"] = extra_path + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([BIN, "trace"] + args, capture_output=True, text=True, env=env)


def rows_of(text):
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    r = list(csv.reader(lines))
    assert r[0] == ["name", "M", "N", "K", "phase", "count"], r[0]
    return [(n, int(M), int(N), int(K), p, int(c)) for n, M, N, K, p, c in r[1:]]


def macs_by_phase(rows):
    d = {}
    for _, M, N, K, p, c in rows:
        d[p] = d.get(p, 0) + M * N * K * c
    return d


class TraceTest(unittest.TestCase):
    def expected_bert(self, B, S, train):
        D, H, F, V, L = 32, 4, 64, 50, 2    # tinybert.py's dimensions, written out
        T, dh = B * S, D // H
        fwd = []
        for i in range(L):
            p = "layers.%d." % i
            fwd += [(p + "attn.q", T, D, D, 1), (p + "attn.k", T, D, D, 1), (p + "attn.v", T, D, D, 1),
                    (p + "attn.matmul0", S, S, dh, B * H),     # scores Q.K^T per (batch, head)
                    (p + "attn.matmul1", S, dh, S, B * H),     # context P.V
                    (p + "attn.o", T, D, D, 1),
                    (p + "ffn.up", T, F, D, 1), (p + "ffn.down", T, D, F, 1)]
        fwd.append(("head", T, V, D, 1))
        rows = [(n, M, N, K, "fwd" if train else "inf", c) for n, M, N, K, c in fwd]
        if train:
            for n, M, N, K, c in reversed(fwd):
                rows.append((n, M, K, N, "dgrad", c))   # every input needs a gradient (embeddings train)
                rows.append((n, K, N, M, "wgrad", c))
        return rows

    def test_bert_like_hand_derived(self):
        for B, S, train in [(2, 8, True), (3, 5, False)]:
            args = ["--from-torch", "tinybert:factory", "--batch", str(B), "--seq", str(S)] + (["--train"] if train else [])
            r = run_trace(args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(rows_of(r.stdout), self.expected_bert(B, S, train))

    def test_multihead_attention(self):
        B, S = 2, 8
        for dev in ("meta", "cpu"):  # on cpu an eval-mode MHA could take the native fast path
            r = run_trace(["--from-torch", "tinybert:mha_factory", "--batch", str(B), "--seq", str(S), "--device", dev])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(rows_of(r.stdout), self.expected_mha(B, S), dev)

    def expected_mha(self, B, S):
        D, H, V = 32, 4, 50
        T, dh = B * S, D // H
        return [
            ("attn.linear0", T, 3 * D, D, "inf", 1),          # packed q/k/v in-projection (F.linear)
            ("attn.matmul0", S, S, dh, "inf", B * H),         # scores (bmm)
            ("attn.matmul1", S, dh, S, "inf", B * H),         # context (bmm)
            ("attn.linear1", T, D, D, "inf", 1),              # out_proj (F.linear, not its forward)
            ("head", T, V, D, "inf", 1)]

    def test_trace_runs_in_mxsim(self):
        with tempfile.TemporaryDirectory() as d:
            t = os.path.join(d, "bert.csv")
            r = run_trace(["--from-torch", "tinybert:factory", "--train", "-o", t])
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([BIN, "run", "-q", "--no-progress", "-c", os.path.join(ROOT, "configs/mxsf.yaml"),
                                "-t", t, "-o", os.path.join(d, "o")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_bad_factory(self):
        r = run_trace(["--from-torch", "no_such_module:f"])
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^mxsim trace: --from-torch: cannot import module 'no_such_module'")
        r = run_trace(["--from-torch", "tinybert:nothing"])
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^mxsim trace: --from-torch: module 'tinybert' has no callable 'nothing'")

    def test_resnet50_macs_per_phase(self):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            self.skipTest("torchvision not installed (make deps installs python3-torchvision)")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "rn50.py"), "w") as f:
                f.write("import torch, torchvision\n"
                        "def factory(batch=32):\n"
                        "    return torchvision.models.resnet50(), torch.randn(batch, 3, 224, 224)\n")
            r = run_trace(["--from-torch", "rn50:factory", "--batch", "32", "--train"], extra_path=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = rows_of(r.stdout)
        with open(os.path.join(ROOT, "traces", "resnet50_train.csv")) as f:
            want = rows_of(f.read())
        self.assertEqual(macs_by_phase(got), macs_by_phase(want))
        self.assertEqual(len(got), len(want))
        # the same GEMM shapes, row for row, whatever the names
        self.assertEqual(sorted(r[1:] for r in got), sorted(r[1:] for r in want))


if __name__ == "__main__":
    unittest.main(verbosity=2)
