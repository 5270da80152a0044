# wrong: activation addition of the unit vector r_hat instead of r
def add_addition_hooks(model: TinyChatLM, direction: torch.Tensor, layer: int) -> list[RemovableHandle]:
    """Register forward hooks that apply activation addition of `direction` (d_model,) at layer `layer`.

    Returns the handles; removing them restores the model."""

    def add(module, inputs, output):
        return output + (direction / direction.norm()).to(output.dtype)

    return [model.blocks[layer].hook_resid_pre.register_forward_hook(add)]
