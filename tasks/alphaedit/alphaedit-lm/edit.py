"""Sequential editing of the pre-trained TinyLM with AlphaEdit, batch after batch.

    python edit.py --batches 3 --batch-size 4
"""
from __future__ import annotations

import argparse

import torch

from alphaedit.config import EditConfig, PretrainConfig
from alphaedit.data import EditBatch, FactWorld
from alphaedit.editor import apply_edits, init_editor_state
from alphaedit.model import TinyLM
from evaluate import EditMetrics, edit_metrics, untouched_predictions
from train import build


def plan_edits(world: FactWorld, n_batches: int, batch_size: int,
               seed: int) -> tuple[list[EditBatch], torch.Tensor]:
    """Disjoint batches of edits (each a fact given another object, in a random template), and the facts that
    no batch touches."""
    g = torch.Generator().manual_seed(seed)
    facts = world.facts()[torch.randperm(world.facts().shape[0], generator=g)]
    n_edit = n_batches * batch_size
    if n_edit >= facts.shape[0]:
        raise ValueError("more edits than facts")
    edited, untouched = facts[:n_edit], facts[n_edit:]
    current = world.objects[edited[:, 0], edited[:, 1]]
    new = (current + torch.randint(1, world.n_objects, (n_edit,), generator=g)) % world.n_objects
    templates = torch.randint(0, 2, (n_edit,), generator=g)
    batches = [world.edit_batch(edited[i:i + batch_size], new[i:i + batch_size], templates[i:i + batch_size])
               for i in range(0, n_edit, batch_size)]
    return batches, untouched


def run(model: TinyLM, world: FactWorld, cfg: EditConfig, n_batches: int, batch_size: int, n_random: int = 32,
        seed: int = 0) -> list[EditMetrics]:
    """Edit `n_batches` batches one after the other, preserving the untouched facts and random text."""
    batches, untouched = plan_edits(world, n_batches, batch_size, seed)
    corpus = world.preserved_corpus(untouched, n_random, torch.Generator().manual_seed(seed + 1))
    state = init_editor_state(model, corpus, cfg)
    before = untouched_predictions(model, world, untouched)
    history = []
    for k, batch in enumerate(batches):
        apply_edits(model, batch, state, cfg)
        history.append(edit_metrics(model, batches[:k + 1], world, untouched, before))
    return history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--layers", type=int, nargs="+", default=list(EditConfig.layers))
    parser.add_argument("--threshold", type=float, default=EditConfig.nullspace_threshold)
    args = parser.parse_args()
    model, world = build(PretrainConfig())
    cfg = EditConfig(layers=tuple(args.layers), nullspace_threshold=args.threshold)
    for k, m in enumerate(run(model, world, cfg, args.batches, args.batch_size)):
        print(f"after batch {k + 1}: efficacy {m.efficacy:.3f}  target prob {m.target_prob:.3f}  "
              f"specificity {m.specificity:.3f}")


if __name__ == "__main__":
    main()
