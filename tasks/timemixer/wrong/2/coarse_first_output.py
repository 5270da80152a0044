# Wrong: returns the mixed trends in processing order (coarsest first) instead of finest first.
class MultiScaleTrendMixing:
    def forward(self, trends):
        mixed = [trends[-1]]
        for m in range(len(self.up_mixing) - 1, -1, -1):
            from_coarser = self.up_mixing[m](mixed[-1].transpose(1, 2)).transpose(1, 2)
            mixed.append(trends[m] + from_coarser)
        return mixed
