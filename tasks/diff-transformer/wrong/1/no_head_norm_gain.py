# wrong: per-head RMSNorm without its learned gain
class DiffAttention:
    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> torch.Tensor:
        if x.ndim != 3 or x.shape[-1] != self.cfg.d_model:
            raise ValueError(f"expected (B, T, {self.cfg.d_model}), got {tuple(x.shape)}")
        b, t, _ = x.shape
        h, d = self.cfg.n_heads, self.cfg.head_dim
        start = 0 if cache is None else cache.length
        positions = torch.arange(start, start + t)
        q = self.q_proj(x).view(b, t, h, 2, d).permute(0, 2, 3, 1, 4)  # (B, h, 2, T, d)
        k = self.k_proj(x).view(b, t, h, 2, d).permute(0, 2, 3, 1, 4)
        v = self.v_proj(x).view(b, t, h, 2 * d).transpose(1, 2)  # (B, h, T, 2d)
        q = apply_rotary(q, positions, self.cfg.rope_base)
        k = apply_rotary(k, positions, self.cfg.rope_base)
        if cache is not None:
            k, v = cache.append(k, v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d)  # (B, h, 2, T, S)
        scores = scores.masked_fill(causal_mask(positions, torch.arange(k.shape[-2])), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        diff = weights[:, :, 0] - self.lambda_value() * weights[:, :, 1]  # (B, h, T, S)
        heads = (diff @ v) * torch.rsqrt((diff @ v).pow(2).mean(-1, keepdim=True) + self.cfg.norm_eps) * (1 - self.lambda_init)  # (B, h, T, 2d)
        return self.out_proj(heads.transpose(1, 2).reshape(b, t, 2 * h * d))
