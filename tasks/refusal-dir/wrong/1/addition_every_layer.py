# wrong: activation addition at every layer instead of only at layer l
def add_addition_hooks(model: TinyChatLM, direction: torch.Tensor, layer: int) -> list[RemovableHandle]:
    """Register forward hooks that apply activation addition of `direction` (d_model,) at layer `layer`.

    Returns the handles; removing them restores the model."""

    def add(module, inputs, output):
        return output + direction.to(output.dtype)

    return [b.hook_resid_pre.register_forward_hook(add) for b in model.blocks]
