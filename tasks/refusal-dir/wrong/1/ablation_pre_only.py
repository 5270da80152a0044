# wrong: ablation only at the input of each layer (misses the intermediate and the final states)
def add_ablation_hooks(model: TinyChatLM, direction: torch.Tensor) -> list[RemovableHandle]:
    """Register forward hooks that apply directional ablation of `direction` (d_model,) to the model.

    Returns the handles; removing them restores the model."""
    unit = direction / direction.norm()

    def ablate(module, inputs, output):
        r = unit.to(output.dtype)
        return output - (output @ r).unsqueeze(-1) * r

    return [module.register_forward_hook(ablate) for name, module in model.hook_points() if name.endswith('pre')]
