"""Training the tiny language model for a few steps on the synthetic facts."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from knowprob.model import TinyLM, WordTokenizer
from knowprob.prompts import render_query, render_statement


def training_corpus(kb: pd.DataFrame, templates: Mapping[str, str], seed: int = 0) -> list[str]:
    """The facts themselves, plus short "context then query" sequences in which the
    answer sometimes repeats the context and sometimes the fact: a crude stand-in
    for the mixture of behaviours a pretrained model shows under knowledge conflict."""
    rng = np.random.default_rng(seed)
    lines = []
    relations = kb["relation"].to_numpy()
    for row in kb.itertuples(index=False):
        tpl = templates[row.relation]
        fact = render_statement(tpl, row.subject, row.object)
        lines.append(fact)
        # the object of a random fact of the same relation (possibly the same object)
        other = kb["object"].iloc[int(rng.choice(np.flatnonzero(relations == row.relation)))]
        answer = other if rng.random() < 0.5 else row.object
        lines.append(render_statement(tpl, row.subject, other) + " " + render_query(tpl, row.subject)
                     + " " + answer + ".")
    return lines


def train_tiny_lm(kb: pd.DataFrame, templates: Mapping[str, str], steps: int = 60,
                  seed: int = 0, d_model: int = 32, n_layers: int = 2,
                  lr: float = 3e-3) -> tuple[TinyLM, WordTokenizer, list[float]]:
    """Next-token training on the corpus above (full batch, Adam). Returns the model
    in eval mode, its tokenizer and the loss curve."""
    torch.manual_seed(seed)
    corpus = training_corpus(kb, templates, seed)
    tok = WordTokenizer(corpus)
    seqs = [tok.encode(line) for line in corpus]
    width = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), width, dtype=torch.long)
    mask = torch.zeros(len(seqs), width, dtype=torch.bool)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = True
    model = TinyLM(len(tok), d_model=d_model, n_layers=n_layers, max_len=max(128, width))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    model.train()
    for _ in range(steps):
        logits = model(ids[:, :-1])
        target = ids[:, 1:].masked_fill(~mask[:, 1:], -100)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                               ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return model, tok, losses
