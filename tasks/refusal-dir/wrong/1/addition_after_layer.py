# wrong: activation addition at the output of layer l instead of its input
def add_addition_hooks(model: TinyChatLM, direction: torch.Tensor, layer: int) -> list[RemovableHandle]:
    """Register forward hooks that apply activation addition of `direction` (d_model,) at layer `layer`.

    Returns the handles; removing them restores the model."""

    def add(module, inputs, output):
        return output + direction.to(output.dtype)

    return [model.blocks[layer].hook_resid_post.register_forward_hook(add)]
