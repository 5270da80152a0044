"""The NSA layer: projections, block compressors, gates and the output projection around nsa_attention."""

import torch
from torch import Tensor, nn

from nsa.attention import nsa_attention
from nsa.compression import BlockCompressor
from nsa.config import NSAConfig

BRANCHES = ("cmp", "slc", "win")


class NativeSparseAttention(nn.Module):
    """Causal NSA over one sequence (T, d_model) -> (T, d_model).

    Each branch has its own key/value projections (independent keys and values per branch);
    the compressed branch additionally compresses its keys and values block by block.
    """

    def __init__(self, cfg: NSAConfig):
        super().__init__()
        self.cfg = cfg
        h, g, dk, dv = cfg.n_heads, cfg.n_kv_heads, cfg.head_dim, cfg.value_dim
        self.q_proj = nn.Linear(cfg.d_model, h * dk, bias=False)
        self.k_proj = nn.ModuleDict({b: nn.Linear(cfg.d_model, g * dk, bias=False) for b in BRANCHES})
        self.v_proj = nn.ModuleDict({b: nn.Linear(cfg.d_model, g * dv, bias=False) for b in BRANCHES})
        self.k_compress = BlockCompressor(dk, cfg.cmp_block_size, cfg.cmp_stride)
        self.v_compress = BlockCompressor(dv, cfg.cmp_block_size, cfg.cmp_stride)
        self.gate = nn.Linear(cfg.d_model, h * len(BRANCHES))
        self.o_proj = nn.Linear(h * dv, cfg.d_model, bias=False)

    def project(self, x: Tensor) -> dict[str, Tensor]:
        """All inputs of nsa_attention for one sequence x of shape (T, d_model)."""
        cfg, seq_len = self.cfg, x.shape[0]
        g = cfg.n_kv_heads
        k = {b: self.k_proj[b](x).view(seq_len, g, cfg.head_dim) for b in BRANCHES}
        v = {b: self.v_proj[b](x).view(seq_len, g, cfg.value_dim) for b in BRANCHES}
        return {
            "q": self.q_proj(x).view(seq_len, cfg.n_heads, cfg.head_dim),
            "k_cmp": self.k_compress(k["cmp"]),
            "v_cmp": self.v_compress(v["cmp"]),
            "k_slc": k["slc"],
            "v_slc": v["slc"],
            "k_win": k["win"],
            "v_win": v["win"],
            "gates": torch.sigmoid(self.gate(x)).view(seq_len, cfg.n_heads, len(BRANCHES)),
        }

    def forward(self, x: Tensor, return_selection: bool = False):
        inputs = self.project(x)
        result = nsa_attention(**inputs, **self.cfg.sparsity_kwargs(), return_selection=return_selection)
        out, selection = result if return_selection else (result, None)
        y = self.o_proj(out.reshape(x.shape[0], -1))
        return (y, selection) if return_selection else y
