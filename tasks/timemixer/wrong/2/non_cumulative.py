# Wrong: each finer scale is mixed from the *unmixed* coarser trend t_{m+1}, not from hat t_{m+1}.
class MultiScaleTrendMixing:
    def forward(self, trends):
        mixed = [trends[-1]]
        for m in range(len(self.up_mixing) - 1, -1, -1):
            from_coarser = self.up_mixing[m](trends[m + 1].transpose(1, 2)).transpose(1, 2)
            mixed.insert(0, trends[m] + from_coarser)
        return mixed
