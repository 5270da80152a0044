"""TimeMixer: decomposable multiscale mixing for time series forecasting."""

from timemixer.config import TimeMixerConfig
from timemixer.model import PastDecomposableMixing, TimeMixer

__all__ = ["TimeMixerConfig", "PastDecomposableMixing", "TimeMixer"]
