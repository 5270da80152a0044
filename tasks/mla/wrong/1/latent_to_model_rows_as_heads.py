# W^O split into heads along its output rows instead of its input columns
class MultiHeadLatentAttention:
    def absorbed_weights(self) -> AbsorbedWeights:
        """W^UK folded into the query side and W^UV into W^O (see `AbsorbedWeights`); differentiable."""
        n, dh = self.cfg.n_heads, self.cfg.head_dim
        w_uq = self.w_uq.weight.view(n, dh, -1)
        w_uk = self.w_uk.weight.view(n, dh, -1)
        w_uv = self.w_uv.weight.view(n, dh, -1)
        w_o = self.w_o.weight.reshape(n, dh, -1).transpose(1, 2)
        return AbsorbedWeights(w_uq.transpose(1, 2) @ w_uk, w_uv.transpose(1, 2) @ w_o.transpose(1, 2))
