# the causal mask aligns the queries with the first keys (positions 0 .. T - 1) instead of the last
class MultiHeadLatentAttention:
    def attend(self, q_c: torch.Tensor, q_rope: torch.Tensor, latent: torch.Tensor,
               k_rope: torch.Tensor) -> torch.Tensor:
        """Causal attention of Eqs. (10), (11), (16)-(18), keys and values up-projected from the latents.

        Args:
            q_c: (B, n_heads, T, head_dim); q_rope: (B, n_heads, T, rope_head_dim); the queries of the last T of
                the L tokens (positions L - T .. L - 1), as returned by `queries`.
            latent: (B, L, kv_lora_rank); k_rope: (B, L, rope_head_dim); tokens 0 .. L - 1, as returned by
                `latents` (or held in a `LatentCache`).

        Returns:
            The per-head outputs o_{t,i}, (B, n_heads, T, head_dim).

        Raises:
            ValueError: if T > L.
        """
        t, length = q_c.shape[2], latent.shape[1]
        if t > length:
            raise ValueError(f"{t} queries but only {length} tokens")
        k_c = split_heads(self.w_uk(latent), self.cfg.n_heads)
        v_c = split_heads(self.w_uv(latent), self.cfg.n_heads)
        k_r = k_rope[:, None].expand(-1, self.cfg.n_heads, -1, -1)
        q = torch.cat([q_c, q_rope], dim=-1)
        k = torch.cat([k_c, k_r], dim=-1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.cfg.head_dim + self.cfg.rope_head_dim)
        return torch.softmax(scores.masked_fill(~torch.arange(length, device=q_c.device)[None, :] <= torch.arange(t, device=q_c.device)[:, None], float("-inf")), -1) @ v_c
