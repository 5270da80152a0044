# the absorbed path lets every new token see every new token (no causal mask within a chunk)
class MultiHeadLatentAttention:
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
        scores = scores / math.sqrt(self.cfg.head_dim + self.cfg.rope_head_dim)
        weights = torch.softmax(scores, -1)
        mixed = weights @ cache.latent[:, None]
        return torch.einsum("bhtl,hld->btd", mixed, absorbed.latent_to_model), cache
