"""Paper text: a PDF we generate ourselves, fetched from a local file URL and from a loopback server."""

from __future__ import annotations

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from lmrbench.papers import WITHHELD, fetch_paper, paper_text, pdf_pages, pdf_url
from lmrbench.tasks.loader import load_tasks


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page, xref offsets computed."""
    objs = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    for i, text in enumerate(pages):
        page_no, content_no = 3 + 2 * i, 4 + 2 * i
        kids.append(f"{page_no} 0 R")
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_no} 0 R "
                    f"/Resources << /Font << /F1 {3 + 2 * len(pages)} 0 R >> >> >>")
        objs.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objs[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>"
    objs.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def test_pdf_pages_extracts_per_page_text():
    pages = pdf_pages(make_pdf(["Direct preference optimisation", "The loss is a logistic"]))
    assert pages == {"1": "Direct preference optimisation", "2": "The loss is a logistic"}


def test_arxiv_abstract_urls_point_at_pdfs():
    assert pdf_url("https://arxiv.org/abs/2305.18290") == "https://arxiv.org/pdf/2305.18290"
    assert pdf_url("https://arxiv.org/abs/2305.18290v3") == "https://arxiv.org/pdf/2305.18290v3"
    assert pdf_url("https://aclanthology.org/2022.coling-1.10.pdf") == "https://aclanthology.org/2022.coling-1.10.pdf"


def test_fetch_from_file_url_then_prompt_uses_paper_text(tmp_path):
    task = load_tasks().task("dpo")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(make_pdf(["Page one text", "Page two text"]))
    local = task.model_copy(update={"paper_url": pdf.as_uri()})
    assert paper_text(local, tmp_path / "cache").source == "description"
    out = fetch_paper(local, tmp_path / "cache")
    assert json.loads(out.read_text())["pages"] == {"1": "Page one text", "2": "Page two text"}
    text = paper_text(local, tmp_path / "cache")
    assert text.source == "paper_text" and "[page 2]\nPage two text" in text.text


def test_fetch_over_http_on_loopback(tmp_path):
    (tmp_path / "p.pdf").write_bytes(make_pdf(["Served over HTTP"]))
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        task = load_tasks().task("dpo")
        url = f"http://127.0.0.1:{httpd.server_address[1]}/p.pdf"
        out = fetch_paper(task.model_copy(update={"paper_url": url}), tmp_path / "cache")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert json.loads(out.read_text())["pages"] == {"1": "Served over HTTP"}


def test_withheld_replaces_even_a_fetched_paper(tmp_path):
    task = load_tasks().task("dpo")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(make_pdf(["Page one text"]))
    local = task.model_copy(update={"paper_url": pdf.as_uri()})
    fetch_paper(local, tmp_path / "cache")
    text = paper_text(local, tmp_path / "cache", mode="withheld")
    assert (text.source, text.text) == ("withheld", WITHHELD)
