# WRONG: matching directions swapped: recall maximises over reference tokens, precision over candidate tokens.
def bert_score(
    ref_emb: torch.Tensor,
    ref_ids: torch.Tensor,
    cand_emb: torch.Tensor,
    cand_ids: torch.Tensor,
    idf: torch.Tensor | None = None,
    special_ids: Sequence[int] = SPECIAL_IDS,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    special = torch.tensor(list(special_ids), dtype=ref_ids.dtype, device=ref_ids.device)
    ref_keep = ~torch.isin(ref_ids, special)
    cand_keep = ~torch.isin(cand_ids, special)
    ref_unit = ref_emb / ref_emb.norm(dim=-1, keepdim=True)
    cand_unit = cand_emb / cand_emb.norm(dim=-1, keepdim=True)
    sim = ref_unit @ cand_unit.transpose(1, 2)
    sim = sim.masked_fill(~(ref_keep[:, :, None] & cand_keep[:, None, :]), float("-inf"))
    if idf is None:
        ref_w = ref_keep.to(ref_emb.dtype)
        cand_w = cand_keep.to(cand_emb.dtype)
    else:
        ref_w = idf[ref_ids] * ref_keep
        cand_w = idf[cand_ids] * cand_keep
    ref_best = torch.where(ref_keep, sim.amax(dim=2), 0.0)
    cand_best = torch.where(cand_keep, sim.amax(dim=1), 0.0)
    precision = (ref_w * ref_best).sum(dim=1) / ref_w.sum(dim=1)
    recall = (cand_w * cand_best).sum(dim=1) / cand_w.sum(dim=1)
    total = precision + recall
    f1 = torch.where(total == 0, 0.0, 2 * precision * recall / total)
    return precision, recall, f1
