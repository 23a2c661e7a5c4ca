#!/usr/bin/env python3
"""Generate the GEMM traces under traces/ (format: docs/TRACES.md).

Pure Python 3, standard library only.  The build never runs this script; the
CSV files it writes are committed, and re-running it must reproduce them byte
for byte:

    python3 traces/gen_traces.py            # rewrite traces/*.csv, print totals
    python3 traces/gen_traces.py --check    # only compare with the files on disk

Every row is C[M x N] = A[M x K] * B[K x N], repeated `count` times.
Training conventions (SPEC section 4), for a layer with T rows of activations
("tokens": tokens, or pixels for a convolution), in features Din and out Dout:

    fwd    Y  = X  * W      M = T    K = Din  N = Dout
    dgrad  dX = dY * W^T    M = T    K = Dout N = Din
    wgrad  dW = X^T * dY    M = Din  K = T    N = Dout

A convolution is lowered with im2col: T = batch*H_out*W_out,
Din = C_in*kh*kw, Dout = C_out.  Its dgrad is the GEMM dXcol = dY * W^T
(followed by col2im, which adds and does no multiplies), so all three phases
of a layer have the same MAC count.

Attention S = Q * K^T and O = P * V are GEMMs per (batch, head), so
count = batch*heads (times layers where rows are merged).  For their backward
pass the second operand plays the weight: for O = P * V, dgrad is
dP = dO * V^T and wgrad is dV = P^T * dO; for S = Q * K^T (B = K^T, d_head x
keys), dgrad is dQ = dS * K and wgrad is d(K^T) = Q^T * dS.  The phase thus
tells the accelerator which axis each operand is reduced along.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Trace:
    def __init__(self, filename, title):
        self.filename = filename
        self.lines = ["# " + title]
        self.rows = []  # (name, M, N, K, phase, count)

    def comment(self, text=""):
        for line in text.splitlines() or [""]:
            self.lines.append(("# " + line).rstrip())

    def header(self, with_formats=False):
        self.with_formats = with_formats
        self.lines.append("name,M,N,K,phase,count" + (",a_format,b_format" if with_formats else ""))

    def gemm(self, name, M, N, K, phase, count=1, a_format="", b_format=""):
        assert phase in ("fwd", "dgrad", "wgrad", "inf"), phase
        assert all(isinstance(v, int) and v > 0 for v in (M, N, K, count)), name
        assert len(name) < 64 and "," not in name, name
        row = "%s,%d,%d,%d,%s,%d" % (name, M, N, K, phase, count)
        if self.with_formats:
            row += ",%s,%s" % (a_format, b_format)
        else:
            assert not a_format and not b_format
        self.lines.append(row)
        self.rows.append((name, M, N, K, phase, count))

    # A linear layer (or im2col-lowered convolution) in each phase.
    def linear(self, name, T, Din, Dout, phase, count=1):
        if phase in ("fwd", "inf"):
            self.gemm(name, T, Dout, Din, phase, count)
        elif phase == "dgrad":
            self.gemm(name, T, Din, Dout, phase, count)
        elif phase == "wgrad":
            self.gemm(name, Din, Dout, T, phase, count)
        else:
            raise ValueError(phase)

    def backward_comment(self, name, T, Din, Dout, count=1, dgrad=True):
        """One comment line that derives a layer's dgrad and wgrad rows."""
        c = " (x%d)" % count if count != 1 else ""
        if name.endswith("attn.score"):   # T = queries, Din = d_head, Dout = keys
            self.comment("%s%s: dgrad dQ = dS*K M=queries=%d K=keys=%d N=d_head=%d; "
                         "wgrad d(K^T) = Q^T*dS M=d_head=%d K=queries=%d N=keys=%d"
                         % (name, c, T, Dout, Din, Din, T, Dout))
            return
        if name.endswith("attn.context"):  # T = queries, Din = keys, Dout = d_head
            self.comment("%s%s: dgrad dP = dO*V^T M=queries=%d K=d_head=%d N=keys=%d; "
                         "wgrad dV = P^T*dO M=keys=%d K=queries=%d N=d_head=%d"
                         % (name, c, T, Dout, Din, Din, T, Dout))
            return
        d = "dgrad dX = dY*W^T M=T=%d K=Dout=%d N=Din=%d; " % (T, Dout, Din) if dgrad else "no dgrad; "
        self.comment("%s%s: %swgrad dW = X^T*dY M=Din=%d K=T=%d N=Dout=%d" % (name, c, d, Din, T, Dout))

    def macs(self, phases=None, prefix=None):
        return sum(M * N * K * c for (n, M, N, K, p, c) in self.rows
                   if (phases is None or p in phases) and (prefix is None or n.startswith(prefix)))

    def text(self):
        return "\n".join(self.lines) + "\n"


def g(x):
    return "%.4g G" % (x / 1e9)


# --------------------------------------------------------------------------
# ResNet-50
# --------------------------------------------------------------------------

def resnet50_layers(batch, image):
    """Convolutions of torchvision ResNet-50 (v1.5: the stride of a
    bottleneck sits on its 3x3 conv) plus the FC layer, in forward order.
    Returns (name, T, Din, Dout, description) tuples."""
    layers = []

    def conv(name, cin, cout, k, stride, pad, hw_in):
        hw_out = (hw_in + 2 * pad - k) // stride + 1
        T = batch * hw_out * hw_out
        desc = "conv %dx%d/%d %d->%d, %dx%d -> %dx%d: M=%d*%d*%d K=%d*%d*%d N=%d" % (
            k, k, stride, cin, cout, hw_in, hw_in, hw_out, hw_out,
            batch, hw_out, hw_out, cin, k, k, cout)
        layers.append((name, T, cin * k * k, cout, desc))
        return hw_out

    hw = conv("conv1", 3, 64, 7, 2, 3, image)          # 224 -> 112
    hw = (hw + 2 * 1 - 3) // 2 + 1                      # maxpool 3x3/2 pad 1: 112 -> 56
    cin = 64
    stages = [("layer1", 64, 3, 1), ("layer2", 128, 4, 2),
              ("layer3", 256, 6, 2), ("layer4", 512, 3, 2)]
    for sname, width, blocks, stride in stages:
        for b in range(blocks):
            s = stride if b == 0 else 1
            p = "%s.%d." % (sname, b)
            hw_in = hw
            conv(p + "conv1", cin, width, 1, 1, 0, hw_in)
            hw_out = conv(p + "conv2", width, width, 3, s, 1, hw_in)
            conv(p + "conv3", width, width * 4, 1, 1, 0, hw_out)
            if b == 0:  # projection shortcut (1x1, stride s)
                conv(p + "downsample", cin, width * 4, 1, s, 0, hw_in)
            cin = width * 4
            hw = hw_out
    # global average pool (7x7 -> 1x1, adds only), then FC 2048 -> 1000.
    layers.append(("fc", batch, 2048, 1000, "fc 2048->1000 after global avg pool: M=%d K=2048 N=1000" % batch))
    return layers


def gen_resnet50():
    batch, image = 32, 224
    t = Trace("resnet50_train.csv", "ResNet-50 training step, batch 32, 224x224 RGB, 1000 classes.")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Model: torchvision ResNet-50 (v1.5, stride on the 3x3 conv of each bottleneck;
projection 1x1 conv on the first block of every stage).  53 convolutions + FC.
Convolutions lowered with im2col: M = batch*H_out*W_out, K = C_in*kh*kw,
N = C_out.  Backward, for each layer in reverse order:
  dgrad dXcol = dY * W^T   M = batch*H_out*W_out, K = C_out, N = C_in*kh*kw
        (col2im then adds the columns back into dX; no multiplies)
  wgrad dW    = Xcol^T * dY M = C_in*kh*kw, K = batch*H_out*W_out, N = C_out
conv1's dgrad is omitted: the gradient of the input image is not needed.
Not GEMMs, so not listed: batch norm, ReLU, max/avg pool, residual adds, loss.
Published check: ~4.1 GMACs forward per image (torchvision: 4.09 GFLOPS,
counted as multiply-adds); this trace has @PER_IMAGE@ per image forward.""")
    layers = resnet50_layers(batch, image)
    t.header()
    t.comment("---- forward ----")
    for name, T, Din, Dout, desc in layers:
        t.comment(name + ": " + desc)
        t.linear(name, T, Din, Dout, "fwd")
    t.comment("---- backward (reverse layer order; dgrad then wgrad) ----")
    for name, T, Din, Dout, desc in reversed(layers):
        t.backward_comment(name, T, Din, Dout, dgrad=(name != "conv1"))
        if name != "conv1":
            t.linear(name, T, Din, Dout, "dgrad")
        t.linear(name, T, Din, Dout, "wgrad")
    per_image = t.macs(("fwd",)) / batch
    t.lines = [l.replace("@PER_IMAGE@", g(per_image)) for l in t.lines]
    return t


# --------------------------------------------------------------------------
# Transformers
# --------------------------------------------------------------------------

def transformer_layer_rows(T, d, heads, seq_q, seq_k, batch, ffn, layers, qkv_fused, prefix):
    """Rows of `layers` identical transformer layers in one phase, merged
    (count = layers * ...).  Forward order; the caller reverses for backward."""
    dh = d // heads
    bh = batch * heads * layers
    rows = []  # (kind, name, T, Din, Dout, count, description)
    if qkv_fused:
        rows.append(("lin", prefix + "qkv", T, d, 3 * d, layers,
                     "fused Q,K,V projection %d->3*%d, M = tokens = %d" % (d, d, T)))
    else:
        rows.append(("lin", prefix + "qkv", T, d, d, 3 * layers,
                     "Q, K and V projections %d->%d each (count = 3 * %d layers), M = tokens = %d" % (d, d, layers, T)))
    rows.append(("attn", prefix + "attn.score", seq_q, dh, seq_k, bh,
                 "S = Q*K^T per head: M=%d queries, K=%d d_head, N=%d keys, count = %d layers*%d batch*%d heads"
                 % (seq_q, dh, seq_k, layers, batch, heads)))
    rows.append(("attn", prefix + "attn.context", seq_q, seq_k, dh, bh,
                 "O = P*V per head: M=%d queries, K=%d keys, N=%d d_head, count = %d*%d*%d"
                 % (seq_q, seq_k, dh, layers, batch, heads)))
    rows.append(("lin", prefix + "attn.out", T, d, d, layers, "attention output projection %d->%d" % (d, d)))
    rows.append(("lin", prefix + "ffn.up", T, d, ffn, layers, "FFN up %d->%d" % (d, ffn)))
    rows.append(("lin", prefix + "ffn.down", T, ffn, d, layers, "FFN down %d->%d" % (ffn, d)))
    return rows


def emit_rows(t, rows, phase, comments=True):
    for kind, name, a, b, c, count, desc in rows:
        if comments:
            t.comment(name + ": " + desc)
        # An attention GEMM (M, K, N) = (queries, d_head, keys) etc. is a
        # linear layer with T = M, Din = K, Dout = N: its second operand plays
        # the weight in dgrad/wgrad (module docstring).
        t.linear(name, a, b, c, phase, count)


def attention_note(t):
    t.comment("""Attention backward (count as forward): for S = Q*K^T the weight-like
operand is K^T (d_head x keys): dgrad dQ = dS*K (M=queries, K=keys,
N=d_head), wgrad d(K^T) = Q^T*dS (M=d_head, K=queries, N=keys); for O = P*V:
dgrad dP = dO*V^T (M=queries, K=d_head, N=keys), wgrad dV = P^T*dO
(M=keys, K=queries, N=d_head).  Softmax, masking, layer norm, GELU,
residuals, dropout and embedding lookups are not GEMMs and are not listed.""")


def gen_bert():
    L, d, H, ffn, seq, batch, vocab = 12, 768, 12, 3072, 128, 32, 30522
    T = batch * seq
    t = Trace("bert_base_train.csv", "BERT-base pre-training step (MLM + NSP), batch 32, sequence 128.")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Model: BERT-base, 12 layers, d=768, 12 heads (d_head 64), FFN 3072, vocab 30522.
Tokens T = batch*seq = 32*128 = 4096.  The 12 layers have identical shapes, so
each row stands for one GEMM shape in all layers: count = 12 layers (x3 for the
separate Q, K, V projections of the reference implementation; x batch*heads =
x384 for the attention GEMMs).  Forward rows in layer order, then backward
rows (dgrad, wgrad) in reverse order.
Heads (as BertForPreTraining): MLM transform 768->768 and decoder 768->30522
(tied to the word embeddings) over all 4096 positions; pooler 768->768 and
NSP classifier 768->2 on the 32 [CLS] tokens.
Linear layers: dgrad and wgrad have the same MACs as fwd.""")
    attention_note(t)
    enc = transformer_layer_rows(T, d, H, seq, seq, batch, ffn, L, qkv_fused=False, prefix="enc.")
    heads = [("lin", "mlm.transform", T, d, d, 1, "MLM transform dense 768->768 on all %d tokens" % T),
             ("lin", "mlm.decoder", T, d, vocab, 1, "MLM decoder 768->%d (tied word embeddings)" % vocab),
             ("lin", "pooler", batch, d, d, 1, "pooler dense 768->768 on the %d [CLS] tokens" % batch),
             ("lin", "nsp", batch, d, 2, 1, "NSP classifier 768->2")]
    t.header()
    t.comment("---- forward ----")
    emit_rows(t, enc + heads, "fwd")
    t.comment("---- backward (reverse order; dgrad then wgrad of each) ----")
    for row in reversed(enc + heads):
        t.backward_comment(*row[1:6])
        emit_rows(t, [row], "dgrad", comments=False)
        emit_rows(t, [row], "wgrad", comments=False)
    return t


def gen_gpt2():
    L, d, H, ffn, seq, batch, vocab = 12, 768, 12, 3072, 1024, 8, 50257
    T = batch * seq
    t = Trace("gpt2_small_train.csv", "GPT-2 small training step, batch 8, sequence 1024.")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Model: GPT-2 small (124M), 12 layers, d=768, 12 heads (d_head 64), FFN 3072,
context 1024, vocab 50257.  Tokens T = 8*1024 = 8192.  Fused QKV projection
(c_attn 768->2304) as in the reference implementation.  Rows merged over the
12 identical layers (count = 12; attention: 12*8*12 = 1152).
The causal mask is applied to the full 1024x1024 score GEMM (dense; no
skipping of the masked upper triangle).
LM head: 768->50257 over all 8192 positions, tied to the token embedding.""")
    attention_note(t)
    blocks = transformer_layer_rows(T, d, H, seq, seq, batch, ffn, L, qkv_fused=True, prefix="h.")
    head = [("lin", "lm_head", T, d, vocab, 1, "LM head 768->%d on all %d tokens" % (vocab, T))]
    t.header()
    t.comment("---- forward ----")
    emit_rows(t, blocks + head, "fwd")
    t.comment("---- backward (reverse order; dgrad then wgrad of each) ----")
    for row in reversed(blocks + head):
        t.backward_comment(*row[1:6])
        emit_rows(t, [row], "dgrad", comments=False)
        emit_rows(t, [row], "wgrad", comments=False)
    return t


def gen_vit():
    L, d, H, ffn, batch, image, patch, classes = 12, 768, 12, 3072, 32, 224, 16, 1000
    patches = (image // patch) ** 2          # 14*14 = 196
    seq = patches + 1                        # + [CLS] = 197
    T = batch * seq
    t = Trace("vit_b16_infer.csv", "ViT-B/16 inference, batch 32, 224x224 RGB, 1000 classes.")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Model: ViT-B/16, 12 layers, d=768, 12 heads (d_head 64), MLP 3072.
Patch embedding: conv 16x16 stride 16, 3->768, lowered with im2col:
M = 32*14*14 = 6272 patches, K = 3*16*16 = 768, N = 768.
Tokens per image: 196 patches + [CLS] = 197; T = 32*197 = 6304.
Fused QKV (768->2304).  Rows merged over the 12 identical layers (count = 12;
attention: 12*32*12 = 4608).  Classifier 768->1000 on the 32 [CLS] tokens.
Published check: ViT-B/16 at 224: 17.6 GFLOPs per image (DeiT-B / timm,
counted as multiply-adds); this trace has %s per image.""" % "@PER_IMAGE@")
    t.header()
    t.gemm("patch_embed", batch * patches, d, 3 * patch * patch, "inf", 1)
    blocks = transformer_layer_rows(T, d, H, seq, seq, batch, ffn, L, qkv_fused=True, prefix="blocks.")
    emit_rows(t, blocks, "inf")
    t.comment("head: classifier 768->1000 on the [CLS] token of each image")
    t.linear("head", batch, d, classes, "inf")
    per_image = t.macs() / batch
    t.lines = [l.replace("@PER_IMAGE@", g(per_image)) for l in t.lines]
    return t


def gen_llama():
    d, H, ffn, prefill, cache = 4096, 32, 11008, 2048, 2048
    dh = d // H
    t = Trace("llama_decoder_infer.csv",
              "One Llama-2-7B-style decoder layer at inference: prefill of 2048 tokens, then one decode step.")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Layer: d=4096, 32 heads (d_head 128, no grouped-query attention), SwiGLU FFN
with hidden 11008 (gate, up: 4096->11008; down: 11008->4096), batch 1.
Separate q/k/v/o projections 4096->4096 as in the reference implementation.
Prefill: T = 2048 tokens; S = Q*K^T per head M=2048 K=128 N=2048 (causal mask
applied to the dense GEMM), O = P*V M=2048 K=2048 N=128; count = 32 heads.
Decode: one new token (M=1) after the 2048-token prefill; its keys/values are
appended to the 2048-token KV cache, so it attends over 2048+1 = 2049 keys:
S = q*K^T M=1 K=128 N=2049, O = p*V M=1 K=2049 N=128; count = 32 heads.
RMSNorm, RoPE, SiLU*up, softmax and residuals are not GEMMs.""")
    t.header()
    for stage, T, keys in (("prefill", prefill, prefill), ("decode", 1, cache + 1)):
        t.comment("---- %s: %d token(s), %d keys ----" % (stage, T, keys))
        p = stage + "."
        for proj in ("q_proj", "k_proj", "v_proj"):
            t.linear(p + proj, T, d, d, "inf")
        t.gemm(p + "attn.score", T, keys, dh, "inf", H)
        t.gemm(p + "attn.context", T, dh, keys, "inf", H)
        t.linear(p + "o_proj", T, d, d, "inf")
        t.linear(p + "gate_proj", T, d, ffn, "inf")
        t.linear(p + "up_proj", T, d, ffn, "inf")
        t.linear(p + "down_proj", T, ffn, d, "inf")
    return t


def gen_tiny():
    t = Trace("tiny_train.csv", "Tiny training trace for fast tests (not a real network).")
    t.comment("""Generated by traces/gen_traces.py; do not edit by hand.

Two linear layers, X[5x33] -> 7 -> 16 features over T = 5 tokens, in all three
phases, with ragged sizes (5, 7, 33) that fill no array or MX block exactly,
plus one tiny attention-like GEMM repeated per head (count 3) and one
inference row.  a_format/b_format overrides: fc1 in fp8_e4m3 weights/activations,
its backward with fp8_e5m2 gradients (the usual FP8 training split); empty =
the configuration's format.""")
    t.header(with_formats=True)
    t.gemm("fc1", 5, 7, 33, "fwd", 1, "fp8_e4m3", "fp8_e4m3")        # Y1 = X*W1: M=T K=33 N=7
    t.gemm("fc2", 5, 16, 7, "fwd", 1)                                # Y2 = Y1*W2: M=T K=7 N=16
    t.gemm("score", 4, 4, 8, "fwd", 3)                               # per-head 4x8 * 8x4, 3 heads
    t.gemm("fc2", 5, 7, 16, "dgrad", 1)                              # dY1 = dY2*W2^T: M=T K=16 N=7
    t.gemm("fc2", 7, 16, 5, "wgrad", 1)                              # dW2 = Y1^T*dY2: M=7 K=T N=16
    t.gemm("fc1", 5, 33, 7, "dgrad", 1, "fp8_e5m2", "fp8_e4m3")      # dX = dY1*W1^T: M=T K=7 N=33
    t.gemm("fc1", 33, 7, 5, "wgrad", 1, "fp8_e4m3", "fp8_e5m2")      # dW1 = X^T*dY1: M=33 K=T N=7
    t.gemm("probe", 1, 1, 1, "inf", 1)                               # smallest possible GEMM
    return t


def main(argv):
    check = "--check" in argv
    traces = [gen_resnet50(), gen_bert(), gen_gpt2(), gen_vit(), gen_llama(), gen_tiny()]
    stale = 0
    for t in traces:
        path = os.path.join(HERE, t.filename)
        text = t.text()
        if check:
            with open(path) as f:
                if f.read() != text:
                    print("STALE %s" % t.filename)
                    stale += 1
        else:
            with open(path, "w", newline="\n") as f:
                f.write(text)
        by = {p: t.macs((p,)) for p in ("fwd", "dgrad", "wgrad", "inf")}
        print("%-26s rows %4d  total %d MACs (%s)  fwd %d  dgrad %d  wgrad %d  inf %d" % (
            t.filename, len(t.rows), t.macs(), g(t.macs()), by["fwd"], by["dgrad"], by["wgrad"], by["inf"]))
    # Cross-checks against published figures (see docs/TRACES.md).
    r = traces[0]
    print("resnet50: forward %s MACs per image (published ~4.1 G)" % g(r.macs(("fwd",)) / 32))
    v = traces[3]
    print("vit_b16: %s MACs per image (published 17.6 G)" % g(v.macs() / 32))
    for t, T, params_name in ((traces[1], 32 * 128, "BERT-base"), (traces[2], 8 * 1024, "GPT-2 small")):
        lin = sum(M * N * K * c for (n, M, N, K, p, c) in t.rows if p == "fwd" and not n.endswith(("attn.score", "attn.context")))
        print("%s: forward linear MACs / tokens = %.2f M weights" % (params_name, lin / T / 1e6))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
