# Wrong: the encoder reads x instead of x - b_dec.
class MatryoshkaSAE:
    def encode(self, x):
        pre_acts = x @ self.W_enc + self.b_enc
        if self.training:
            if x.dim() != 2:
                raise ValueError("a training batch must be 2-D")
            return pre_acts, batch_topk(pre_acts, self.cfg.k)
        return pre_acts, pre_acts * (pre_acts > self.threshold).to(pre_acts.dtype)
