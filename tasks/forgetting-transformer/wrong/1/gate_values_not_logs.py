# wrong: the forget gate values f_t are passed where their logs are expected
class ForgettingAttention(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.cfg.n_heads
        q = split_heads(self.q_proj(x), h)
        k = split_heads(self.k_proj(x), h)
        v = split_heads(self.v_proj(x), h)
        log_fgate = torch.sigmoid(self.fgate_proj(x))
        if self.cfg.block == "pro":
            k = token_shift(k, torch.sigmoid(self.k_shift_proj(x)))
            v = token_shift(v, torch.sigmoid(self.v_shift_proj(x)))
            q, k = self.q_norm(q), self.k_norm(k)
        out = forgetting_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                   log_fgate.transpose(1, 2)).transpose(1, 2)
        if self.cfg.block == "pro":
            out = self.out_norm(out) * torch.sigmoid(split_heads(self.ogate_proj(x), h))
        return self.o_proj(merge_heads(out))
