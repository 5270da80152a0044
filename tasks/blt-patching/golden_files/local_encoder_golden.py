"""Entropy patching, hash n-gram byte embeddings and the local encoder with cross-attention pooling."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from blt.config import BYTE_VOCAB, EncoderConfig, PatchingConfig, PoolingKind
from blt.entropy_model import ByteLM
from blt.hashing import roll_poly_hash
from blt.layers import TransformerBlock, merge_heads, split_heads
from blt.patches import Patches


def byte_entropies(logits: torch.Tensor) -> torch.Tensor:
    """Entropies of next-byte distributions.

    Args:
        logits: (B, T, V) floating point; row t holds the entropy model's logits for byte t, as returned by
            `ByteLM.next_byte_logits`.

    Returns:
        (B, T), dtype of logits, in nats; finite for finite logits. Computed in the dtype of logits throughout
        (float32 or float64; no up- or down-cast).
    """
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_patch_starts(entropies: torch.Tensor, cfg: PatchingConfig) -> torch.Tensor:
    """Where entropy patching begins a new patch.

    Args:
        entropies: (B, T) floating point, T >= 1; entry t is the next-byte entropy H(x_t) of byte t.
        cfg: the patching method and its threshold.

    Returns:
        (B, T) bool, True where byte t is the first byte of a patch. Byte 0 always begins a patch.

    Raises:
        ValueError: if entropies is not 2-d or has no positions.
    """
    if entropies.dim() != 2 or entropies.shape[1] == 0:
        raise ValueError(f"entropies must have shape (B, T) with T >= 1, got {tuple(entropies.shape)}")
    if cfg.method == "global":
        starts = entropies > cfg.threshold
    else:
        starts = torch.zeros_like(entropies, dtype=torch.bool)
        starts[:, 1:] = entropies[:, 1:] - entropies[:, :-1] > cfg.threshold
    starts[:, 0] = True
    return starts


def patches_from_starts(starts: torch.Tensor) -> Patches:
    """The patches whose first bytes are marked by `starts`.

    Args:
        starts: (B, T) bool, True at the first byte of every patch.

    Returns:
        The `Patches` of the batch.

    Raises:
        ValueError: if starts is not a 2-d bool tensor or a sequence does not begin with a patch start.
    """
    if starts.dim() != 2 or starts.dtype != torch.bool or starts.shape[1] == 0:
        raise ValueError("starts must be a (B, T) bool tensor with T >= 1")
    if not bool(starts[:, 0].all()):
        raise ValueError("every sequence must begin a patch at byte 0")
    patch_ids = starts.long().cumsum(dim=1) - 1
    n_patches = starts.long().sum(dim=1)
    lengths = torch.zeros(starts.shape[0], int(n_patches.max()), dtype=torch.long, device=starts.device)
    lengths.scatter_add_(1, patch_ids, torch.ones_like(patch_ids))
    return Patches(patch_ids=patch_ids, n_patches=n_patches, lengths=lengths)


@torch.no_grad()
def compute_patches(tokens: torch.Tensor, entropy_model: ByteLM, cfg: PatchingConfig) -> Patches:
    """Entropy patching of a batch of byte sequences.

    Args:
        tokens: (B, T) int64 byte values, T >= 1.
        entropy_model: the small byte language model that gives the next-byte distributions.
        cfg: the patching method and its threshold.

    Returns:
        The `Patches` of the batch.
    """
    entropies = byte_entropies(entropy_model.next_byte_logits(tokens))
    return patches_from_starts(entropy_patch_starts(entropies, cfg))


def ngram_hash_ids(tokens: torch.Tensor, n: int, table_size: int, pad_byte: int) -> torch.Tensor:
    """Row of the hash embedding table of the n-gram ending at every byte.

    Args:
        tokens: (B, T) int64 byte values.
        n: the n-gram size, n >= 1.
        table_size: number of rows of the hash embedding table.
        pad_byte: byte value assumed at the positions before byte 0.

    Returns:
        (B, T) int64 in [0, table_size).

    Raises:
        ValueError: if n < 1.
    """
    if n < 1:
        raise ValueError(f"n-gram size must be positive, got {n}")
    padded = F.pad(tokens, (n - 1, 0), value=pad_byte)
    grams = padded.unfold(1, n, 1)  # grams[b, i] = tokens[b, i - n + 1 .. i], oldest first
    return roll_poly_hash(grams, table_size)


class HashNgramEmbedding(nn.Module):
    """Byte embeddings enriched with hash n-gram embeddings."""

    def __init__(self, cfg: EncoderConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.byte_embed = nn.Embedding(BYTE_VOCAB, cfg.d_local)
        # one table per n-gram size, in the order of cfg.ngram_sizes
        self.hash_embeds = nn.ModuleList(nn.Embedding(cfg.hash_table_size, cfg.d_local) for _ in cfg.ngram_sizes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Embed a batch of byte sequences.

        Args:
            tokens: (B, T) int64 byte values.

        Returns:
            (B, T, d_local), dtype of the parameters.

        Raises:
            ValueError: if a token is outside [0, 256).
        """
        if bool(((tokens < 0) | (tokens >= BYTE_VOCAB)).any()):
            raise ValueError("tokens must be byte values in [0, 256)")
        e = self.byte_embed(tokens)
        for n, table in zip(self.cfg.ngram_sizes, self.hash_embeds):
            e = e + table(ngram_hash_ids(tokens, n, self.cfg.hash_table_size, self.cfg.ngram_pad_byte))
        return e


def pool_patches(byte_states: torch.Tensor, patches: Patches, mode: PoolingKind) -> torch.Tensor:
    """Pool the states of every patch's bytes.

    Args:
        byte_states: (B, T, D) floating point.
        patches: the patches of the batch (patch_ids of shape (B, T)).
        mode: the pooling function, "max" (feature-wise) or "mean".

    Returns:
        (B, P, D), dtype of byte_states, with P = patches.num_slots; the rows of padding slots are zero.
    """
    b, t, d = byte_states.shape
    index = patches.patch_ids.unsqueeze(-1).expand(b, t, d)
    if mode == "mean":
        sums = byte_states.new_zeros(b, patches.num_slots, d).scatter_add(1, index, byte_states)
        return sums / patches.lengths.clamp(min=1).unsqueeze(-1).to(byte_states.dtype)
    start = byte_states.new_full((b, patches.num_slots, d), float("-inf"))
    pooled = start.scatter_reduce(1, index, byte_states, reduce="amax", include_self=True)
    return pooled.masked_fill(~patches.valid.unsqueeze(-1), 0.0)


class PatchCrossAttention(nn.Module):
    """One encoder cross-attention: patches (queries) attend to the bytes (keys and values) of their own patch."""

    def __init__(self, cfg: EncoderConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d_patch, d_local = cfg.d_patch, cfg.d_local
        # cfg.cross_heads heads of width d_local, laid out as blt.layers.split_heads does
        self.q_norm = nn.LayerNorm(d_patch, eps=cfg.norm_eps)
        self.k_norm = nn.LayerNorm(d_local, eps=cfg.norm_eps)
        self.v_norm = nn.LayerNorm(d_local, eps=cfg.norm_eps)
        self.q_proj = nn.Linear(d_patch, d_patch, bias=False)
        self.k_proj = nn.Linear(d_local, d_patch, bias=False)
        self.v_proj = nn.Linear(d_local, d_patch, bias=False)
        self.o_proj = nn.Linear(d_patch, d_patch, bias=False)

    def forward(self, patch_states: torch.Tensor, byte_states: torch.Tensor, patches: Patches) -> torch.Tensor:
        """Update the patch representations from the bytes of each patch.

        Args:
            patch_states: (B, P, d_patch) floating point, P = patches.num_slots.
            byte_states: (B, T, d_local), same dtype.
            patches: the patches of the batch.

        Returns:
            (B, P, d_patch), dtype of patch_states; the rows of padding slots are zero. Computed in that dtype
            throughout (float32 or float64; no up- or down-cast).
        """
        heads = self.cfg.cross_heads
        q = split_heads(self.q_proj(self.q_norm(patch_states)), heads)
        k = split_heads(self.k_proj(self.k_norm(byte_states)), heads)
        v = split_heads(self.v_proj(self.v_norm(byte_states)), heads)
        slots = torch.arange(patches.num_slots, device=patches.patch_ids.device)
        member = patches.patch_ids.unsqueeze(1) == slots.view(1, -1, 1)  # (B, P, T)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~member.unsqueeze(1), torch.finfo(scores.dtype).min)
        mixed = merge_heads(torch.softmax(scores, dim=-1) @ v)
        out = patch_states + self.o_proj(mixed)
        return out.masked_fill(~patches.valid.unsqueeze(-1), 0.0)


class LocalEncoder(nn.Module):
    """The local encoder: hash n-gram embeddings, byte transformer layers, cross-attention pooling into patches."""

    def __init__(self, cfg: EncoderConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = HashNgramEmbedding(cfg)
        self.layers = nn.ModuleList(
            TransformerBlock(cfg.d_local, cfg.local_heads, cfg.window, cfg.norm_eps) for _ in range(cfg.n_layers))
        self.patch_proj = nn.Linear(cfg.d_local, cfg.d_patch)  # E_C
        self.cross = nn.ModuleList(PatchCrossAttention(cfg) for _ in range(cfg.n_layers))

    def forward(self, tokens: torch.Tensor, patches: Patches) -> tuple[torch.Tensor, torch.Tensor]:
        """Encode a batch of byte sequences into patch representations.

        Args:
            tokens: (B, T) int64 byte values.
            patches: the patches of the batch (patch_ids of shape (B, T)).

        Returns:
            (patch_reps, byte_states): (B, P, d_patch) with zero rows for padding slots, and the byte
            representations output by the last encoder layer, (B, T, d_local); dtype of the parameters.

        Raises:
            ValueError: if patches.patch_ids does not have the shape of tokens.
        """
        if patches.patch_ids.shape != tokens.shape:
            raise ValueError("patches do not match the tokens")
        h = self.embed(tokens)
        p = self.patch_proj(pool_patches(h, patches, self.cfg.pooling))
        p = p.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
        for layer, cross in zip(self.layers, self.cross):
            p = cross(p, h, patches)
            h = layer(h)
        return p, h
