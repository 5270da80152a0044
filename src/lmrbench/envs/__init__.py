"""Per-task environments: one cached virtual environment per task, built with uv over the harness's packages."""

from lmrbench.envs.build import (
    EnvBuildError,
    EnvConfig,
    EnvMode,
    EnvRecord,
    EnvStatus,
    attach_envs,
    build_env,
    build_envs,
)
from lmrbench.envs.spec import EnvSpec, env_spec

__all__ = ["EnvBuildError", "EnvConfig", "EnvMode", "EnvRecord", "EnvSpec", "EnvStatus", "attach_envs", "build_env",
           "build_envs", "env_spec"]
