"""Regenerate tests/fixtures from the reference nsa_attention.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied.
Inputs only (inputs, options, cotangent): the reference is run here only to refuse a configuration whose
selection hinges on a near-tie; its outputs are computed by the probe and stored outside the sandbox, in
tests/expected/.
"""

import sys
from pathlib import Path

import torch

from nsa.attention import nsa_attention
from nsa.compression import num_compressed_blocks

# T, H, G, dk, dv, l, d, l', n, w, init, local, scale, q multiplier
CONFIGS = [
    (16, 2, 1, 4, 3, 4, 2, 2, 3, 4, 1, 1, None, 1.0),
    (40, 4, 2, 3, 2, 4, 2, 8, 3, 5, 1, 1, None, 1.0),  # l' > l: several compressed blocks score one block
    (20, 2, 2, 4, 4, 2, 2, 2, 5, 3, 1, 2, None, 1.0),  # l = d = l', one head per group
    (1, 2, 1, 3, 3, 2, 1, 2, 2, 2, 1, 1, None, 1.0),  # a single token
    (7, 3, 1, 2, 2, 4, 2, 2, 2, 2, 0, 1, None, 1.0),  # l > l'
    (32, 4, 1, 4, 4, 8, 4, 4, 4, 6, 1, 2, None, 1.0),  # four heads share one selection
    (18, 2, 1, 3, 3, 4, 4, 4, 2, 3, 0, 0, None, 1.0),  # no forced blocks: pure top-n
    (16, 2, 1, 4, 3, 4, 2, 2, 3, 4, 1, 1, None, 30.0),  # extreme logits
    (12, 2, 1, 2, 2, 2, 2, 4, 8, 12, 1, 2, None, 1.0),  # n and w cover everything
    (20, 2, 1, 3, 3, 6, 2, 4, 3, 3, 1, 1, 0.3, 1.0),  # l > l', custom scale
    (10, 2, 1, 2, 2, 2, 1, 2, 3, 2, 1, 1, None, 1.0),  # stride 1
    (26, 6, 3, 3, 2, 4, 2, 4, 3, 4, 1, 1, 0.7, 2.0),  # three groups of two heads
    (30, 2, 1, 3, 3, 4, 2, 2, 6, 5, 2, 2, None, 1.0),  # two initial and two local blocks
    (14, 2, 1, 2, 2, 2, 2, 2, 2, 3, 0, 3, None, 1.0),  # forced local blocks outnumber n
    (12, 2, 1, 2, 2, 4, 2, 2, 1, 3, 1, 1, None, 1.0),  # n = 1: the initial and the local block both kept
]


def make_case(i: int, cfg: tuple) -> dict:
    seq_len, h, g, dk, dv, l, d, lp, n, w, n_init, n_local, scale, q_mult = cfg
    gen = torch.Generator().manual_seed(100 + i)
    n_cmp = num_compressed_blocks(seq_len, l, d)

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    inputs = {
        "q": q_mult * randn(seq_len, h, dk),
        "k_cmp": randn(n_cmp, g, dk),
        "v_cmp": randn(n_cmp, g, dv),
        "k_slc": randn(seq_len, g, dk),
        "v_slc": randn(seq_len, g, dv),
        "k_win": randn(seq_len, g, dk),
        "v_win": randn(seq_len, g, dv),
        "gates": torch.sigmoid(randn(seq_len, h, 3)),
    }
    kwargs = {
        "cmp_block_size": l,
        "cmp_stride": d,
        "slc_block_size": lp,
        "num_selected": n,
        "window_size": w,
        "num_init_blocks": n_init,
        "num_local_blocks": n_local,
        "scale": scale,
    }
    with torch.no_grad():
        out, selection = nsa_attention(**inputs, **kwargs, return_selection=True)
    # the selection must not hinge on a near-tie: tiny perturbations of the inputs keep it
    with torch.no_grad():
        for sign in (1.0, -1.0):
            nudged = {
                k: v * (1 + sign * 1e-9 * torch.rand(v.shape, generator=gen, dtype=v.dtype))
                for k, v in inputs.items()
            }
            _, again = nsa_attention(**nudged, **kwargs, return_selection=True)
            assert torch.equal(again, selection), f"case {i}: selection is fragile"
    cotangent = randn(*out.shape)
    return {"inputs": inputs, "kwargs": kwargs, "cotangent": cotangent}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save([make_case(i, cfg) for i, cfg in enumerate(CONFIGS)], out / "nsa_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
