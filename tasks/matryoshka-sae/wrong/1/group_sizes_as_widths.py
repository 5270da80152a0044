# Wrong: the group sizes are used as the nested dictionary sizes (no cumulative sum).
class MatryoshkaSAE:
    def forward(self, x):
        pre_acts, features = self.encode(x)
        return SAEOutput(pre_acts=pre_acts, features=features,
                         reconstructions=[self.decode(features, width) for width in self.cfg.group_sizes])
