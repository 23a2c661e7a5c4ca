"""A small BERT-like encoder for tests/python/test_trace.py (traced with
`mxsim trace --from-torch tinybert:factory`)."""
import torch
import torch.nn as nn

VOCAB, D, HEADS, FFN, LAYERS = 50, 32, 4, 64, 2


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))

    def forward(self, x):
        B, S, _ = x.shape
        dh = D // HEADS

        def split(t):
            return t.reshape(B, S, HEADS, dh).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        p = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / dh ** 0.5, dim=-1)   # scores
        ctx = torch.matmul(p, v)                                                       # context
        return self.o(ctx.transpose(1, 2).reshape(B, S, D))


class Ffn(nn.Module):
    def __init__(self):
        super().__init__()
        self.up, self.down = nn.Linear(D, FFN), nn.Linear(FFN, D)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn, self.ffn = Attn(), Ffn()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)

    def forward(self, x):
        x = self.n1(x + self.attn(x))
        return self.n2(x + self.ffn(x))


class TinyBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        x = self.emb(ids)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def factory(batch=2, seq=8):
    torch.manual_seed(0)
    return TinyBert(), torch.randint(0, VOCAB, (batch, seq))


class MhaModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        x = self.emb(ids)
        return self.head(self.attn(x, x, x, need_weights=False)[0])


def mha_factory(batch=2, seq=8):
    torch.manual_seed(0)
    return MhaModel().eval(), torch.randint(0, VOCAB, (batch, seq))   # eval: the fast path must not hide GEMMs
