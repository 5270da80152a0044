"""Regenerate tests/fixtures for llm2vec/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/llm2vec_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from llm2vec.config import ModelConfig
from llm2vec.data import WORDS, random_sentences
from llm2vec.model import DecoderLM
from llm2vec.tokenizer import Tokenizer

F64 = torch.float64


def padding_masks() -> list[torch.Tensor]:
    rows = {
        "left": [[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 1]],
        "right": [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]],
        "none": [[1, 1, 1, 1]],
        "one": [[1]],
        "mixed": [[0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 0]],
    }
    return [torch.tensor(r, dtype=torch.long) for r in rows.values()]


def rounded(t: torch.Tensor) -> torch.Tensor:
    return torch.round(t * 4096) / 4096


def batches(tok: Tokenizer, g: torch.Generator) -> list[dict]:
    out = []
    for n, lo, hi in ((4, 2, 7), (1, 3, 3), (3, 1, 9), (6, 2, 5)):
        texts = random_sentences(n, g, lo, hi)
        if n == 3:   # unknown words and a literal underscore in the text
            texts[0] = texts[0] + " zzz _ yyy"
        ids, mask = tok.batch(texts)
        out.append({"ids": ids, "mask": mask})
    # a right-padded batch (the functions accept padding on either side)
    ids, mask = tok.batch(random_sentences(3, g, 2, 6))
    keep = mask.sum(-1)
    rids, rmask = torch.full_like(ids, tok.pad_id), torch.zeros_like(mask)
    for b in range(ids.shape[0]):
        rids[b, :keep[b]] = ids[b, ids.shape[1] - keep[b]:]
        rmask[b, :keep[b]] = 1
    out.append({"ids": rids, "mask": rmask})
    return out


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2024)
    tok = Tokenizer(WORDS)
    cfg = ModelConfig(vocab_size=tok.vocab_size, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=24)
    torch.manual_seed(7)
    model = DecoderLM(cfg).to(F64)
    state = {k: rounded(v * 2.0 if k.startswith("tok") else v) for k, v in model.state_dict().items()}

    mntp_cases = []
    for b, t, v in ((2, 5, 7), (1, 4, 3), (3, 6, 11), (4, 3, 5)):
        logits = torch.randn(b, t, v, generator=g, dtype=F64) * 2
        labels = torch.randint(0, v, (b, t), generator=g)
        keep = torch.rand(b, t, generator=g) < 0.5
        keep[:, 0] = False
        keep[0, 1] = True
        labels = labels.masked_fill(~keep, -100)
        mntp_cases.append({"logits": logits, "labels": labels})

    pool_cases = []
    for m in padding_masks():
        pool_cases.append({"hidden": torch.randn(m.shape[0], m.shape[1], 3, generator=g, dtype=F64), "mask": m})

    simcse_cases = []
    for b, d, tau in ((4, 6, 0.05), (1, 3, 0.05), (3, 5, 1.0), (8, 4, 0.2)):
        z1 = torch.randn(b, d, generator=g, dtype=F64) * 3
        z2 = z1 + 0.5 * torch.randn(b, d, generator=g, dtype=F64)
        simcse_cases.append({"z1": z1, "z2": z2, "tau": tau})

    torch.save({"masks": padding_masks(), "mntp": mntp_cases, "pool": pool_cases, "simcse": simcse_cases,
                "batches": batches(tok, g), "state": state, "model_cfg": {
                    "d_model": cfg.d_model, "n_heads": cfg.n_heads, "n_layers": cfg.n_layers, "d_ff": cfg.d_ff,
                    "max_len": cfg.max_len}}, out_dir / "llm2vec_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
