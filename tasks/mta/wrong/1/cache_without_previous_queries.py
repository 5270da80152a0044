# WRONG: incremental decoding convolves only the new queries' rows (earlier queries treated as zero)
class MTAttention(nn.Module):
    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> torch.Tensor:
        """Multi-token attention over the current and earlier positions.
    
        Args:
            x: (B, T, d_model) inputs of T consecutive positions.
            cache: None: x holds positions 0 .. T-1. Otherwise x holds positions cache.length ..
                cache.length + T - 1, continuing the positions the cache has seen; the call updates the cache.
    
        Returns:
            (B, T, d_model), dtype of x.
    
        Raises:
            ValueError: if x is not 3-D with last dimension d_model.
        """
        cfg = self.cfg
        if x.ndim != 3 or x.shape[-1] != cfg.d_model:
            raise ValueError(f"expected (B, T, {cfg.d_model}), got {tuple(x.shape)}")
        b, t, _ = x.shape
        h, d = cfg.n_heads, cfg.head_dim
        start = 0 if cache is None else cache.length
        positions = torch.arange(start, start + t)
        q, k, v = (proj(x).view(b, t, h, d).transpose(1, 2) for proj in (self.q_proj, self.k_proj, self.v_proj))
        q = apply_rotary(q, positions, cfg.rope_base)
        k = apply_rotary(k, positions, cfg.rope_base)
        n_prev = 0
        if cache is not None:
            k, v = cache.append(k, v)
            if False:
                # the convolution reaches c_q - 1 queries back: recompute their rows of the map
                n_prev = cache.queries.shape[-2]
                q = torch.cat([cache.queries, q], dim=-2)
            if self.use_kq and cfg.kq_query > 1:
                cache.queries = q[:, :, -(cfg.kq_query - 1):]
        q_positions = torch.arange(start - n_prev, start + t)
        k_positions = torch.arange(k.shape[-2])
        scores = q @ k.transpose(-1, -2) / math.sqrt(d)
        weights = attention_weights(scores, q_positions, k_positions, self.kq_kernel,
                                    cfg.kq_conv if self.use_kq else "none", self.head_kernel, cfg.head_conv)
        heads = weights[:, :, n_prev:] @ v  # (B, H, T, d)
        if cfg.group_norm:
            lambda_init = 0.8 - 0.6 * math.exp(-0.3 * (self.layer - 1))
            heads = self.head_norm(heads) * (1 - lambda_init)
        return self.out_proj(heads.transpose(1, 2).reshape(b, t, h * d))
