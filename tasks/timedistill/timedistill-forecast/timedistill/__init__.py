"""Cross-architecture distillation of a time-series forecaster into an MLP (TimeDistill), minimal version."""
