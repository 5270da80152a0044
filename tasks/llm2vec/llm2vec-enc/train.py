"""LLM2Vec on tiny random data: a decoder LM pre-trained a few steps with next-token prediction, then converted
(bidirectional attention), adapted with masked next token prediction, and trained with unsupervised SimCSE.

    python train.py
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from llm2vec.config import MNTPConfig, ModelConfig, SimCSEConfig
from llm2vec.data import WORDS, random_sentences
from llm2vec.encoder import encode, mntp_step, simcse_step
from llm2vec.model import DecoderLM
from llm2vec.tokenizer import Tokenizer


def clm_step(model: DecoderLM, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Ordinary causal next-token prediction (the decoder's pre-training)."""
    logits = model.logits(model(ids, mask, bidirectional=False))
    target = ids[:, 1:].masked_fill(mask[:, 1:] == 0, -100)
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=-100)


def train(seed: int = 0, clm_steps: int = 10, mntp: MNTPConfig | None = None, simcse: SimCSEConfig | None = None,
          dtype: torch.dtype = torch.float32) -> dict:
    mntp = mntp or MNTPConfig()
    simcse = simcse or SimCSEConfig()
    g = torch.Generator().manual_seed(seed)
    tok = Tokenizer(WORDS)
    torch.manual_seed(seed)
    model = DecoderLM(ModelConfig(vocab_size=tok.vocab_size)).to(dtype)
    history = {"clm": [], "mntp": [], "simcse": []}

    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(clm_steps):
        ids, mask = tok.batch(random_sentences(8, g))
        loss = clm_step(model, ids, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history["clm"].append(loss.item())

    # stage 2: masked next token prediction with bidirectional attention
    opt = torch.optim.AdamW(model.parameters(), lr=mntp.lr)
    for _ in range(mntp.steps):
        ids, mask = tok.batch(random_sentences(mntp.batch_size, g))
        loss = mntp_step(model, ids, mask, tok, mntp.mask_prob, g)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history["mntp"].append(loss.item())

    # stage 3: unsupervised SimCSE, dropout as the only augmentation
    model.set_dropout(simcse.dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=simcse.lr)
    for _ in range(simcse.steps):
        ids, mask = tok.batch(random_sentences(simcse.batch_size, g))
        loss = simcse_step(model, ids, mask, simcse.temperature, simcse.pooling)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history["simcse"].append(loss.item())

    model.set_dropout(0.0)
    model.eval()
    with torch.no_grad():
        texts = random_sentences(6, g)
        ids, mask = tok.batch(texts)
        emb = encode(model, ids, mask, simcse.pooling)
        same, same_mask = tok.batch(texts[:1])
        alone = encode(model, same, same_mask, simcse.pooling)
    return {"model": model, "history": history, "embeddings": emb, "alone": alone}


if __name__ == "__main__":
    out = train()
    for stage, losses in out["history"].items():
        print(f"{stage}: {losses[0]:.3f} -> {losses[-1]:.3f}")
    emb = F.normalize(out["embeddings"], dim=-1)
    print("cosine similarities of six random sentences:\n", (emb @ emb.T).numpy().round(2))
