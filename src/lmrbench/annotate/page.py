"""The annotation page: one self-contained HTML document (inline CSS and JS, nothing fetched from elsewhere).

Model text is hostile, so the page never builds markup from data: every field reaches the DOM through
`textContent`, and the Content-Security-Policy runs only the page's own script (its nonce), so a `<script>` in a
candidate is shown as text and could not run even if it were parsed.
"""

from __future__ import annotations

import html

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:8px 16px;z-index:1}
header .row{display:flex;gap:12px;align-items:center;flex-wrap:wrap}header .sub{margin-top:6px}
col.no{width:3.5em}
main{padding:8px 16px 40px;max-width:1500px}
h2{font-size:1.05em;margin:1.2em 0 .4em;border-bottom:1px solid #e3e3e3}
button{font:inherit;padding:4px 10px;border:1px solid #bbb;background:#fff;border-radius:4px;cursor:pointer}
button.lab{min-width:14em;text-align:left}button.lab.chosen{background:#1f6feb;color:#fff;border-color:#1f6feb}
textarea{width:100%;max-width:900px;height:3.2em;font:inherit}
pre{background:#f3f3f3;padding:8px;overflow:auto;max-height:420px;font-size:12px;white-space:pre-wrap}
table.diff{border-collapse:collapse;width:100%;table-layout:fixed;font:12px/1.35 ui-monospace,monospace}
table.diff td{vertical-align:top;white-space:pre-wrap;word-break:break-all;padding:0 4px}
table.diff td.no{width:3.5em;color:#888;text-align:right;user-select:none}
tr.replace td.l,tr.delete td.l{background:#ffe5e5}tr.replace td.r,tr.insert td.r{background:#e3f7e3}
table.diff td.none{background:#f0f0f0}button.lab.chosen kbd{color:#1f6feb}
.muted{color:#777}.saved{color:#17803d}.err{color:#b42318;font-weight:bold}
#verdict{border:1px solid #ccc;background:#fff;padding:6px 10px;max-width:900px}
details{margin:.4em 0}kbd{border:1px solid #bbb;border-radius:3px;padding:0 4px;background:#fff}
"""

JS = r"""
'use strict';
window.__pageErrors = [];
window.addEventListener('error', function (e) { window.__pageErrors.push(String(e.message)); });
var S = {token: document.body.dataset.token, pos: 0, total: 0, item: null};
function $(id) { return document.getElementById(id); }
function text(id, s) { $(id).textContent = s == null ? '' : String(s); }
function api(method, path, body) {
  var headers = {'X-Lmrbench-Token': S.token, 'Content-Type': 'application/json'};
  return fetch(path, {method: method, headers: headers, body: body ? JSON.stringify(body) : undefined})
    .then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.status); return j; });
    });
}
function cell(tr, cls, s) {
  var td = document.createElement('td'); td.className = cls; td.textContent = s; tr.appendChild(td);
}
function renderDiff(rows) {
  var body = $('diff-body'); body.textContent = '';
  rows.forEach(function (r) {
    var tr = document.createElement('tr'); tr.className = r.tag;
    cell(tr, 'no', r.left_no == null ? '' : r.left_no); cell(tr, r.left_no == null ? 'l none' : 'l', r.left);
    cell(tr, 'no', r.right_no == null ? '' : r.right_no); cell(tr, r.right_no == null ? 'r none' : 'r', r.right);
    body.appendChild(tr);
  });
}
function renderVerdict(v) {
  var box = $('verdict'); box.textContent = '';
  if (!v) {
    box.textContent = 'Hidden until you label this item.'; box.className = 'muted'; text('verdict-short', '');
    return;
  }
  box.className = '';
  text('verdict-short', 'tests: ' + v.status + ' ' + v.tests_passed + '/' + v.tests_total +
       v.judges.map(function (j) { return '; ' + j.judge + ': ' + (j.category == null ? j.status : j.category); })
         .join(''));
  var p = document.createElement('p');
  p.textContent = 'Unit tests: ' + v.status + ' (' + v.tests_passed + '/' + v.tests_total + ' tests)' +
                  (v.reason ? ': ' + v.reason : '');
  box.appendChild(p);
  if (!v.judges.length) { var q = document.createElement('p'); q.textContent = 'Not judged.'; box.appendChild(q); }
  v.judges.forEach(function (j) {
    var q = document.createElement('p');
    q.textContent = 'Judge ' + j.judge + ': ' + (j.category == null ? j.status : 'category ' + j.category) +
                    (j.rationale ? ': ' + j.rationale : '');
    box.appendChild(q);
  });
}
function renderLabel(lab) {
  document.querySelectorAll('button.lab').forEach(function (b) {
    b.classList.toggle('chosen', !!lab && String(lab.category) === b.dataset.cat);
  });
  $('comment').value = lab ? lab.comment : '';
  text('label-state', lab ? 'labelled ' + lab.category + ' (saved ' + lab.labelled_at + ')' : 'not labelled');
  $('label-state').className = lab ? 'saved' : 'muted';
}
function renderProgress(st) {
  text('progress', st.labelled + ' of ' + st.total + ' labelled');
  document.body.dataset.labelled = String(st.labelled);
}
function show(pos) {
  if (pos < 0 || pos >= S.total) return Promise.resolve();
  return api('GET', '/api/item/' + pos).then(function (d) {
    var v = d.view; S.pos = pos; S.item = d;
    text('position', 'Item ' + (pos + 1) + ' of ' + S.total);
    text('item-id', v.instance_id + ' \u00b7 ' + v.model + ' \u00b7 sample ' + v.sample);
    text('paper', v.paper_name); text('category', v.category);
    text('targets', v.goal_file + ': ' + v.targets.join(', '));
    text('instruction', v.instruction); text('description', v.description);
    text('description-source', '(' + v.description_source + ')');
    text('diff-note', v.diff_note); renderDiff(v.diff); text('log', v.log);
    renderLabel(d.label); renderVerdict(d.verdict); text('error', '');
    document.body.dataset.position = String(pos);
    document.body.dataset.instance = v.instance_id + '|' + v.model + '|' + v.sample;
    history.replaceState(null, '', '#' + (pos + 1));
  }).catch(fail);
}
function label(cat) {
  if (!S.item) return;
  return api('POST', '/api/label', {position: S.pos, category: cat, comment: $('comment').value})
    .then(function (d) { renderLabel(d.label); renderVerdict(d.verdict); renderProgress(d); })
    .catch(fail);
}
function fail(e) { window.__pageErrors.push(String(e.message)); text('error', 'Error: ' + e.message); }
document.addEventListener('keydown', function (e) {
  if (e.target && (e.target.tagName === 'TEXTAREA' || e.target.tagName === 'INPUT')) {
    if (e.key === 'Escape') e.target.blur();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === '1' || e.key === '2' || e.key === '3') { e.preventDefault(); label(Number(e.key)); }
  else if (e.key === 'n') { e.preventDefault(); show(S.pos + 1); }
  else if (e.key === 'p') { e.preventDefault(); show(S.pos - 1); }
});
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('button.lab').forEach(function (b) {
    b.addEventListener('click', function () { label(Number(b.dataset.cat)); b.blur(); });
  });
  $('prev').addEventListener('click', function () { show(S.pos - 1); });
  $('next').addEventListener('click', function () { show(S.pos + 1); });
  api('GET', '/api/state').then(function (st) {
    S.total = st.total; renderProgress(st);
    return show(st.start);
  }).then(function () { document.body.dataset.ready = '1'; }).catch(fail);
});
"""

BODY = """
<header><div class="row">
  <strong>lmrbench annotate</strong><span class="muted">annotator: {annotator}</span>
  <span id="progress"></span><span id="position"></span>
  <button id="prev" title="previous (p)">&larr; prev <kbd>p</kbd></button>
  <button id="next" title="next (n)">next <kbd>n</kbd> &rarr;</button>
  <span id="error" class="err"></span>
</div><div class="row sub">
  <button class="lab" data-cat="1" id="lab-1"><kbd>1</kbd> incorrect logic</button>
  <button class="lab" data-cat="2" id="lab-2"><kbd>2</kbd> logic right, subtle errors</button>
  <button class="lab" data-cat="3" id="lab-3"><kbd>3</kbd> completely correct</button>
  <span id="label-state" class="muted"></span><span id="verdict-short"></span>
</div><div class="row sub">
  <textarea id="comment" placeholder="Comment (saved with the label; Esc leaves the field)"></textarea>
</div></header>
<main>
<p><b id="item-id"></b><br><span id="paper"></span> &middot; <span id="category" class="muted"></span><br>
<span id="targets" class="muted"></span></p>
<h2>Instruction</h2><pre id="instruction"></pre>
<h2>Verdict</h2><div id="verdict"></div>
<h2>Candidate (right) against the reference (left)</h2><p id="diff-note" class="muted"></p>
<table class="diff"><colgroup><col class="no"><col><col class="no"><col></colgroup>
<thead><tr><th></th><th>reference</th><th></th><th>candidate</th></tr></thead><tbody id="diff-body"></tbody></table>
<h2>Method description <span id="description-source" class="muted"></span></h2>
<details><summary>show</summary><pre id="description"></pre></details>
<h2>Test log</h2>
<details id="log-box"><summary>show ({log_warning})</summary><pre id="log"></pre></details>
</main>
"""


def csp(nonce: str) -> str:
    """Only this page's own script and style run; it talks only to its own server."""
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
            "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def render_page(annotator: str, token: str, nonce: str, show_verdict: bool) -> str:
    warning = "the tests' output" if show_verdict else "it shows the tests' outcome: open it after labelling"
    body = BODY.replace("{annotator}", html.escape(annotator)).replace("{log_warning}", warning)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lmrbench annotate</title>'
            f'<style nonce="{nonce}">{CSS}</style></head>'
            f'<body data-token="{html.escape(token)}">{body}<script nonce="{nonce}">{JS}</script></body></html>\n')
