"""Paper text: fetch a task's paper PDF into a cache, convert it to per-page text, and pick the text a prompt uses.

A prompt uses the paper's text when present (fetched, or the original layout's paper.json / paper.pdf), else the
task's own method description (paper.md); with `--paper withheld` (an ablation: does the model need the paper, or
does it recall the method or read it off the repository?) neither, only the paper's title. The prediction records
which.
"""

from __future__ import annotations

import io
import json
import re
import urllib.request
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from lmrbench.cachedir import cache_root
from lmrbench.tasks.schema import Task

PaperSource = Literal["paper_text", "description", "withheld"]
PaperMode = Literal["full", "withheld"]
"""`full`: the paper's text (or the task's description); `withheld`: no text, only the title (an ablation)."""

WITHHELD = ("(The paper's text is withheld in this run: implement the method from the paper's title, the repository "
            "and the instruction.)")


class PaperText(BaseModel):
    source: PaperSource
    origin: str
    text: str


def default_papers_dir() -> Path:
    return cache_root() / "papers"


def pdf_url(url: str) -> str:
    """arXiv abstract pages point at their PDF; other URLs are used as they are."""
    m = re.match(r"https?://arxiv\.org/abs/([\w.\-/]+?)(v\d+)?/?$", url)
    return f"https://arxiv.org/pdf/{m.group(1)}{m.group(2) or ''}" if m else url


def pdf_pages(data: bytes) -> dict[str, str]:
    """Per-page text of a PDF, as {"1": text, "2": ...} (the original LMR-Bench paper.json shape)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return {str(i + 1): (page.extract_text() or "") for i, page in enumerate(reader.pages)}


def fetch_paper(task: Task, papers_dir: Path | None = None, timeout_s: float = 60.0) -> Path:
    """Download the task's paper (http(s) or file:// URL), convert it, and cache {task_id}.json."""
    papers_dir = papers_dir or default_papers_dir()
    papers_dir.mkdir(parents=True, exist_ok=True)
    url = pdf_url(task.paper_url)
    with urllib.request.urlopen(url, timeout=timeout_s) as resp:
        data = resp.read()
    if not data.startswith(b"%PDF"):
        raise ValueError(f"{task.task_id}: {url} did not return a PDF")
    pages = pdf_pages(data)
    out = papers_dir / f"{task.task_id}.json"
    out.write_text(json.dumps({"url": url, "pages": pages}), encoding="utf-8")
    return out


def _join(pages: dict[str, str]) -> str:
    return "\n\n".join(f"[page {k}]\n{v}" for k, v in sorted(pages.items(), key=lambda kv: int(kv[0])))


def paper_text(task: Task, papers_dir: Path | None = None, mode: PaperMode = "full") -> PaperText:
    """The text a solver gets for this task."""
    if mode == "withheld":
        return PaperText(source="withheld", origin="", text=WITHHELD)
    cached = (papers_dir or default_papers_dir()) / f"{task.task_id}.json"
    if cached.is_file():
        data = json.loads(cached.read_text(encoding="utf-8"))
        return PaperText(source="paper_text", origin=str(data.get("url", cached)), text=_join(data["pages"]))
    if task.paper_json is not None:
        pages = json.loads(task.paper_json.read_text(encoding="utf-8"))
        return PaperText(source="paper_text", origin=str(task.paper_json), text=_join(pages))
    if task.paper_pdf is not None:
        return PaperText(source="paper_text", origin=str(task.paper_pdf), text=_join(pdf_pages(
            task.paper_pdf.read_bytes())))
    if task.description_file is not None:
        return PaperText(source="description", origin=str(task.description_file),
                         text=task.description_file.read_text(encoding="utf-8"))
    return PaperText(source="description", origin="", text="(no paper text available)")
