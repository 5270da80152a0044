# wrong: the padding slots of the initial patch representations keep E_C's bias (not zeroed as documented)
class LocalEncoder:
    def forward(self, tokens: torch.Tensor, patches: Patches) -> tuple[torch.Tensor, torch.Tensor]:
        if patches.patch_ids.shape != tokens.shape:
            raise ValueError("patches do not match the tokens")
        h = self.embed(tokens)
        p = self.patch_proj(pool_patches(h, patches, self.cfg.pooling))
        for layer, cross in zip(self.layers, self.cross):
            p = cross(p, h, patches)
            h = layer(h)
        return p, h
