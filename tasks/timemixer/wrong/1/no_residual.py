# Wrong: the coarser season is replaced by the down-mixed finer one (residual s_m dropped).
class MultiScaleSeasonMixing:
    def forward(self, seasons):
        mixed = [seasons[0]]
        for m, layer in enumerate(self.down_mixing):
            mixed.append(layer(mixed[m].transpose(1, 2)).transpose(1, 2))
        return mixed
