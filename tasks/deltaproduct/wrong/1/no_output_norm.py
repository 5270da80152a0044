# wrong: the per-head RMSNorm of the outputs left out
class DeltaProductAttention(nn.Module):
    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        cache: RecurrentCache | None = None,
    ) -> torch.Tensor:
        """Mix the tokens of `hidden_states` (B, L, hidden_size); returns a tensor of the same shape.

        attention_mask: (B, L), true (or 1) at real tokens and false (or 0) at padding; padding positions leave
        the recurrent state unchanged (their outputs are unspecified). None: every position is a real token.
        cache: when given, the layer starts from the state stored under its `layer_idx` (zeros if none is
        stored yet) and stores the state after the last position in it; the layer does not call `advance`.

        Raises:
            ValueError: if attention_mask does not have shape (B, L).
        """
        cfg = self.cfg
        B, L, _ = hidden_states.shape
        H, K, V = cfg.num_heads, cfg.head_k_dim, cfg.head_v_dim
        if attention_mask is not None and tuple(attention_mask.shape) != (B, L):
            raise ValueError(f"attention_mask has shape {tuple(attention_mask.shape)}, expected {(B, L)}")
        x = hidden_states
        q = l2_normalize(F.silu(self.q_proj(x)).view(B, L, H, K), cfg.norm_eps)
        k = torch.stack([l2_normalize(F.silu(p(x)).view(B, L, H, K), cfg.norm_eps) for p in self.k_projs], dim=2)
        v = torch.stack([p(x).view(B, L, H, V) for p in self.v_projs], dim=2)
        beta = torch.stack([p(x).sigmoid() for p in self.b_projs], dim=2)
        if cfg.allow_neg_eigval:
            beta = 2.0 * beta
        log_gate = log_forget_gate(self.a_proj(x), self.A_log, self.dt_bias) if cfg.use_forget_gate else None
        if attention_mask is not None:
            # a padding position becomes the identity: no Householder step, no decay
            keep = attention_mask.to(torch.bool)
            beta = beta * keep[:, :, None, None]
            if log_gate is not None:
                log_gate = log_gate * keep[:, :, None]
        state = cache.get(self.layer_idx) if cache is not None else None
        if L == 1 and state is not None:
            o, new_state = delta_product_step(q[:, 0], k[:, 0], v[:, 0], beta[:, 0],
                                              None if log_gate is None else log_gate[:, 0], state)
            o = o[:, None]
        else:
            o, new_state = chunk_delta_product(q, k, v, beta, log_gate, cfg.chunk_size, state,
                                               output_final_state=cache is not None)
        if cache is not None and new_state is not None:
            cache.update(self.layer_idx, new_state)
        return self.o_proj(o.reshape(B, L, H * V))
