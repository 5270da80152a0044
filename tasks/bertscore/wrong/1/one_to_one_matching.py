# WRONG: one-to-one (optimal assignment) matching instead of greedy many-to-one matching.
def bert_score(
    ref_emb: torch.Tensor,
    ref_ids: torch.Tensor,
    cand_emb: torch.Tensor,
    cand_ids: torch.Tensor,
    idf: torch.Tensor | None = None,
    special_ids: Sequence[int] = SPECIAL_IDS,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    from scipy.optimize import linear_sum_assignment

    special = torch.tensor(list(special_ids), dtype=ref_ids.dtype, device=ref_ids.device)
    precisions, recalls = [], []
    for b in range(ref_ids.shape[0]):
        rk = ~torch.isin(ref_ids[b], special)
        ck = ~torch.isin(cand_ids[b], special)
        r = ref_emb[b][rk] / ref_emb[b][rk].norm(dim=-1, keepdim=True)
        c = cand_emb[b][ck] / cand_emb[b][ck].norm(dim=-1, keepdim=True)
        sim = r @ c.T
        rw = torch.ones(r.shape[0], dtype=r.dtype) if idf is None else idf[ref_ids[b][rk]]
        cw = torch.ones(c.shape[0], dtype=c.dtype) if idf is None else idf[cand_ids[b][ck]]
        rows, cols = linear_sum_assignment(sim.detach().numpy(), maximize=True)
        ref_best = torch.zeros(r.shape[0], dtype=r.dtype)
        cand_best = torch.zeros(c.shape[0], dtype=c.dtype)
        ref_best[rows] = sim[rows, cols]
        cand_best[cols] = sim[rows, cols]
        recalls.append((rw * ref_best).sum() / rw.sum())
        precisions.append((cw * cand_best).sum() / cw.sum())
    precision, recall = torch.stack(precisions), torch.stack(recalls)
    total = precision + recall
    f1 = torch.where(total == 0, 0.0, 2 * precision * recall / total)
    return precision, recall, f1
