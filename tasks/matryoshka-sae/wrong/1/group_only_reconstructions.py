# Wrong: each term reconstructs x from its own group of latents only, not from the whole prefix.
class MatryoshkaSAE:
    def forward(self, x):
        pre_acts, features = self.encode(x)
        ends = list(accumulate(self.cfg.group_sizes))
        starts = [0] + ends[:-1]
        recs = [features[..., a:b] @ self.W_dec[a:b] + self.b_dec for a, b in zip(starts, ends)]
        return SAEOutput(pre_acts=pre_acts, features=features, reconstructions=recs)
