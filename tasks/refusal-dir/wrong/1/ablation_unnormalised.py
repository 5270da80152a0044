# wrong: ablation with the un-normalised r (x - r r^T x)
def add_ablation_hooks(model: TinyChatLM, direction: torch.Tensor) -> list[RemovableHandle]:
    """Register forward hooks that apply directional ablation of `direction` (d_model,) to the model.

    Returns the handles; removing them restores the model."""
    unit = direction

    def ablate(module, inputs, output):
        r = unit.to(output.dtype)
        return output - (output @ r).unsqueeze(-1) * r

    return [module.register_forward_hook(ablate) for _, module in model.hook_points()]
