# WRONG: special tokens (<bos>, <eos>, "_") can be masked: only padding is excluded
def mask_tokens(input_ids: torch.Tensor, attention_mask: torch.Tensor, special_ids: list[int], mask_id: int,
                mask_prob: float, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    candidates = attention_mask.bool()
    chosen = draw_mask_positions(candidates, mask_prob, generator)
    masked_ids = input_ids.masked_fill(chosen, mask_id)
    labels = torch.full_like(input_ids, IGNORE_INDEX).masked_scatter(chosen, input_ids[chosen])
    return masked_ids, labels
