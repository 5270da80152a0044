"""Write the differential fixtures of the bertscore task: inputs and options only.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied. The
reference's outputs are computed by the probe and stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from bertscore.data import SYSTEMS
from bertscore.idf import compute_idf
from bertscore.tokenizer import CLS_ID, PAD_ID, SEP_ID, SPECIAL_IDS

FIRST_WORD_ID = 3  # [UNK] (id 3) is an ordinary token for the metric


def sentence_ids(gen: torch.Generator, batch: int, width: int, vocab: int, lengths: torch.Tensor) -> torch.Tensor:
    """[CLS] w_1 .. w_n [SEP] [PAD]..., one row per sentence, n = lengths[row] >= 1."""
    ids = torch.full((batch, width), PAD_ID, dtype=torch.long)
    for row, n in enumerate(lengths.tolist()):
        ids[row, 0] = CLS_ID
        ids[row, 1 : n + 1] = torch.randint(FIRST_WORD_ID, vocab, (n,), generator=gen)
        ids[row, n + 1] = SEP_ID
    return ids


def embeddings(gen, batch, width, dtype, common, scale_range):
    emb = torch.randn(batch, width, common.shape[0], generator=gen, dtype=torch.float64)
    emb = emb + common  # a direction shared by all tokens, as in real encoders
    lo, hi = scale_range
    log_scale = torch.empty(batch, width, 1, dtype=torch.float64).uniform_(lo, hi, generator=gen)
    return (emb * 10.0**log_scale).to(dtype)


def random_case(gen: torch.Generator, index: int) -> dict:
    batch = [1, 2, 3, 4, 6][index % 5]
    dim = [2, 3, 5, 8, 16][(index // 5) % 5]
    vocab = [6, 12, 40][index % 3]
    max_r = int(torch.randint(1, 8, (1,), generator=gen))
    max_c = int(torch.randint(1, 8, (1,), generator=gen))
    ref_len = torch.randint(1, max_r + 1, (batch,), generator=gen)
    cand_len = torch.randint(1, max_c + 1, (batch,), generator=gen)
    ref_len[0], cand_len[0] = max_r, max_c
    extra_pad = index % 2
    ref_ids = sentence_ids(gen, batch, max_r + 2 + extra_pad, vocab, ref_len)
    cand_ids = sentence_ids(gen, batch, max_c + 2, vocab, cand_len)

    dtype = torch.float32 if index % 7 == 3 else torch.float64
    anisotropy = [0.0, 0.0, 1.0, 3.0][index % 4]
    if dtype == torch.float32:
        anisotropy = 3.0  # keep P + R away from 0 so that float32 rounding stays far below the tolerance
    scale_range = [(0.0, 0.0), (-1.0, 1.0), (-6.0, 6.0)][index % 3]
    common = torch.randn(dim, generator=gen, dtype=torch.float64)
    common = anisotropy * dim**0.5 * common / common.norm()
    ref_emb = embeddings(gen, batch, ref_ids.shape[1], dtype, common, scale_range)
    cand_emb = embeddings(gen, batch, cand_ids.shape[1], dtype, common, scale_range)
    if index % 4 == 1:  # padding states are exactly zero (as a masked encoder may return)
        ref_emb[ref_ids == PAD_ID] = 0.0
        cand_emb[cand_ids == PAD_ID] = 0.0

    special_ids = list(SPECIAL_IDS)
    if index % 11 == 5:
        special_ids = [PAD_ID]  # [CLS] and [SEP] scored like words
    elif index % 11 == 8:
        special_ids = [PAD_ID, CLS_ID, SEP_ID, FIRST_WORD_ID]  # [UNK] excluded as well
        ref_ids[:, 1] = 4
        cand_ids[:, 1] = 5
    idf_mode = ["none", "random", "corpus"][(index // 2) % 3]
    idf = None
    if idf_mode == "random":
        idf = torch.empty(vocab, dtype=torch.float64).uniform_(0.05, 3.0, generator=gen).to(dtype)
    elif idf_mode == "corpus":
        idf = compute_idf([row.tolist() for row in ref_ids], vocab).to(dtype)
        idf[FIRST_WORD_ID:] += 0.1  # keep every sentence's total weight positive
    case = {
        "ref_emb": ref_emb,
        "ref_ids": ref_ids,
        "cand_emb": cand_emb,
        "cand_ids": cand_ids,
        "idf": idf,
        "special_ids": special_ids,
    }
    return case


def end_to_end_cases() -> list[dict]:
    """The scorer's options: every layer of the toy encoder, with and without idf, for every toy system."""
    return [{"layer": layer, "idf": use_idf, "system": name}
            for layer in (0, 1, 2) for use_idf in (False, True) for name in SYSTEMS]


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(1904_09675)
    cases = [random_case(gen, i) for i in range(60)]
    torch.save(cases, out / "random_cases.pt")
    torch.save(end_to_end_cases(), out / "end_to_end.pt")


if __name__ == "__main__":
    main(sys.argv[1])
