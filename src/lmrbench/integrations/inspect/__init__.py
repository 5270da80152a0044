"""lmrbench as an Inspect AI evaluation: tasks `lmrbench/prompt` and `lmrbench/agent`, the `lmrbench` sandbox
environment (our local sandbox, for Inspect's agents), a scorer that runs our evaluation core, and the reader that
turns an Inspect log back into our predictions. Needs the `inspect` extra (`pip install 'lmrbench[inspect]'`).

Inspect finds the tasks and the sandbox through the `inspect_ai` entry point, which imports `_registry`.
"""
