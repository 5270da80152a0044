# WRONG: targets at every real token, not only at the masked ones
def mask_tokens(input_ids: torch.Tensor, attention_mask: torch.Tensor, special_ids: list[int], mask_id: int,
                mask_prob: float, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    special = torch.isin(input_ids, torch.tensor(special_ids, dtype=input_ids.dtype))
    candidates = attention_mask.bool() & ~special
    chosen = draw_mask_positions(candidates, mask_prob, generator)
    masked_ids = input_ids.masked_fill(chosen, mask_id)
    labels = input_ids.masked_fill(~candidates, IGNORE_INDEX)
    return masked_ids, labels
