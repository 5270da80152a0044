# wrong: ablation subtracts r itself instead of the projection of x on r
def add_ablation_hooks(model: TinyChatLM, direction: torch.Tensor) -> list[RemovableHandle]:
    """Register forward hooks that apply directional ablation of `direction` (d_model,) to the model.

    Returns the handles; removing them restores the model."""
    unit = direction / direction.norm()

    def ablate(module, inputs, output):
        r = unit.to(output.dtype)
        return output - direction.to(output.dtype)

    return [module.register_forward_hook(ablate) for _, module in model.hook_points()]
