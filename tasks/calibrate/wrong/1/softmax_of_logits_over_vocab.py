# wrong: the class probabilities are a softmax over the label words of the log-probabilities divided by the vocabulary size
def label_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, prompt: str) -> torch.Tensor:
    logprobs = model.next_token_logprobs(tokenizer.encode(prompt))
    return torch.softmax(logprobs[template.label_ids(tokenizer)] / logprobs.numel(), dim=-1)
