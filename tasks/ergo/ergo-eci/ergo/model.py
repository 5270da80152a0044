"""A tiny ERGO-style model: a text encoder, then a Transformer over the event-pair graph.

ERGO turns document-level ECI into node classification on a *relational graph* whose nodes are
candidate event pairs; two pair nodes are linked when they share an event. A Transformer layer whose
attention is restricted to linked nodes propagates causal evidence between pairs (e.g. transitivity),
and a classifier outputs one causal logit per pair.
"""
from __future__ import annotations

import torch
from torch import nn

from .data import PAD_ID


class ERGOModel(nn.Module):
    def __init__(self, vocab: int = 60, dim: int = 32, heads: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD_ID)
        self.pos = nn.Embedding(128, dim)
        self.text_encoder = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True)
        self.pair_proj = nn.Linear(3 * dim, dim)
        self.graph_layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True)
        self.classifier = nn.Linear(dim, 1)

    def forward(self, tokens, spans, pairs, pair_mask):
        """Return causal logits ``(B, P)`` for the candidate pairs (padding pairs included)."""
        B, L = tokens.shape
        x = self.embed(tokens) + self.pos(torch.arange(L))[None]
        x = self.text_encoder(x, src_key_padding_mask=tokens == PAD_ID)
        # event representation: mean over the span's tokens
        idx = torch.arange(L)[None, None, :]
        in_span = (idx >= spans[..., :1]) & (idx < spans[..., 1:])                  # (B, E, L)
        events = (in_span.unsqueeze(-1) * x.unsqueeze(1)).sum(2) / in_span.sum(-1, keepdim=True).clamp_min(1)
        gather = lambda k: torch.gather(events, 1, pairs[..., k:k + 1].expand(-1, -1, events.shape[-1]))
        a, b = gather(0), gather(1)
        nodes = self.pair_proj(torch.cat([a, b, a * b], dim=-1))                       # (B, P, dim)
        # relational graph: pair nodes sharing an event attend to each other
        share = (pairs[:, :, None, :, None] == pairs[:, None, :, None, :]).flatten(-2).any(-1)
        share = share & pair_mask[:, None, :] & pair_mask[:, :, None]
        share = share | torch.eye(pairs.shape[1], dtype=torch.bool)[None]
        heads = self.graph_layer.self_attn.num_heads
        attn_mask = (~share).repeat_interleave(heads, dim=0)
        nodes = self.graph_layer(nodes, src_mask=attn_mask)
        return self.classifier(nodes).squeeze(-1)
