# WRONG: thinking never ends on the model's own end-of-thinking prediction (only Cold Stop / budget)
@torch.no_grad()
def soft_thinking_generate(model: TinyLM, prompt_ids: torch.Tensor, cfg: SoftThinkingConfig, end_think_id: int,
                           eos_id: int) -> SoftThinkingOutput:
    """Generate with Soft Thinking for one prompt.

    Args:
        model: the language model.
        prompt_ids: (seq,) long, the prompt, ending with the start-of-thinking token.
        cfg: decoding settings.
        end_think_id: id of the end-of-thinking token.
        eos_id: id of the end-of-sequence token.
    Returns:
        SoftThinkingOutput (softthink/utils.py).
    """
    weight = model.embedding_weight
    embeds = model.embed(prompt_ids)
    monitor = ColdStop(cfg.cold_stop_threshold, cfg.cold_stop_patience) if cfg.cold_stop else None
    concepts: list[torch.Tensor] = []
    reason = "max_think"
    while len(concepts) < cfg.max_think_tokens:
        logits = model(inputs_embeds=embeds.unsqueeze(0))[0, -1]
        ct = concept_token(logits, cfg)
        concepts.append(ct)
        embeds = torch.cat([embeds, concept_embedding(ct, weight, cfg.mixture).unsqueeze(0)], dim=0)
        if monitor is not None and monitor.update(float(entropy(ct))):
            reason = "cold_stop"
            break
    embeds = torch.cat([embeds, model.embed(torch.tensor([end_think_id]))], dim=0)
    answer = greedy_continue(model, embeds, cfg.max_answer_tokens, eos_id)
    vocab = weight.shape[0]
    stacked = torch.stack(concepts) if concepts else torch.zeros(0, vocab, dtype=weight.dtype)
    return SoftThinkingOutput(stacked, answer, reason)
