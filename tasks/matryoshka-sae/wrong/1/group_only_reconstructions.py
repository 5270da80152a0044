# Wrong: each term reconstructs x from its own group of latents only, not from the whole prefix.
class MatryoshkaSAE:
    def forward(self, x):
        pre_acts, features = self.encode(x)
        recs, start = [], 0
        for size in self.cfg.group_sizes:
            recs.append(features[..., start:start + size] @ self.W_dec[start:start + size] + self.b_dec)
            start += size
        return SAEOutput(pre_acts=pre_acts, features=features, reconstructions=recs)
