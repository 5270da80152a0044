import pytest

from lmrbench.tasks.categories import Category, normalise_category


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Training Objectives & Optimization Techniques", Category.TRAINING),
        ("loss function", Category.TRAINING),
        ("Evaluation Metrics", Category.METRICS),
        ("Evaluation Metrics & Benchmarking", Category.METRICS),
        ("evaluation metrics and benchmarking", Category.METRICS),
        ("  Decoding   & Search Strategies ", Category.DECODING),
        ("Neural Network Architectures", Category.ARCHITECTURES),
        ("", None),
        (None, None),
        ("Astrology", None),
    ],
)
def test_normalise(raw, expected):
    assert normalise_category(raw) is expected


def test_nine_categories():
    assert len(Category) == 9
