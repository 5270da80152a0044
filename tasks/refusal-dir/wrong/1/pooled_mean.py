# wrong: candidates as the mean over all positions of the prompt instead of one candidate per post-instruction position
def candidate_directions(model: TinyChatLM, harmful: Batch, harmless: Batch, n_post: int) -> torch.Tensor:
    """Candidate refusal directions.

    Args:
        model: the chat model (not modified).
        harmful, harmless: (input_ids, attention_mask) batches of templated prompts, left-padded.
        n_post: number of post-instruction positions, the last n_post positions of every prompt.

    Returns:
        Tensor (n_post, n_layers, d_model) in the model's dtype; entry [i, l] belongs to position
        i - n_post (relative to the end of the prompt) and layer l.
    """
    names = [f"blocks.{l}.hook_resid_pre" for l in range(model.n_layers)]

    def means(batch: Batch) -> torch.Tensor:
        with torch.no_grad():
            _, cache = model.run_with_cache(batch[0], batch[1], names=names)
        acts = torch.stack([cache[n][:, -n_post:, :] for n in names], dim=2)  # (B, n_post, L, d)
        return acts.mean(dim=0).mean(dim=0, keepdim=True).expand(n_post, -1, -1)

    return means(harmful) - means(harmless)
