"""The annotation server over HTTP, as real processes: verdicts withheld until labelled, the page token and
loopback host required, labels durable at once, and two annotators at once losing no line."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from lmrbench.judge.agreement import fleiss_agreement, load_labels
from tests.annotate.conftest import ORDER, RATIONALE, Annotator, cli, read_jsonl


def _token(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as resp:
        page = resp.read().decode()
        assert "script-src 'nonce-" in resp.headers["Content-Security-Policy"]
    found = re.search(r'data-token="([^"]+)"', page)
    assert found
    return found.group(1)


def _call(url: str, token: str | None, body: dict | None = None, host: str | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 method="POST" if body is not None else "GET")
    if token:
        req.add_header("X-Lmrbench-Token", token)
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_verdict_is_withheld_until_labelled_and_the_label_is_on_disk_at_once(run_copy, annotators):
    suite, run = run_copy
    a = Annotator(run, suite, "alice")
    annotators.append(a)
    token = _token(a.url)
    status, state = _call(a.url + "api/state", token)
    assert status == 200 and state["total"] == len(ORDER) and state["labelled"] == 0 and state["start"] == 0
    hostile = ORDER.index(("t3/1", "hostile"))
    status, item = _call(a.url + f"api/item/{hostile}", token)
    assert status == 200 and item["verdict"] is None and item["label"] is None
    assert RATIONALE not in json.dumps(item)  # not in the data at all, not merely hidden by the page
    rows = item["view"]["diff"]
    assert any("</script><script>" in r["right"] for r in rows) and item["view"]["instruction"]
    stub = _call(a.url + f"api/item/{ORDER.index(('t1/1', 'stub'))}", token)[1]["view"]
    assert "E       NotImplementedError" in stub["log"]  # the kept test log of that evaluation
    assert stub["description"] == "# Toy\n\nThe method adds k times b to a.\n"
    assert any(r["tag"] == "replace" and "raise NotImplementedError" in r["right"] for r in stub["diff"])
    status, saved = _call(a.url + "api/label", token, {"position": hostile, "category": 2, "comment": "<b>hm</b>"})
    assert status == 200 and saved["labelled"] == 1
    assert saved["verdict"]["judges"][0]["rationale"] == RATIONALE and saved["verdict"]["status"] == "passed"
    on_disk = read_jsonl(run / "labels.jsonl")  # before anything else happens: written and fsync'ed
    assert [(r["annotator"], r["instance_id"], r["model"], r["category"], r["comment"]) for r in on_disk] == [
        ("alice", "t3/1", "hostile", 2, "<b>hm</b>")]
    assert _call(a.url + f"api/item/{hostile}", token)[1]["verdict"]["status"] == "passed"  # now shown


def test_show_verdict_token_host_and_bad_requests(run_copy, annotators):
    suite, run = run_copy
    a = Annotator(run, suite, "bob", "--show-verdict")
    annotators.append(a)
    token = _token(a.url)
    assert _call(a.url + "api/item/0", token)[1]["verdict"]["status"] == "passed"
    assert _call(a.url + "api/item/0", None)[0] == 403  # no page token: another site cannot read items
    assert _call(a.url + "api/label", "wrong", {"position": 0, "category": 3})[0] == 403
    assert _call(a.url + "api/state", token, host="evil.example:80")[0] == 403  # DNS rebinding
    for body in ({"position": 0, "category": 4}, {"position": 0, "category": True}, {"position": "0", "category": 1},
                 {"position": 0, "category": 1, "annotator": "mallory"}):
        assert _call(a.url + "api/label", token, body)[0] == 400, body
    assert _call(a.url + "api/label", token, {"position": 99, "category": 1})[0] == 400
    for bad in ("99", "-1", "%C2%B2", "1e3", "0" * 40):
        assert _call(a.url + f"api/item/{bad}", token)[0] == 404, bad
    assert not (run / "labels.jsonl").exists()  # nothing invalid was written


def test_two_annotators_at_once_lose_no_line(run_copy, annotators):
    suite, run = run_copy
    pair = [Annotator(run, suite, "alice"), Annotator(run, suite, "bob")]
    annotators.extend(pair)
    tokens = [_token(a.url) for a in pair]
    rounds = 8  # every item labelled 8 times by each annotator: 2 x 7 x 8 = 112 posts, 8 threads
    jobs = [(a, t, pos, r) for r in range(rounds) for pos in range(len(ORDER))
            for a, t in zip(pair, tokens, strict=True)]

    def post(job):
        a, token, pos, r = job
        cat = 1 + (pos + r) % 3 if a is pair[0] else 1 + pos % 3  # alice's last round: 1 + (pos + 7) % 3
        return _call(a.url + "api/label", token, {"position": pos, "category": cat, "comment": f"round {r}"})[0]

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(post, jobs)) == {200}
    lines = (run / "labels.jsonl").read_text().splitlines()
    assert len(lines) == len(jobs) == 112
    labels = load_labels(run / "labels.jsonl")  # every line is a whole label
    assert sorted((lab.annotator, lab.instance_id, lab.model, lab.comment) for lab in labels) == sorted(
        ("alice" if a is pair[0] else "bob", ORDER[p][0], ORDER[p][1], f"round {r}") for a, _, p, r in jobs)
    assert _call(pair[1].url + "api/state", tokens[1])[1]["labelled"] == len(ORDER)
    fleiss = fleiss_agreement(labels)
    assert fleiss is not None and fleiss.n == len(ORDER) and fleiss.annotators == ["alice", "bob"]
    agree = cli("judge", "agreement", str(run), "--json", cwd=run.parent)
    assert agree.returncode == 0, agree.stderr
    assert json.loads(agree.stdout)["fleiss"]["n"] == len(ORDER)


def test_wrong_folder_and_corrupt_labels_are_clear_errors(run_copy, tmp_path):
    suite, run = run_copy
    res = cli("annotate", str(tmp_path / "nope"), "--annotator", "a", "--tasks", str(suite), cwd=tmp_path)
    assert res.returncode == 2 and "no such folder" in res.stderr
    (tmp_path / "empty").mkdir()
    res = cli("annotate", str(tmp_path / "empty"), "--annotator", "a", "--tasks", str(suite), cwd=tmp_path)
    assert res.returncode == 2 and "not a run folder" in res.stderr and "predictions.jsonl" in res.stderr
    (run / "labels.jsonl").write_text('{"annotator": "a", "instance_id": "t1/1", "model": "stub", "category": 3}\n'
                                      '{"annotator": "a", "instance_id": "t1/1", "catego\n')
    res = cli("annotate", str(run), "--annotator", "a", "--tasks", str(suite), cwd=tmp_path)
    assert res.returncode == 2 and "labels.jsonl: line 2" in res.stderr.replace("\n", "")
    res = cli("judge", "agreement", str(run), cwd=tmp_path)
    assert res.returncode == 2 and "labels.jsonl: line 2" in res.stderr.replace("\n", "")


def test_annotate_and_export_have_working_help():
    from typer.testing import CliRunner

    from lmrbench.cli import app

    for cmd, words in ((["annotate"], ("--annotator", "--show-verdict", "--port")),
                       (["export"], ("--format", "--with-solutions", "--out"))):
        res = CliRunner().invoke(app, [*cmd, "--help"], env={"COLUMNS": "200"})
        assert res.exit_code == 0, res.output
        assert all(w in res.output for w in words), res.output
