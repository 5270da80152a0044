# wrong: cross-attention l reads the byte states after encoder layer l (h_l) instead of h_{l-1} (Eq. 11)
class LocalEncoder:
    def forward(self, tokens: torch.Tensor, patches: Patches) -> tuple[torch.Tensor, torch.Tensor]:
        if patches.patch_ids.shape != tokens.shape:
            raise ValueError("patches do not match the tokens")
        h = self.embed(tokens)
        p = self.patch_proj(pool_patches(h, patches, self.cfg.pooling))
        p = p.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
        for layer, cross in zip(self.layers, self.cross):
            h = layer(h)
            p = cross(p, h, patches)
        return p, h
