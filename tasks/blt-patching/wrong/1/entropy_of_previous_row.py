# wrong: takes row t of next_byte_logits as the prediction of byte t + 1, so H(x_t) is read from row t - 1
@torch.no_grad()
def compute_patches(tokens: torch.Tensor, entropy_model: ByteLM, cfg: PatchingConfig) -> Patches:
    entropies = byte_entropies(entropy_model.next_byte_logits(tokens))
    shifted = torch.cat([entropies[:, :1], entropies[:, :-1]], dim=1)
    return patches_from_starts(entropy_patch_starts(shifted, cfg))
