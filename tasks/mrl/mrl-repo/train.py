"""Train the encoder and the Matryoshka classifiers on synthetic data, then report the accuracy at every
granularity, adaptive classification, and funnel retrieval.

    python train.py [--efficient] [--steps 200]
"""

from __future__ import annotations

import argparse

import torch

from mrl.config import MRLConfig
from mrl.data import make_data
from mrl.encoder import Encoder, classifier_params
from mrl.matryoshka import adaptive_classify, funnel_retrieval, matryoshka_logits, matryoshka_loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--efficient", action="store_true")
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    cfg = MRLConfig(efficient=args.efficient)
    x, y = make_data(400)
    encoder = Encoder(x.shape[1], cfg.dims[-1])
    weights, biases = classifier_params(cfg, 5)
    opt = torch.optim.Adam(list(encoder.parameters()) + weights + biases, lr=1e-2)
    for _ in range(args.steps):
        loss = matryoshka_loss(matryoshka_logits(encoder(x), weights, biases, cfg), y, cfg)
        opt.zero_grad()
        loss.backward()
        opt.step()
    xt, yt = make_data(200, seed=1)
    with torch.no_grad():
        z = encoder(xt)
        logits = matryoshka_logits(z, weights, biases, cfg)
        for m, lg in zip(cfg.dims, logits):
            print(f"dim {m:3d}: accuracy {(lg.argmax(1) == yt).double().mean():.3f}")
        pred, used = adaptive_classify(logits, [0.9, 0.9, 0.9, 0.0])
        print(f"adaptive: accuracy {(pred == yt).double().mean():.3f}, mean size {torch.tensor(cfg.dims)[used].double().mean():.1f}")
        hits = funnel_retrieval(z[:20], encoder(x), [(4, 50), (16, 10), (32, 1)])
        print(f"funnel retrieval: top-1 label match {(y[hits[:, 0]] == yt[:20]).double().mean():.3f}")


if __name__ == "__main__":
    main()
