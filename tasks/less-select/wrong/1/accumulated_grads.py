# WRONG: per-example gradients by backward() into .grad without zeroing: each row accumulates the earlier ones
def example_gradients(model: TinyLoRALM, examples: list[Example]) -> torch.Tensor:
    params = model.trainable_parameters()
    rows = []
    for example in examples:
        model.loss(example).backward()
        rows.append(torch.cat([p.grad.reshape(-1).clone() for p in params]))
    return torch.stack(rows)
