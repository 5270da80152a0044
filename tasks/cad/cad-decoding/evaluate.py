"""Compare plain decoding with context-aware decoding (CAD) on toy knowledge-conflict prompts.

    python evaluate.py --alpha 0.5 --train-steps 30

The tiny LM is randomly initialised from a seed and, optionally, trained for a few steps on the toy
examples (context + question -> answer). The script then reports, for each decoder, how often the first
generated token is the answer the context supports, and prints the continuations.
"""

from __future__ import annotations

import argparse

import torch
from cad.data import EXAMPLES, Vocab, batch
from cad.decoding import cad_generate, cad_log_probs, generate
from cad.model import LMConfig, build_model


def train(model, vocab: Vocab, steps: int, lr: float = 3e-3) -> None:
    """A few steps of next-token training on the full toy sequences (with context)."""
    seqs = [vocab.encode(f"{e.context} {e.question} {e.answer} .") + [vocab.eos_id] for e in EXAMPLES]
    ids = torch.tensor(seqs)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for step in range(steps):
        logits = model(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == steps - 1:
            print(f"step {step}: loss {loss.item():.3f}")
    model.eval()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--train-steps", type=int, default=30)
    parser.add_argument("--max-new-tokens", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    vocab = Vocab()
    model = build_model(seed=args.seed, cfg=LMConfig(vocab_size=len(vocab)))
    if args.train_steps:
        train(model, vocab, args.train_steps)

    context_ids, query_ids = batch(EXAMPLES, vocab)
    answers = torch.tensor([vocab.stoi[e.answer] for e in EXAMPLES])
    plain = generate(model, torch.cat([context_ids, query_ids], dim=1), args.max_new_tokens, vocab.eos_id, vocab.pad_id)
    cad = cad_generate(model, context_ids, query_ids, args.max_new_tokens, alpha=args.alpha,
                       eos_token_id=vocab.eos_id, pad_token_id=vocab.pad_id)
    sampled = cad_generate(model, context_ids, query_ids, args.max_new_tokens, alpha=args.alpha, do_sample=True,
                           generator=torch.Generator().manual_seed(args.seed), eos_token_id=vocab.eos_id,
                           pad_token_id=vocab.pad_id)
    for name, out in [("plain", plain), ("cad", cad), ("cad-sample", sampled)]:
        hit = (out.tokens[:, 0] == answers).float().mean().item()
        print(f"{name:10s} first-token accuracy {hit:.2f}  mean logprob {out.token_logprobs.mean().item():.3f}")
        for row in out.tokens.tolist():
            print("   ", vocab.decode(row))

    # How much does the context move the next-token distribution, and how much does CAD amplify it?
    with torch.no_grad():
        with_ctx = model.next_token_logits(torch.cat([context_ids, query_ids], dim=1))
        without_ctx = model.next_token_logits(query_ids)
    base = torch.log_softmax(with_ctx, dim=-1)
    adjusted = cad_log_probs(with_ctx, without_ctx, args.alpha)
    print("answer log-prob, plain vs CAD:",
          [round(v, 3) for v in base.gather(-1, answers[:, None]).squeeze(-1).tolist()],
          [round(v, 3) for v in adjusted.gather(-1, answers[:, None]).squeeze(-1).tolist()])


if __name__ == "__main__":
    main()
