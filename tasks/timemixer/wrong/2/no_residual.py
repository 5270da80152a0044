# Wrong: the finer trend is replaced by the up-mixed coarser one (residual t_m dropped).
class MultiScaleTrendMixing:
    def forward(self, trends):
        mixed = [trends[-1]]
        for m in range(len(self.up_mixing) - 1, -1, -1):
            mixed.insert(0, self.up_mixing[m](mixed[0].transpose(1, 2)).transpose(1, 2))
        return mixed
