"""Find reading vectors of a tiny model from contrast pairs, evaluate them per layer, then steer with one."""
from __future__ import annotations

import argparse

import torch

from repe.control import add_vector
from repe.data import contrast_pairs, last_token_states, split_pairs
from repe.model import ModelConfig, TinyCausalLM
from repe.rep_reading import project, reading_vectors
from repe.scoring import best_layer, heldout_pair_accuracy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=64)
    ap.add_argument("--train", type=int, default=32)
    ap.add_argument("--alpha", type=float, default=4.0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    cfg = ModelConfig()
    model = TinyCausalLM(cfg).eval()
    layers = list(range(1, cfg.n_layers + 1))  # the embedding layer cannot see the persona token
    train, test = split_pairs(contrast_pairs(args.pairs, 6, cfg.vocab_size, args.seed), args.train)

    rv = reading_vectors(last_token_states(model, train.first, layers), last_token_states(model, train.second, layers),
                         train.first_is_positive, n_components=2)
    acc = heldout_pair_accuracy(rv.directions, last_token_states(model, test.first, layers),
                                last_token_states(model, test.second, layers), test.first_is_positive)
    print("layer  evr(pc1)  train acc  held-out acc")
    for i, l in enumerate(layers):
        print(f"{l:>5}  {rv.explained_variance_ratio[i, 0]:8.3f}  {rv.pair_accuracy[i, 0]:9.3f}  {acc[i, 0]:12.3f}")

    layer = best_layer(acc, layers)
    direction = rv.directions[layers.index(layer), 0].float()
    neg = torch.where(test.first_is_positive[:, None], test.second, test.first)
    with torch.no_grad():
        _, plain = model(neg)
        _, steered = model(neg, edit=add_vector(layer, direction, args.alpha))
    read_layer = layers[-1]
    d_last = rv.directions[-1:, :1]
    before = project(plain[read_layer][None, :, -1], d_last).mean().item()
    after = project(steered[read_layer][None, :, -1], d_last).mean().item()
    print(f"steering negative stimuli at layer {layer} (alpha={args.alpha}): "
          f"mean score on layer {read_layer}'s reading vector {before:.3f} -> {after:.3f}")


if __name__ == "__main__":
    main()
