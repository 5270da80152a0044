"""The annotation server: the standard library's threading HTTP server, on loopback only.

Routes: `/` the page; `/api/state` the annotator's progress and where to resume; `/api/item/N` one item (its
verdict only once this annotator has labelled it, or with --show-verdict); `POST /api/label` one label, appended
to RUN_DIR/labels.jsonl before the answer is sent. The API answers only requests that carry the page's token
and name a loopback host, so another web site open in the same browser can neither read items nor post labels.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lmrbench.annotate.items import Item
from lmrbench.annotate.labels import Key, append_label, labels_path, latest_for, read_labels, resume_position
from lmrbench.annotate.page import csp, render_page
from lmrbench.records import HumanLabel

LOOPBACK = "127.0.0.1"
Category = Literal[1, 2, 3]
MAX_BODY_BYTES = 64 * 1024
MAX_COMMENT_CHARS = 10_000


class AnnotateConfig(BaseModel):
    """How `lmrbench annotate` serves a run."""

    annotator: str = Field(min_length=1, max_length=200, description="Name recorded with every label.")
    port: int = Field(default=8765, ge=0, le=65535, description="Loopback port; 0 picks a free one.")
    show_verdict: bool = Field(default=False, description="Show the unit-test verdict and the judges' rationale "
                               "before an item is labelled (default: only after).")


class LabelRequest(BaseModel):
    """The page's POST body (strict: `true` is not a category, "2" is not a position)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    position: int = Field(ge=0)
    category: int = Field(ge=1, le=3)  # a strict int: JSON's true is no category (as a Literal, it would be 1)
    comment: str = Field(default="", max_length=MAX_COMMENT_CHARS)


@dataclass
class Session:
    """One annotator on one run: the items, and their latest labels (kept in step with the file)."""

    run_dir: Path
    items: list[Item]
    config: AnnotateConfig
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    nonce: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    done: dict[Key, HumanLabel] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def labels_file(self) -> Path:
        return labels_path(self.run_dir)

    def reload(self) -> None:
        """The annotator's labels as the file has them now (ValueError names a corrupt line)."""
        latest = latest_for(read_labels(self.labels_file), self.config.annotator)
        keys = {it.key for it in self.items}
        with self.lock:
            self.done = {k: v for k, v in latest.items() if k in keys}

    def state(self) -> dict[str, Any]:
        keys = [it.key for it in self.items]
        return {"annotator": self.config.annotator, "total": len(keys), "labelled": len(self.done),
                "start": resume_position(keys, self.done), "show_verdict": self.config.show_verdict}

    def item(self, position: int) -> dict[str, Any]:
        it = self.items[position]
        label = self.done.get(it.key)
        shown = self.config.show_verdict or label is not None
        return {"view": it.view.model_dump(mode="json"), "label": label.model_dump(mode="json") if label else None,
                "verdict": it.verdict.model_dump(mode="json") if shown else None}

    def label(self, req: LabelRequest) -> dict[str, Any]:
        it = self.items[req.position]
        lab = HumanLabel(annotator=self.config.annotator, instance_id=it.view.instance_id, model=it.view.model,
                         sample=it.view.sample, category=cast(Category, req.category), comment=req.comment)
        saved = append_label(self.labels_file, lab)
        with self.lock:
            self.done[it.key] = saved
        return {"label": saved.model_dump(mode="json"), "verdict": it.verdict.model_dump(mode="json"),
                **self.state()}


def _position(text: str, total: int) -> int | None:
    """An item's place from a URL (ASCII digits only), or None when it names no item."""
    if not (text.isascii() and text.isdigit() and len(text) < 10):
        return None
    return int(text) if int(text) < total else None


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "lmrbench-annotate"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        return  # the page's requests are not worth a line each on the terminal

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", csp(self.server.session.nonce))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json; charset=utf-8")

    def _allowed(self, api: bool) -> bool:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost"):
            self._json(HTTPStatus.FORBIDDEN, {"error": "only loopback host names are served"})
            return False
        if api and not secrets.compare_digest(self.headers.get("X-Lmrbench-Token", ""), self.server.session.token):
            self._json(HTTPStatus.FORBIDDEN, {"error": "missing or wrong page token (reload the page)"})
            return False
        return True

    def do_GET(self) -> None:
        s = self.server.session
        if not self._allowed(api=self.path.startswith("/api/")):
            return
        if self.path == "/":
            page = render_page(s.config.annotator, s.token, s.nonce, s.config.show_verdict)
            self._send(HTTPStatus.OK, page.encode("utf-8"), "text/html; charset=utf-8")
        elif self.path == "/api/state":
            self._json(HTTPStatus.OK, s.state())
        elif self.path.startswith("/api/item/") and _position(self.path[10:], len(s.items)) is not None:
            self._json(HTTPStatus.OK, s.item(int(self.path[10:])))
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {self.path[:200]}"})

    def do_POST(self) -> None:
        s = self.server.session
        if not self._allowed(api=True):
            return
        if self.path != "/api/label":
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such endpoint: {self.path[:200]}"})
            return
        size = int(self.headers.get("Content-Length") or 0)
        if not 0 < size <= MAX_BODY_BYTES:
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"a label is 1 to {MAX_BODY_BYTES} bytes of JSON"})
            return
        try:
            req = LabelRequest.model_validate_json(self.rfile.read(size))
            if req.position >= len(s.items):
                raise ValueError(f"no item {req.position}")
        except (ValidationError, ValueError) as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"bad label: {str(exc)[:500]}"})
            return
        try:
            self._json(HTTPStatus.OK, s.label(req))
        except OSError as exc:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"could not save the label: {exc}"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, session: Session, port: int) -> None:
        self.session = session
        super().__init__((LOOPBACK, port), _Handler)


def annotation_session(run_dir: Path, items: list[Item], config: AnnotateConfig) -> Session:
    """One annotator on one run, with the labels already given; raises ValueError naming the line of the run's
    labels file that is not a label."""
    session = Session(run_dir=run_dir, items=items, config=config)
    session.reload()
    return session


def make_server(session: Session) -> _Server:
    """A server for the session bound to 127.0.0.1 (not started: call `serve_forever`); OSError when the port
    is taken."""
    return _Server(session, session.config.port)
