# Wrong: BatchTopK is used in eval mode too; the inference threshold is never applied.
class MatryoshkaSAE:
    def encode(self, x):
        pre_acts = (x - self.b_dec) @ self.W_enc + self.b_enc
        flat = pre_acts.reshape(-1, pre_acts.shape[-1])
        return pre_acts, batch_topk(flat, self.cfg.k).reshape(pre_acts.shape)
