"""Input fixtures of matryoshka-sae/1 (inputs only, never an output of the reference).

    python make_fixtures.py OUT_DIR

Every batch is drawn so that each selection the method makes is clear of rounding: the gap between the kept and
the first dropped value of BatchTopK and of each token's AuxK top-k among the dead latents, and the distance of
every pre-activation from 0 and from the inference threshold, are at least MARGIN (computed in float64 from the
parameters as stored in the case's dtype), so float32 and float64 evaluations, or any summation order, select the
same entries.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

MARGIN = 1e-4


def unit_rows(g: torch.Generator, rows: int, cols: int) -> torch.Tensor:
    w = torch.randn(rows, cols, generator=g, dtype=torch.float64)
    return w / w.norm(dim=1, keepdim=True)


def sorted_gap(values: torch.Tensor, n_keep: int) -> float:
    """The gap between the n_keep-th largest value and the next one (inf if everything positive is kept)."""
    flat = values.reshape(-1).sort(descending=True).values
    if n_keep >= flat.numel() or float(flat[n_keep - 1]) <= 0:
        return float("inf")
    return float(flat[n_keep - 1] - flat[n_keep])


def distinct(values: torch.Tensor) -> bool:
    """No two entries (nor an entry and 0) closer than MARGIN."""
    flat = torch.cat([values.reshape(-1), torch.zeros(1, dtype=values.dtype)]).sort().values
    return bool((flat[1:] - flat[:-1]).min() > MARGIN)


# ---------------------------------------------------------------- batch_topk


def topk_cases(g: torch.Generator) -> list[dict]:
    """Pre-activation matrices: (n_tokens, d_sae, k, dtype, shift); shift < 0 makes most entries negative."""
    specs = ((6, 10, 2, "float64", 0.0), (1, 7, 3, "float64", 0.0), (5, 8, 1, "float32", 0.0),
             (4, 6, 5, "float64", -1.2), (3, 5, 2, "float32", -1.5), (8, 12, 3, "float64", 0.3),
             (2, 4, 4, "float64", 0.0), (3, 2, 3, "float64", 0.2))
    cases = []
    for n, m, k, dtype, shift in specs:
        while True:
            z = torch.randn(n, m, generator=g, dtype=torch.float64) + shift
            if distinct(z):
                break
        upstream = torch.randn(n, m, generator=g, dtype=torch.float64)
        cases.append({"z": z.to(getattr(torch, dtype)), "k": k, "upstream": upstream.to(getattr(torch, dtype))})
    return cases


# ---------------------------------------------------------------- the SAE


def sae_params(g: torch.Generator, d_model: int, d_sae: int) -> dict[str, torch.Tensor]:
    w_dec = unit_rows(g, d_sae, d_model)
    w_enc = w_dec.T + 0.3 * torch.randn(d_model, d_sae, generator=g, dtype=torch.float64)
    return {"W_enc": w_enc, "b_enc": 0.1 * torch.randn(d_sae, generator=g, dtype=torch.float64),
            "W_dec": w_dec, "b_dec": 0.2 * torch.randn(d_model, generator=g, dtype=torch.float64)}


def clear(pre: torch.Tensor, k: int, dead: torch.Tensor, aux_k: int, threshold: float) -> bool:
    """Every selection on these pre-activations is MARGIN clear of a tie."""
    relu = pre.clamp_min(0)
    if sorted_gap(relu, k * pre.shape[0]) < MARGIN:
        return False
    if bool((pre.abs() < MARGIN).any()) or bool(((pre - threshold).abs() < MARGIN).any()):
        return False
    if bool(dead.any()):
        return all(sorted_gap(row, aux_k) >= MARGIN for row in pre[:, dead].clamp_min(0))
    return True


def sae_case(g: torch.Generator, spec: tuple) -> dict:
    d_model, groups, k, aux_k, dead_after, dtype_name, n_seq, max_len, n_dead = spec
    dtype = getattr(torch, dtype_name)
    d_sae = sum(groups)
    params = {name: value.to(dtype) for name, value in sae_params(g, d_model, d_sae).items()}
    p64 = {name: value.double() for name, value in params.items()}
    # batches_since_fired: n_dead latents far past dead_after (dead), the others well below it, so that the
    # dead set is the same whether or not the current batch is counted
    counters = torch.randint(0, max(1, dead_after - 1), (d_sae,), generator=g)
    dead_idx = torch.randperm(d_sae, generator=g)[:n_dead]
    counters[dead_idx] = dead_after + 3 + torch.randint(0, 5, (n_dead,), generator=g)
    dead = counters >= dead_after
    threshold = 0.05 + 0.4 * float(torch.rand(1, generator=g, dtype=torch.float64))
    lengths = torch.randint(1, max_len + 1, (n_seq,), generator=g)
    mask = torch.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)
    n_tokens = int(mask.sum())
    while True:
        x = (0.7 * torch.randn(n_tokens, d_model, generator=g, dtype=torch.float64)).to(dtype).double()
        pre = (x - p64["b_dec"]) @ p64["W_enc"] + p64["b_enc"]
        if clear(pre, k, dead, aux_k, threshold):
            break
    acts = torch.zeros(n_seq, max_len, d_model, dtype=dtype)
    acts[mask] = x.to(dtype)
    return {"d_model": d_model, "group_sizes": list(groups), "k": k, "aux_k": aux_k, "dead_after": dead_after,
            "aux_coefficient": [1.0 / 32.0, 0.5, 0.25][len(groups) % 3], "dtype": dtype_name,
            "params": params, "batches_since_fired": counters, "threshold": threshold,
            "threshold_batches": int(torch.randint(0, 4, (1,), generator=g)),
            "x": x.to(dtype), "acts": acts, "mask": mask, "lr": 0.05 * (1 + int(lengths[0]) % 3)}


def sae_cases(g: torch.Generator) -> list[dict]:
    """(d_model, group_sizes, k, aux_k, dead_after, dtype, n_seq, max_len, n_dead) for each case."""
    specs = ((6, (2, 4, 10), 3, 4, 5, "float64", 3, 5, 0),
             (5, (3, 9), 2, 3, 4, "float64", 4, 4, 4),
             (8, (2, 6, 8, 16), 4, 2, 3, "float32", 5, 6, 7),
             (4, (5,), 2, 2, 6, "float64", 2, 3, 2),
             (7, (1, 3, 12), 1, 6, 8, "float64", 1, 4, 5),
             (6, (4, 8), 3, 2, 2, "float32", 3, 5, 0),
             (5, (2, 2, 4), 2, 2, 5, "float64", 4, 6, 6))
    return [sae_case(g, spec) for spec in specs]


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20250321)
    torch.save(topk_cases(g), out / "topk_cases.pt")
    torch.save(sae_cases(g), out / "sae_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
