from timemixer.layers.decomp import MovingAverage, SeriesDecomposition
from timemixer.layers.embedding import InstanceNorm, TokenEmbedding
from timemixer.layers.mixing import MultiScaleSeasonMixing, MultiScaleTrendMixing

__all__ = [
    "MovingAverage",
    "SeriesDecomposition",
    "InstanceNorm",
    "TokenEmbedding",
    "MultiScaleSeasonMixing",
    "MultiScaleTrendMixing",
]
