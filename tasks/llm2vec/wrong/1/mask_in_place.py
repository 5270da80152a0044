# WRONG: writes the mask token into the caller's input_ids (in place)
def mask_tokens(input_ids: torch.Tensor, attention_mask: torch.Tensor, special_ids: list[int], mask_id: int,
                mask_prob: float, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    special = torch.isin(input_ids, torch.tensor(special_ids, dtype=input_ids.dtype))
    candidates = attention_mask.bool() & ~special
    chosen = draw_mask_positions(candidates, mask_prob, generator)
    labels = torch.full_like(input_ids, IGNORE_INDEX).masked_scatter(chosen, input_ids[chosen])
    masked_ids = input_ids.masked_fill_(chosen, mask_id)
    return masked_ids, labels
