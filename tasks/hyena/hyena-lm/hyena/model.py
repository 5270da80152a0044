"""HyenaLM: a pre-norm residual stack of Hyena operators and MLPs."""

from torch import Tensor, nn

from hyena.config import HyenaConfig
from hyena.operator import HyenaOperator


class HyenaBlock(nn.Module):
    def __init__(self, cfg: HyenaConfig):
        super().__init__()
        self.norm1 = nn.LayerNorm(cfg.d_model)
        self.mixer = HyenaOperator(
            cfg.d_model,
            cfg.l_max,
            order=cfg.order,
            filter_order=cfg.filter_order,
            short_filter_size=cfg.short_filter_size,
            emb_dim=cfg.emb_dim,
            frequency=cfg.filter_frequency,
            fast_decay_pct=cfg.fast_decay_pct,
            slow_decay_pct=cfg.slow_decay_pct,
            target=cfg.target,
        )
        self.norm2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 2 * cfg.d_model), nn.GELU(), nn.Linear(2 * cfg.d_model, cfg.d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.mixer(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class HyenaLM(nn.Module):
    def __init__(self, cfg: HyenaConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(HyenaBlock(cfg) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: Tensor) -> Tensor:
        """(B, L) token ids -> (B, L, vocab) next-token logits; L must not exceed cfg.l_max."""
        if tokens.shape[1] > self.cfg.l_max:
            raise ValueError(f"sequence length {tokens.shape[1]} exceeds l_max={self.cfg.l_max}")
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
