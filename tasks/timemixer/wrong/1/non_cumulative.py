# Wrong: each coarser scale is mixed from the *unmixed* finer season s_{m-1}, not from hat s_{m-1}.
class MultiScaleSeasonMixing:
    def forward(self, seasons):
        mixed = [seasons[0]]
        for m, layer in enumerate(self.down_mixing):
            from_finer = layer(seasons[m].transpose(1, 2)).transpose(1, 2)
            mixed.append(seasons[m + 1] + from_finer)
        return mixed
