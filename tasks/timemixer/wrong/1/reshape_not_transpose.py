# Wrong: reshapes (B, T, D) to (B, D, T) instead of transposing, scrambling time and channels.
class MultiScaleSeasonMixing:
    def forward(self, seasons):
        mixed = [seasons[0]]
        for m, layer in enumerate(self.down_mixing):
            b, t, d = mixed[m].shape
            low = layer(mixed[m].reshape(b, d, t))
            mixed.append(seasons[m + 1] + low.reshape(b, -1, d))
        return mixed
