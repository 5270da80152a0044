# WRONG: validation features also preconditioned by Adam
def checkpoint_features(
    model: TinyLoRALM,
    checkpoint: Checkpoint,
    train: list[Example],
    validation: dict[str, list[Example]],
    projection: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The projected gradient features of the pool and of the validation subtasks at one checkpoint.

    Args:
        model: the model; its trainable parameters are set to the checkpoint's (and left so).
        checkpoint: theta_i with Adam's state.
        train: the pool of n candidate examples.
        validation: J subtasks, each a list of validation examples.
        projection: (P, d) projection matrix (less/projection.py).
    Returns:
        (n, d) features of the pool examples and (J, d) features of the subtasks (rows in the dict's order).
    """
    model.load_trainable(checkpoint.params)
    proj = projection.to(model.lora_A.dtype)
    train_feats = adam_directions(example_gradients(model, train), checkpoint.adam, model.trainable_names()) @ proj
    val_feats = torch.stack([(adam_directions(example_gradients(model, examples), checkpoint.adam, model.trainable_names()) @ proj).mean(dim=0)
                             for examples in validation.values()])
    return train_feats, val_feats
