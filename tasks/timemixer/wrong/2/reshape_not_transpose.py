# Wrong: reshapes (B, T, D) to (B, D, T) instead of transposing, scrambling time and channels.
class MultiScaleTrendMixing:
    def forward(self, trends):
        mixed = [trends[-1]]
        for m in range(len(self.up_mixing) - 1, -1, -1):
            b, t, d = mixed[0].shape
            up = self.up_mixing[m](mixed[0].reshape(b, d, t))
            mixed.insert(0, trends[m] + up.reshape(b, -1, d))
        return mixed
