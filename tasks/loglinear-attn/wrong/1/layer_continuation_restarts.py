# wrong: a call that continues the cache restarts from an empty state (chunkwise) instead of the stored level states
class LogLinearMamba2(nn.Module):
    def forward(self, x: torch.Tensor, cache: LevelCache | None = None) -> torch.Tensor:
        """x: (B, L, hidden_size) -> (B, L, hidden_size), in x's dtype.

        Without a cache the L positions are a whole sequence. With a cache they continue the
        `cache.seen_tokens` positions seen before (none for an empty cache): the layer starts from the level
        states stored under `self.layer_idx` and stores the states after its last position there.
        Raises ValueError when the sequence would exceed cfg.max_positions positions.
        """
        cfg = self.cfg
        B, L, _ = x.shape
        H, K, V, NL = cfg.num_heads, cfg.head_k_dim, cfg.head_v_dim, cfg.num_levels
        start = 0 if cache is None else cache.seen_tokens
        if start + L > cfg.max_positions:
            raise ValueError(f"{start + L} positions exceed max_positions={cfg.max_positions}")
        q = F.silu(self.q_proj(x)).view(B, L, H, K)
        k = F.silu(self.k_proj(x)).view(B, L, H, K)
        dt = F.softplus(self.dt_proj(x) + self.dt_bias)  # (B, L, H)
        v = self.v_proj(x).view(B, L, H, V) * dt[..., None]
        log_a = log_decay(dt, self.A_log)
        lam = F.softplus(self.lam_proj(x)).view(B, L, H, NL)
        if start == 0 or L > 1:
            o, states = chunk_loglinear_attention(q, k, v, log_a, lam, cfg.chunk_size,
                                                  output_final_state=cache is not None)
        else:
            states = cache.get(self.layer_idx)
            outs = []
            for t in range(L):
                o_t, states = loglinear_step(q[:, t], k[:, t], v[:, t], log_a[:, t], lam[:, t], states, start + t)
                outs.append(o_t)
            o = torch.stack(outs, 1)
        if cache is not None:
            cache.update(self.layer_idx, states)
        o = self.o_norm(o) * F.silu(self.g_proj(x)).view(B, L, H, V)
        return self.o_proj(o.reshape(B, L, H * V))
