# attention scale 1/sqrt(d_h) instead of 1/sqrt(d_h + d_h^R) (Eq. (7) instead of (18))
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
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.cfg.head_dim)
        return torch.softmax(scores.masked_fill(~causal_mask(t, length, q_c.device), float("-inf")), -1) @ v_c

    def decode(self, h: torch.Tensor, cache: LatentCache,
               absorbed: AbsorbedWeights | None = None) -> tuple[torch.Tensor, LatentCache]:
        """Process T new tokens that follow the cached ones (positions cache.length .. cache.length + T - 1).

        Args:
            h: hidden states of the new tokens, (B, T, d_model), T >= 1.
            cache: this layer's cache of the previous tokens (batch size B, dtype of h); left unchanged.
            absorbed: None computes the attention with `attend` (keys and values up-projected); the result of
                `absorbed_weights` computes it in the latent space, without up-projecting any key or value.

        Returns:
            (out, new_cache): out (B, T, d_model), equal to the rows of `forward` over the whole sequence that
            belong to the new tokens; new_cache holds the cached tokens followed by the new ones.

        Raises:
            ValueError: if the cache's batch size differs from h's.
        """
        if cache.latent.shape[0] != h.shape[0]:
            raise ValueError(f"cache batch {cache.latent.shape[0]} != input batch {h.shape[0]}")
        t = h.shape[1]
        positions = torch.arange(cache.length, cache.length + t, device=h.device)
        cache = cache.extend(*self.latents(h, positions))
        if absorbed is None:
            q_c, q_rope = self.queries(h, positions)
            return self.w_o(merge_heads(self.attend(q_c, q_rope, cache.latent, cache.k_rope))), cache
        c_q = self.q_norm(self.w_dq(h))
        q_latent = torch.einsum("btc,hcl->bhtl", c_q, absorbed.q_to_latent)
        q_rope = apply_rope(split_heads(self.w_qr(c_q), self.cfg.n_heads), positions, self.cfg.rope_base)
        scores = q_latent @ cache.latent[:, None].transpose(-1, -2) + q_rope @ cache.k_rope[:, None].transpose(-1, -2)
        scores = scores / math.sqrt(self.cfg.head_dim)
        weights = torch.softmax(scores.masked_fill(~causal_mask(t, cache.length, h.device), float("-inf")), -1)
        mixed = weights @ cache.latent[:, None]
        return torch.einsum("bhtl,hld->btd", mixed, absorbed.latent_to_model), cache
