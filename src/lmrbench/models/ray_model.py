"""Generation requests as Ray tasks: a Model whose queries run on the nodes of a Ray cluster.

`RayModel` wraps any model (litellm, fake) and sends each query to one `NodeModel` actor per node, in turn. The
solvers (prompt and agent) and the run folder stay on the driver: only the request travels, and the answer comes
back to be written by the driver, so a run resumes exactly as a local one. Use it for a self-hosted model served
on every node (`--api-base http://localhost:8000/v1` reaches each node's own server) or to spread hosted-API
traffic; each node needs the provider's credentials in its own environment, and keeps its own response cache.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from types import TracebackType
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.models.base import Message, Model, ModelError, ModelResponse, ToolSpec
from lmrbench.raycluster import connect, cpu_node_strategies


class NodeReply(BaseModel):
    """A node's answer to one query: the response, or the error the model raised there."""

    response: ModelResponse | None = None
    error: str = Field(default="", description="The model's error message; empty when it answered.")
    transient: bool = Field(default=False, description="Whether the error was transient (retries exhausted).")
    node: str = Field(default="", description="The Ray node that ran the query.")


class NodeModel:
    """A Ray actor on one node holding its own copy of the model."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def query(self, messages_json: list[str], tools_json: list[str] | None) -> str:
        import ray  # only ever runs inside a Ray worker

        node = str(ray.get_runtime_context().get_node_id())
        messages = [Message.model_validate_json(m) for m in messages_json]
        tools = [ToolSpec.model_validate_json(t) for t in tools_json] if tools_json is not None else None
        try:
            reply = NodeReply(response=self.model.query(messages, tools), node=node)
        except ModelError as exc:
            reply = NodeReply(error=str(exc), transient=exc.transient, node=node)
        return reply.model_dump_json()


class RayModel:
    """A Model whose queries run as Ray actor calls, one actor per alive node, taken in turn."""

    def __init__(self, inner: Model, address: str | None, per_node: int = 4) -> None:
        self.inner = inner
        self.name = inner.name
        self.settings = inner.settings
        self.address, self.per_node = address, per_node
        self.nodes: Counter[str] = Counter()  # which nodes answered, for the record and the tests
        self._lock = threading.Lock()
        self._ray: Any = None
        self._owned = False
        self._actors: list[Any] = []
        self._turn: itertools.cycle[Any] | None = None

    def __enter__(self) -> RayModel:
        self._ray, self._owned = connect(self.address)
        remote = self._ray.remote(NodeModel)
        self._actors = [remote.options(num_cpus=0, max_concurrency=self.per_node, scheduling_strategy=where)
                        .remote(self.inner) for where in cpu_node_strategies(self._ray)]
        self._turn = itertools.cycle(self._actors)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors, self._turn = [], None
        if self._owned:
            self._ray.shutdown()
            self._owned = False

    def query(self, messages: list[Message], tools: list[ToolSpec] | None = None) -> ModelResponse:
        if self._turn is None:
            raise RuntimeError("RayModel is used outside its `with` block")
        with self._lock:
            actor = next(self._turn)
        ref = actor.query.remote([m.model_dump_json() for m in messages],
                                 [t.model_dump_json() for t in tools] if tools is not None else None)
        try:
            reply = NodeReply.model_validate_json(self._ray.get(ref))
        except Exception as exc:  # the actor or its node died
            raise ModelError(f"ray: {type(exc).__name__}: {str(exc)[:300]}", transient=True) from exc
        with self._lock:
            self.nodes[reply.node] += 1
        if reply.response is None:
            raise ModelError(reply.error, transient=reply.transient)
        return reply.response
