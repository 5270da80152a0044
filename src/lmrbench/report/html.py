"""A self-contained HTML report: everything inlined (CSS, JS, SVG); it works from a file, offline."""

from __future__ import annotations

import html

from lmrbench.records import COUNTED_APART, NOT_PASSED, Status
from lmrbench.report import strict_json
from lmrbench.report.budget_curve import budget_html
from lmrbench.report.data import FORGEABLE_NOTE, LOG_TAIL_BYTES, Drill, ReportData
from lmrbench.report.scoring import ModelScore

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f3f3f3;cursor:pointer;user-select:none}td:first-child,th:first-child{text-align:left}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
.passed{color:#17803d}.failed{color:#b42318}.other{color:#9a6700}
details{border:1px solid #ddd;margin:4px 0;padding:4px 8px}summary{cursor:pointer}
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}.muted{color:#777}
.chart{display:inline-block;margin-right:2em;vertical-align:top}
"""

JS = """
window.__reportErrors = [];
window.addEventListener('error', function (e) { window.__reportErrors.push(String(e.message)); });
function sortTable(th) {
  var table = th.closest('table'), idx = Array.prototype.indexOf.call(th.parentNode.children, th);
  var asc = !th.classList.contains('sorted-asc');
  table.querySelectorAll('th').forEach(function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
  th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = a.cells[idx].getAttribute('data-v') || a.cells[idx].textContent;
    var y = b.cells[idx].getAttribute('data-v') || b.cells[idx].textContent;
    var nx = parseFloat(x), ny = parseFloat(y);
    var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
    return asc ? c : -c;
  });
  rows.forEach(function (r) { body.appendChild(r); });
}
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('table.sortable th').forEach(function (th) {
    th.addEventListener('click', function () { sortTable(th); });
  });
  var first = document.querySelector('#leaderboard th:nth-child(4)');
  if (first) { sortTable(first); sortTable(first); }
  document.body.setAttribute('data-ready', String(document.querySelectorAll('svg.chart-svg').length));
});
"""

LOG_TAIL_CHARS = LOG_TAIL_BYTES  # a drill read from elsewhere is cut again here
PALETTE = ["#3b6fb6", "#d9822b", "#2f9e44", "#ae3ec9", "#e03131", "#1098ad", "#5c940d", "#862e9c"]


def _e(x: object) -> str:
    return html.escape(str(x))


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"


def _label(s: ModelScore) -> str:
    return f"{s.label()} ({s.setting})"


def leaderboard(scores: list[ModelScore]) -> str:
    kmax = max((max(s.pass_at_k, default=1) for s in scores), default=1)
    ks = [k for k in (1, 2, 3, 5, 10, 20) if k <= kmax] or [1]
    head = ["model", "setting", "run", "pass rate", "95% CI", "test share", *[f"pass@{k}" for k in ks],
            "judge 3/2/1", *(st.column.replace("_", " ") for st in COUNTED_APART), "tokens", "cost $"]
    rows = []
    for s in scores:
        jd = s.judge_distribution
        judged = sum(v for k, v in jd.items() if k != "none")
        judge = "/".join(str(jd.get(c, 0)) for c in ("3", "2", "1")) if judged else "-"
        cells = [_e(s.label()), _e(s.setting), _e(s.run),
                 f'<td data-v="{s.pass_rate.value:.6f}">{_pct(s.pass_rate.value)}</td>',
                 f"{_pct(s.pass_rate.ci_low)} - {_pct(s.pass_rate.ci_high)}", _pct(s.test_share.value),
                 *[_pct(s.pass_at_k[k]) if k in s.pass_at_k else "-" for k in ks], judge,
                 *(str(s.status_counts.get(st, 0)) for st in COUNTED_APART),
                 f"{s.usage.input_tokens + s.usage.output_tokens:,}",
                 f"{s.usage.cost_usd:.4f}"]
        rows.append("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>")
    ths = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (f'<table id="leaderboard" class="sortable"><thead><tr>{ths}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def category_bars(scores: list[ModelScore]) -> str:
    cats = sorted({c for s in scores for c in s.per_category})
    width, bar_h, gap = 560, 10, 6
    group = bar_h * len(scores) + gap
    height = 30 + group * len(cats)
    parts = [f'<svg class="chart-svg" id="category-bars" width="{width + 330}" height="{height + 20}" '
             f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="pass rate per category">']
    for ci, cat in enumerate(cats):
        y0 = 20 + ci * group
        parts.append(f'<text x="0" y="{y0 + group / 2}" font-size="11">{_e(cat)}</text>')
        for mi, s in enumerate(scores):
            r = s.per_category.get(cat)
            v = 0.0 if r is None or r.value != r.value else r.value
            w = max(1.0, v * width)
            y = y0 + mi * bar_h
            parts.append(f'<rect x="320" y="{y}" width="{w:.1f}" height="{bar_h - 1}" '
                         f'fill="{PALETTE[mi % len(PALETTE)]}"><title>{_e(_label(s))}: {_pct(v)}</title></rect>')
    parts.append("</svg>")
    legend = "".join(f'<span style="color:{PALETTE[i % len(PALETTE)]}">&#9632; {_e(_label(s))}</span> '
                     for i, s in enumerate(scores))
    return f'<div class="chart">{"".join(parts)}<div>{legend}</div></div>'


def pass_at_k_curves(scores: list[ModelScore]) -> str:
    kmax = max((max(s.pass_at_k, default=1) for s in scores), default=1)
    w, h, pad = 420, 260, 40
    parts = [f'<svg class="chart-svg" id="passk" width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" '
             'role="img" aria-label="pass@k curves">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#999"/>',
             f'<line x1="{pad}" y1="10" x2="{pad}" y2="{h - pad}" stroke="#999"/>',
             f'<text x="{w / 2}" y="{h - 8}" font-size="11">k</text>',
             '<text x="4" y="16" font-size="11">pass@k</text>']

    def xy(k: int, v: float) -> tuple[float, float]:
        x = pad + (k - 1) / max(1, kmax - 1) * (w - pad - 20)
        return x, (h - pad) - v * (h - pad - 20)

    for i, s in enumerate(scores):
        pts = [xy(k, v) for k, v in sorted(s.pass_at_k.items())]
        colour = PALETTE[i % len(PALETTE)]
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for x, y in pts:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
    parts.append("</svg>")
    return f'<div class="chart">{"".join(parts)}</div>'


def judge_vs_tests(scores: list[ModelScore]) -> str:
    rows = []
    for s in scores:
        vs = s.judge_vs_tests
        if not any(v for c in vs.values() for v in c.values()):
            continue
        cells = "".join(f"<td>{vs[c][Status.PASSED.value]}</td><td>{vs[c][NOT_PASSED]}</td>" for c in ("3", "2", "1"))
        rows.append(f"<tr><td>{_e(_label(s))}</td>{cells}</tr>")
    if not rows:
        return '<p class="muted">No judgments in these runs (run <code>lmrbench judge RUN_DIR</code>).</p>'
    head = "".join(f"<th>judge {c}: tests pass</th><th>judge {c}: tests fail</th>" for c in ("3", "2", "1"))
    return (f'<table id="judge-vs-tests"><thead><tr><th>model</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def agreement_section(data: ReportData) -> str:
    if not data.agreement:
        return '<p class="muted">No human labels given (<code>--labels FILE</code>).</p>'
    rows = "".join(
        f"<tr><td>{_e(a.a)}</td><td>{_e(a.b)}</td><td>{a.n}</td><td>{_pct(a.accuracy)}</td>"
        f"<td>{a.macro_f1:.3f}</td><td>{a.kappa:.3f}</td><td>{_e(a.confusion)}</td></tr>" for a in data.agreement)
    return ('<table id="agreement"><thead><tr><th>rater</th><th>vs</th><th>n</th><th>accuracy</th><th>macro-F1</th>'
            f"<th>Cohen's kappa</th><th>confusion (rows: rater)</th></tr></thead><tbody>{rows}</tbody></table>")


def original_rule_section(scores: list[ModelScore]) -> str:
    """Original-layout runs: the paper's log-rule figure beside the strict one, and the rows that differ."""
    rows = "".join(
        f"<tr><td>{_e(_label(s))}</td><td>{_pct(s.pass_rate.value)}</td><td>{_pct(s.log_rule_rate.value)}</td>"
        f"<td>{_e(', '.join(s.log_rule_differs) or 'none')}</td></tr>" for s in scores if s.log_rule_rate is not None)
    if not rows:
        return ""
    return ("<h2>The original's log rule beside the strict verdict</h2><p class=\"muted\">The log rule (the paper's "
            "metric) passes a log with a 'Passed' and no 'Failed'; strict also needs exit code 0.</p>"
            '<table id="log-rule"><thead><tr><th>model</th><th>strict pass rate</th><th>log-rule pass rate</th>'
            f"<th>rows that differ</th></tr></thead><tbody>{rows}</tbody></table>")


def unmeasured_section(scores: list[ModelScore]) -> str:
    """Environment errors by cause, and the implementations they left unmeasured."""
    rows = "".join(
        f"<tr><td>{_e(_label(s))}</td><td>{_e(', '.join(f'{k} {v}' for k, v in s.error_causes.items()))}</td>"
        f"<td>{_e('; '.join(s.unmeasured) or 'none')}</td></tr>" for s in scores if s.error_causes)
    if not rows:
        return ""
    return ("<h2>Environment errors (counted apart from failures)</h2>"
            '<table id="unmeasured"><thead><tr><th>model</th><th>errors by cause</th>'
            f"<th>implementations not measured</th></tr></thead><tbody>{rows}</tbody></table>")


def forgeable_section(scores: list[ModelScore]) -> str:
    """Passes decided inside the candidate's process (pytest, legacy): listed apart, with what they prove."""
    rows = "".join(f"<tr><td>{_e(_label(s))}</td><td>{len(s.forgeable_passes)}</td>"
                   f"<td>{s.status_counts.get(Status.PASSED, 0)}</td><td>{_e(', '.join(s.forgeable_passes))}</td></tr>"
                   for s in scores if s.forgeable_passes and s.subset == "all")
    if not rows:
        return ""
    return (f"<h2>Passes a candidate could forge (in-process grading, counted apart)</h2><p class=\"muted\">"
            f"{_e(FORGEABLE_NOTE)}</p><table id=\"forgeable\"><thead><tr><th>model</th><th>forgeable passes</th>"
            f"<th>of all passes</th><th>items</th></tr></thead><tbody>{rows}</tbody></table>")


def model_errors_section(scores: list[ModelScore]) -> str:
    """Items the provider gave no answer for: outside every rate, retried by re-running the run."""
    rows = "".join(f"<tr><td>{_e(_label(s))}</td><td>{len(s.model_errors)}</td>"
                   f"<td>{_e(', '.join(s.model_errors))}</td></tr>" for s in scores if s.model_errors and
                   s.subset == "all")
    if not rows:
        return ""
    return ("<h2>Model errors: no answer from the provider (outside the pass rate)</h2><p class=\"muted\">Each "
            "request still failed after its retries; re-run the same command to retry exactly these items.</p>"
            '<table id="model-errors"><thead><tr><th>model</th><th>items</th><th>re-run to retry</th></tr>'
            f"</thead><tbody>{rows}</tbody></table>")


def drill_down(drills: list[Drill]) -> str:
    out = []
    for d in drills:
        cls = d.status.value if d.status in (Status.PASSED, Status.FAILED) else "other"
        judges = "".join(f"<li><b>{_e(j)}</b>: {_e(t)}</li>" for j, t in d.judge_notes) or "<li>not judged</li>"
        out.append(
            f'<details><summary><span class="{cls}">{_e(d.status)}</span> {_e(d.instance_id)} &middot; '
            f"{_e(d.model)} #{d.sample} &middot; {d.tests_passed}/{d.tests_total} tests "
            f'<span class="muted">{_e(d.reason)}</span></summary>'
            f"<h4>Candidate vs reference</h4><pre>{_e(d.diff or '(identical or unavailable)')}</pre>"
            f"<h4>Judge</h4><ul>{judges}</ul><h4>Test log (tail)</h4><pre>{_e(d.log_tail[-LOG_TAIL_CHARS:])}</pre>"
            "</details>")
    return "".join(out)


def render(data: ReportData) -> str:
    scores = data.scores
    body = [
        "<h1>lmrbench report</h1>",
        f'<p class="muted">Runs: {_e(", ".join(data.runs))}. Pass rates are over implementations; CIs are '
        "percentile bootstrap (2000 resamples of implementations); pass@k uses the unbiased estimator of "
        "Chen et al. (2021).</p>",
        "<h2>Leaderboard</h2>", leaderboard(scores), original_rule_section(scores), unmeasured_section(scores),
        model_errors_section(scores),
        forgeable_section(scores),
        "<h2>Per category</h2>", category_bars(scores), "<h2>pass@k</h2>", pass_at_k_curves(scores),
        budget_html(data.budget_curves),
        "<h2>Judge against unit tests</h2>", judge_vs_tests(scores),
        "<h2>Judge agreement with humans</h2>", agreement_section(data),
        "<h2>Implementations</h2>", drill_down(data.drills),
        '<script type="application/json" id="report-data">'
        f"{_e(strict_json.dumps([s.model_dump() for s in scores], indent=None))}</script>",
    ]
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>lmrbench report</title>"
            f"<style>{CSS}</style><script>{JS}</script></head><body>{''.join(body)}</body></html>\n")
