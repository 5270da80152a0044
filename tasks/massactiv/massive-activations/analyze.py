"""Find the massive activations of a tiny LM and measure what zeroing them does to its loss."""
from __future__ import annotations

import argparse

import torch

from massact.detect import find_massive_activations, layer_counts, locations, top_magnitudes
from massact.intervene import edit_for
from massact.model import TinyLM, TinyLMConfig, lm_loss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq-len", type=int, default=16)
    ap.add_argument("--abs-threshold", type=float, default=100.0)
    ap.add_argument("--ratio-threshold", type=float, default=1000.0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    cfg = TinyLMConfig(massive_dims=(5, 17), massive_value=2500.0, massive_start=2, massive_end=5)
    model = TinyLM(cfg).eval()
    tokens = torch.randint(0, cfg.vocab_size, (args.batch, args.seq_len))
    mask = torch.ones_like(tokens)
    mask[-1, -3:] = 0  # one padded sequence

    with torch.no_grad():
        logits, hidden = model(tokens, attention_mask=mask)
        base = lm_loss(logits, tokens, mask)
        records = find_massive_activations(hidden, args.abs_threshold, args.ratio_threshold, attention_mask=mask)

        print("layer  top1      top2      top3      median")
        for layer, row in enumerate(top_magnitudes(hidden).tolist()):
            print(f"{layer:>5}  " + "  ".join(f"{v:8.2f}" for v in row))
        print("massive activations per layer:", layer_counts(records, len(hidden)))
        print("(token, dim) locations:", sorted(locations(records)))
        for r in records[:8]:
            print(f"  layer {r.layer} seq {r.batch} token {r.token} dim {r.dim}: {r.value:.1f} ({r.ratio:.0f}x median)")

        for mode in ("zero", "mean"):
            edited, _ = model(tokens, attention_mask=mask, edit=edit_for(records, mode, reference=hidden))
            print(f"loss {base.item():.4f} -> {lm_loss(edited, tokens, mask).item():.4f} after setting them to {mode}")


if __name__ == "__main__":
    main()
