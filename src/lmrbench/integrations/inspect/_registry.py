"""What Inspect loads through the `inspect_ai` entry point: the tasks and the `lmrbench` sandbox environment."""

from lmrbench.integrations.inspect.sandbox import LmrbenchSandbox
from lmrbench.integrations.inspect.tasks import agent, prompt

__all__ = ["LmrbenchSandbox", "agent", "prompt"]
