# wrong: the label-word probabilities are not renormalised over the label words
def label_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, prompt: str) -> torch.Tensor:
    logprobs = model.next_token_logprobs(tokenizer.encode(prompt))
    p = torch.exp(logprobs[template.label_ids(tokenizer)])
    return p
