# WRONG: the cache keeps only the latest chunk's keys and values
class GatedAttention(nn.Module):
    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> AttentionOutput:
        """Causal gated attention.

        Args:
            x: (B, T, d_model), the normalised hidden states entering the layer.
            cache: None: x holds positions 0 .. T-1. Otherwise x holds positions cache.length ..
                cache.length + T - 1, continuing the positions the cache has seen; the call updates the cache.

        Returns:
            AttentionOutput; out and probs have the dtype of x; T_total = T + the positions seen before.

        Raises:
            ValueError: if x is not 3-D with last dimension d_model.
        """
        cfg = self.cfg
        if x.ndim != 3 or x.shape[-1] != cfg.d_model:
            raise ValueError(f"expected (B, T, {cfg.d_model}), got {tuple(x.shape)}")
        b, t, _ = x.shape
        pos = cfg.gate_position
        gate = self.gate_scores(x) if pos != "none" else None
        q = self.q_proj(x).view(b, t, cfg.n_heads, cfg.head_dim)
        k = self.k_proj(x).view(b, t, cfg.n_kv_heads, cfg.head_dim)
        v = self.v_proj(x).view(b, t, cfg.n_kv_heads, cfg.head_dim)
        if pos == "query":
            q = self.apply_gate(q, gate)
        elif pos == "key":
            k = self.apply_gate(k, gate)
        elif pos == "value":
            v = self.apply_gate(v, gate)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        start = 0
        if cache is not None:
            start = cache.length
            if cache.keys is not None:
                k = torch.cat([cache.keys, k], dim=2)
                v = torch.cat([cache.values, v], dim=2)
            cache.keys, cache.values, cache.length = k[:, :, -t:], v[:, :, -t:], start + t
            k, v = k[:, :, -t:], v[:, :, -t:]
        n_rep = cfg.n_heads // cfg.n_kv_heads
        q = q.transpose(1, 2)
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        scores = q @ k.transpose(2, 3) / math.sqrt(cfg.head_dim)
        positions = torch.arange(start, start + t, device=x.device)
        scores = scores.masked_fill(causal_mask(positions, positions), float("-inf"))
        probs = torch.softmax(scores, dim=3)
        y = (probs @ v).transpose(1, 2)
        if pos == "sdpa":
            y = self.apply_gate(y, gate)
        out = self.o_proj(y.reshape(b, t, cfg.n_heads * cfg.head_dim))
        if pos == "dense":
            out = self.apply_gate(out.view(b, t, cfg.n_heads, cfg.head_dim), gate).reshape(b, t, cfg.d_model)
        return AttentionOutput(out, probs, gate)
