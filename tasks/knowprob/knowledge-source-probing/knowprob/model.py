"""A tiny decoder-only word-level language model whose activations we probe.

The model records, for every layer, the output of the attention sub-layer
("mhsa"), of the feed-forward sub-layer ("mlp") and the residual stream after the
block ("hidden"), so that probes can be trained on any of them.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from knowprob.text import detokenize, lm_tokens

MODULES = ("mhsa", "mlp", "hidden")


class WordTokenizer:
    """Closed-vocabulary tokenizer built from a corpus (words and punctuation)."""

    def __init__(self, corpus: list[str]):
        vocab = sorted({t for line in corpus for t in lm_tokens(line)})
        self.itos = ["<unk>", "<bos>"] + vocab
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.bos_id = 1

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str, bos: bool = True) -> list[int]:
        ids = [self.stoi.get(t, 0) for t in lm_tokens(text)]
        return [self.bos_id] + ids if bos else ids

    def decode(self, ids: list[int]) -> str:
        return detokenize([self.itos[i] for i in ids if i > 1])


class Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, mask: torch.Tensor):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        m = self.mlp(self.ln2(x))
        x = x + m
        return x, a, m


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int = 32, n_layers: int = 2, n_heads: int = 2,
                 max_len: int = 128):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    def forward(self, ids: torch.Tensor, return_activations: bool = False):
        """ids: [batch, seq]. Returns logits [batch, seq, vocab] and, optionally, a
        dict ``{(module, layer): tensor [batch, seq, d_model]}``."""
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=ids.device), diagonal=1)
        acts = {}
        for layer, block in enumerate(self.blocks):
            x, a, m = block(x, mask)
            if return_activations:
                acts[("mhsa", layer)] = a
                acts[("mlp", layer)] = m
                acts[("hidden", layer)] = x
        logits = self.head(self.ln_f(x))
        return (logits, acts) if return_activations else logits


@torch.no_grad()
def greedy_complete(model: TinyLM, tok: WordTokenizer, prompt: str, max_new_tokens: int = 4,
                    stop: str = ".") -> str:
    """Greedy continuation of ``prompt`` up to ``stop`` (excluded) or ``max_new_tokens``."""
    ids = tok.encode(prompt)
    out: list[int] = []
    stop_id = tok.stoi.get(stop, -1)
    for _ in range(max_new_tokens):
        logits = model(torch.tensor([ids + out]))
        nxt = int(logits[0, -1].argmax())
        if nxt == stop_id:
            break
        out.append(nxt)
    return tok.decode(out)


@torch.no_grad()
def last_token_activations(model: TinyLM, tok: WordTokenizer, prompts: list[str]) -> dict:
    """Activations at the last prompt token for every (module, layer):
    ``{(module, layer): float64 tensor [n_prompts, d_model]}``."""
    feats: dict = {}
    for p in prompts:
        _, acts = model(torch.tensor([tok.encode(p)]), return_activations=True)
        for key, a in acts.items():
            feats.setdefault(key, []).append(a[0, -1].double())
    return {k: torch.stack(v) for k, v in feats.items()}
