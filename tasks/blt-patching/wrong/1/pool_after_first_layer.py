# wrong: the patch queries are pooled from the byte states after the first encoder layer, not from e (Eq. 9)
class LocalEncoder:
    def forward(self, tokens: torch.Tensor, patches: Patches) -> tuple[torch.Tensor, torch.Tensor]:
        if patches.patch_ids.shape != tokens.shape:
            raise ValueError("patches do not match the tokens")
        h = self.embed(tokens)
        first = self.layers[0](h) if len(self.layers) else h
        p = self.patch_proj(pool_patches(first, patches, self.cfg.pooling))
        p = p.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
        for layer, cross in zip(self.layers, self.cross):
            p = cross(p, h, patches)
            h = layer(h)
        return p, h
