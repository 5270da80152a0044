"""Model providers behind one interface (`Model.query`), a deterministic fake, and a registry."""

from lmrbench.models.base import (
    Message,
    Model,
    ModelError,
    ModelResponse,
    ModelSettings,
    ToolCall,
    ToolSpec,
    Usage,
)
from lmrbench.models.registry import get_model

__all__ = [
    "Message", "Model", "ModelError", "ModelResponse", "ModelSettings", "ToolCall", "ToolSpec", "Usage", "get_model",
]
