"""Probe for massactiv/1: massact.detect.find_massive_activations. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_find_massive_activations.py add hand-checked values and the detector's properties. Records
are emitted as three tensors: `index` (n, 4) = (layer, batch, token, dim), `value` and `ratio` (float64)."""
from pathlib import Path

import torch

from lmrbench_probe import case
from massact.detect import MassiveActivation, find_massive_activations
from massact.model import TinyLM, TinyLMConfig
from massact.synthetic import Plant, planted_hidden_states

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "massive_cases.pt", weights_only=True)
HAND = dict(rtol=1e-12, atol=0, outputs={"*index": {"compare": "exact"}})
RECORDS = dict(rtol=1e-12, atol=0, outputs={"*index": {"compare": "exact"}, "*ratio": {"rtol": 1e-9}})


def records(recs) -> dict:
    """The candidate's records as data: whether it returned a list, indices, values and ratios."""
    return {
        "is_list": isinstance(recs, list),
        "index": torch.tensor([(r.layer, r.batch, r.token, r.dim) for r in recs], dtype=torch.long).reshape(-1, 4),
        "value": torch.tensor([r.value for r in recs], dtype=torch.float64),
        "ratio": torch.tensor([r.ratio for r in recs], dtype=torch.float64),
    }


def one(values, dtype=torch.float64):
    """A single layer holding one sequence given as a (seq_len, dim) nested list."""
    return [torch.tensor([values], dtype=dtype)]


def fixture_call(c):
    h = c["hidden"]
    inp = list(h.unbind(0)) if c["as_list"] else h
    mask = c["mask"] if c["has_mask"] else None
    return find_massive_activations(inp, c["abs_threshold"], c["ratio_threshold"], attention_mask=mask)


# ---------------------------------------------------------------- hand-checked values (check file)


@case(**HAND)
def hand_checked_single_sequence():
    h = one([[0.5, -1.0, 2.0, 0.25], [-300.0, 0.75, -0.5, 1.5]])
    return {"r300": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0)),
            "r400": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=400.0)),
            "abs300": records(find_massive_activations(h, abs_threshold=300.0, ratio_threshold=1.0))}


@case(**HAND)
def even_count_median_is_midpoint():
    h = one([[0.5, 1.5, 2.5, 400.0]])
    return {"r200": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=200.0)),
            "r250": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=250.0))}


@case(**HAND)
def odd_count_median():
    h = one([[0.5, 3.0, 1.0, -250.0, 2.0]])
    return {"r125": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=125.0)),
            "r125.5": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=125.5))}


@case(**HAND)
def threshold_boundaries():
    h = one([[0.5, -0.5], [0.5, 100.0]])
    return {"abs100": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1.0)),
            "abs99.5_r200": records(find_massive_activations(h, abs_threshold=99.5, ratio_threshold=200.0)),
            "abs99.5_r200.5": records(find_massive_activations(h, abs_threshold=99.5, ratio_threshold=200.5))}


@case(**HAND)
def default_thresholds_are_100_and_1000():
    return {"above": records(find_massive_activations(one([[0.001, 0.001, 0.001], [0.001, 100.5, 0.001]]))),
            "ratio_exact": records(find_massive_activations(one([[0.125, -0.125, 0.125], [0.125, 125.0, 0.125]])))}


@case
def rejects_layers_that_are_not_3d():
    return {"result": records(find_massive_activations([torch.zeros(4, 8)]))}


@case(**HAND)
def median_per_sequence_not_per_batch():
    h = [torch.tensor([[[1.0, 1.0, 1.0, 500.0]], [[200.0, 200.0, 200.0, 200.0]]], dtype=torch.float64)]
    return records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=100.0))


@case(**HAND)
def median_over_the_whole_sequence_not_per_token():
    h = one([[150.0, -150.0, 150.0], [2.0, 2.0, -2.0]])
    return records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1.5))


@case(**HAND)
def negative_activations_keep_sign():
    recs = find_massive_activations(one([[0.1, -0.2, 0.3], [-4000.0, 0.2, 0.1]]))
    return {**records(recs), "fields": [len(r) for r in recs]}


@case(**HAND)
def zero_median_gives_infinite_ratio():
    return {"zero_median": records(find_massive_activations(one([[0.0, 0.0, 0.0], [0.0, 150.0, 0.0]]))),
            "below_abs": records(find_massive_activations(one([[0.0, 0.0], [0.0, 50.0]])))}


@case(**HAND)
def mask_excludes_padding_from_candidates_and_median():
    h = one([[1.0, 1.0, 9000.0], [2.0, 2.0, 300.0], [0.0, 0.0, 0.0]])
    mask = torch.tensor([[0, 1, 1]])
    return {"long_mask": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0,
                                                          attention_mask=mask)),
            "bool_mask": records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0,
                                                          attention_mask=mask.bool()))}


@case(**HAND)
def fully_padded_sequence_contributes_nothing():
    h = torch.full((1, 2, 3, 4), 0.5, dtype=torch.float64)
    h[0, 0] = 7000.0  # sequence 0 is padding only
    h[0, 1, 1, 3] = 800.0
    mask = torch.tensor([[0, 0, 0], [1, 1, 1]])
    return records(find_massive_activations(h, attention_mask=mask))


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), **RECORDS)
def matches_reference(k):
    return records(fixture_call(CASES[k]))


@case(**RECORDS)
def fixtures_exercise_the_interesting_cases():
    # the check reads the reference's run of this case: it guards the fixtures themselves
    found = [records(fixture_call(c)) for c in CASES]
    return {"counts": torch.tensor([len(f["value"]) for f in found]),
            "any_negative": [bool((f["value"] < 0).any()) for f in found],
            "has_mask": [bool(c["has_mask"]) for c in CASES], "as_list": [bool(c["as_list"]) for c in CASES]}


# ---------------------------------------------------------------- properties (check file)


def _random_states(seed, L=3, B=2, T=6, D=10):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(L, B, T, D, generator=g, dtype=torch.float64)
    idx = torch.randint(0, L * B * T * D, (6,), generator=g)
    h.view(-1)[idx] = torch.tensor([3000.0, -2500.0, 150.0, 800.0, -1200.0, 90.0], dtype=torch.float64)
    return h


@case(**RECORDS)
def feature_permutation_equivariance():
    h = _random_states(0)
    perm = torch.randperm(h.shape[-1], generator=torch.Generator().manual_seed(1))
    return {"perm": perm, "base": records(find_massive_activations(h, 100.0, 100.0)),
            "permuted": records(find_massive_activations(h[..., perm], 100.0, 100.0))}


@case(**RECORDS)
def scale_equivariance():
    h = _random_states(2)
    return {"base": records(find_massive_activations(h, 100.0, 100.0)),
            "scaled": records(find_massive_activations(h * 4.0, 400.0, 100.0))}


@case(**RECORDS)
def higher_ratio_threshold_gives_a_subset():
    h = _random_states(3)
    return {"loose": records(find_massive_activations(h, 50.0, 10.0)),
            "strict": records(find_massive_activations(h, 50.0, 1000.0))}


@case(**RECORDS)
def padding_is_the_same_as_removing_tokens():
    h = _random_states(4, B=1)
    extra = torch.full((3, 1, 2, 10), 4000.0, dtype=torch.float64)
    padded = torch.cat([h, extra], dim=2)
    mask = torch.tensor([[1] * 6 + [0, 0]])
    return {"unpadded": records(find_massive_activations(h, 100.0, 50.0)),
            "padded": records(find_massive_activations(padded, 100.0, 50.0, attention_mask=mask))}


@case(**RECORDS)
def sorted_and_typed_output():
    h = _random_states(5)
    recs = find_massive_activations(list(h.unbind(0)), 100.0, 50.0)
    return {**records(recs), "is_record": [isinstance(r, MassiveActivation) for r in recs],
            "field_types": [",".join(type(x).__name__ for x in r) for r in recs]}


@case(**RECORDS)
def low_precision_and_grad_inputs():
    h = _random_states(6).to(torch.bfloat16).requires_grad_(True)
    return {"hidden": h.detach().clone(), **records(find_massive_activations(h, 100.0, 100.0))}


# ---------------------------------------------------------------- finds the planted effect (check file)


@case(**RECORDS)
def finds_planted_activations_in_synthetic_states():
    plants = [Plant(layers=(1, 2), tokens=(0,), dims=(4, 9), value=500.0),
              Plant(layers=(3,), tokens=(3,), dims=(1,), value=-800.0)]
    h = planted_hidden_states(5, 2, 8, 16, plants, scale=0.1, seed=0)
    return records(find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1000.0))


# the hidden states come from a float32 model: its matrix products differ in the last bits between hosts' BLAS
@case(**{**RECORDS, "outputs": {**RECORDS["outputs"], "*ratio": {"rtol": 1e-6}}})
def finds_planted_activations_in_tiny_lm():
    torch.manual_seed(0)
    cfg = TinyLMConfig(massive_dims=(3, 11), massive_value=3000.0, massive_start=1, massive_end=4)
    model = TinyLM(cfg).eval()
    tokens = torch.randint(0, cfg.vocab_size, (3, 12))
    with torch.no_grad():
        _, hidden = model(tokens)
    return records(find_massive_activations(hidden))
