# Wrong: stops the gradient through the finer scale, so coarse-scale losses no longer train fine scales.
class MultiScaleSeasonMixing:
    def forward(self, seasons):
        mixed = [seasons[0]]
        for m, layer in enumerate(self.down_mixing):
            from_finer = layer(mixed[m].detach().transpose(1, 2)).transpose(1, 2)
            mixed.append(seasons[m + 1] + from_finer)
        return mixed
