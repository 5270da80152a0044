# WRONG: MNTP runs the model with causal attention
def mntp_step(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, tokenizer, mask_prob: float,
              generator: torch.Generator) -> torch.Tensor:
    masked_ids, labels = mask_tokens(input_ids, attention_mask, tokenizer.special_ids, tokenizer.mask_id,
                                     mask_prob, generator)
    hidden = model(masked_ids, attention_mask, bidirectional=False)
    return mntp_loss(model.logits(hidden), labels)
