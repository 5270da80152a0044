"""Find, extract, splice and mask definitions in Python source, keeping the rest of the file byte-for-byte.

Definitions are located with `ast` (line numbers only); text is cut and pasted on whole lines, so comments,
formatting, decorators and neighbouring methods are untouched.

Splicing a prediction parses its goal file once, whatever the number of keys: the splice steps look the file up
with `file_tree`, which keeps the last file parsed (per thread) and, after an edit whose lines are known (a
definition replaced, appended, or added to a class; an import added), updates that tree in place instead of
parsing the grown file again. `splice_functions` also takes a deadline, checked between steps.
"""

from __future__ import annotations

import ast
import re
import textwrap
import threading
import time
from dataclasses import dataclass
from typing import Any

from lmrbench import pyast

STUB_LINES = ("# TODO: implement (see the method description).", "raise NotImplementedError")

DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class SourceError(ValueError):
    """A definition cannot be found, parsed or spliced."""


class TimeLimit(SourceError):
    """Splicing went past its deadline."""


@dataclass(frozen=True)
class Span:
    """Lines [start, end] (1-based, inclusive) of a definition, its decorators included."""

    start: int
    end: int
    indent: str
    node: DefNode


def _parse(source: str, what: str) -> ast.Module:
    try:
        return pyast.parse(source)
    except SyntaxError as exc:
        raise SourceError(f"{what} does not parse: {exc.msg} (line {exc.lineno})") from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        raise SourceError(f"{what} does not parse: {type(exc).__name__}: {exc}") from exc


# --- The goal file's tree, parsed once per text and kept up to date across splice steps ----------------------

_EXOTIC_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class _LastTree(threading.local):
    """The last goal file parsed or edited in this thread: its text, lines, tree and definition indexes."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.tree: ast.Module | None = None
        self.lines: list[str] = []
        self.agree = False  # the source's line breaks are ones `splitlines` and the parser count alike
        self.defs: dict[int, tuple[list[ast.stmt], dict[str, DefNode]]] = {}  # id(body) -> (body, name -> def)
        self.imports: set[str] | None = None  # ast.dump of each top-level import
        self.nl = "\n"  # the source's line ending (`_newline`)
        self.lead: tuple[int, int | None] | None = None  # (body index after the leading imports, last's end line)
        self.binders: dict[str, list[tuple[int, ast.stmt]]] | None = None  # name -> top-level non-import binders

    def keep(self, source: str | None, tree: ast.Module | None, lines: list[str], agree: bool) -> None:
        if tree is not self.tree:
            self.defs, self.imports, self.lead, self.binders = {}, None, None, None
        self.source, self.tree, self.lines, self.agree = source, tree, lines, agree


_LAST = _LastTree()


def file_tree(source: str) -> ast.Module:
    """The parsed file: the tree kept from the last parse or edit when it is of this very text, else a new parse.
    Callers only read it (edits go through `_track`)."""
    if _LAST.tree is not None and (_LAST.source is source or _LAST.source == source):
        return _LAST.tree
    tree = _parse(source, "the file")
    _LAST.keep(source, tree, source.splitlines(keepends=True), _line_breaks_agree(source))
    _LAST.nl = _newline(source)
    return tree


def file_newline(source: str) -> str:
    """`_newline(source)`, kept with the tree."""
    if _LAST.tree is not None and (_LAST.source is source or _LAST.source == source):
        return _LAST.nl
    return _newline(source)


def file_lines(source: str) -> list[str]:
    """`source.splitlines(keepends=True)`, kept with the tree (callers must not change the list)."""
    if _LAST.tree is not None and (_LAST.source is source or _LAST.source == source):
        return _LAST.lines
    return source.splitlines(keepends=True)


def _line_breaks_agree(text: str) -> bool:
    """`splitlines` and the parser count the same lines (only \\n and \\r\\n breaks)."""
    return not _EXOTIC_BREAKS.search(text.replace("\r\n", "\n"))


def _parse_at(new: list[str], first_line: int, indent: str) -> list[ast.stmt] | None:
    """Statements of lines that start at line `first_line` of a file, with the file's line numbers."""
    text = "".join(new)
    try:
        body = ast.parse(f"if 1:\n{text}" if indent else text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    stmts = body[0].body if indent and isinstance(body[0], ast.If) else body
    for stmt in stmts:
        ast.increment_lineno(stmt, first_line - (2 if indent else 1))
    return stmts


@dataclass
class _Edit:
    """Lines inserted at `at` (1-based), replacing `remove` statements from `index` of `container` and the
    `removed_lines` lines they spanned; `owners` are the definitions that hold `container`, outermost first."""

    container: list[ast.stmt]
    index: int
    remove: int
    owners: list[tuple[list[ast.stmt], DefNode]]
    at: int
    removed_lines: int
    new: list[str]
    skip: int = 0  # leading new lines that are blank (not parsed)
    indent: str = ""


def _track(lines: list[str], tree: ast.Module, edit: _Edit) -> str:
    """The text of `lines` (an edit of the file `tree` was parsed from). `tree` is kept as its tree, updated in
    place, or forgotten when the edit's lines cannot be placed for sure."""
    result = "".join(lines)
    agree, defs, imports, nl = _LAST.agree and _LAST.tree is tree, _LAST.defs, _LAST.imports, _LAST.nl
    lead, binders = _LAST.lead, _LAST.binders
    _LAST.keep(None, None, [], False)
    if not agree or not _line_breaks_agree("".join(edit.new)):
        return result
    stmts = _parse_at(edit.new[edit.skip :], edit.at + edit.skip, edit.indent)
    if stmts is None:
        return result
    removed = edit.container[edit.index : edit.index + edit.remove]
    delta = len(edit.new) - edit.removed_lines
    edit.container[edit.index : edit.index + edit.remove] = stmts
    _shift(edit.container[edit.index + len(stmts) :], delta)
    for container, owner in reversed(edit.owners):
        owner.end_lineno = (owner.end_lineno or 0) + delta
        _shift(container[_index(container, owner) + 1 :], delta)
    _LAST.keep(result, tree, lines, True)
    _LAST.defs = defs
    # the line ending: unchanged by an insertion of lines that hold no CRLF, else looked up again
    crlf = any("\r\n" in line for line in edit.new)
    _LAST.nl = "\r\n" if crlf or (nl == "\r\n" and not edit.removed_lines) else (nl if nl == "\n" else
                                                                               _newline(result))
    _reindex(edit, removed, stmts)
    if edit.container is tree.body:
        _top_level_edited(edit, removed, stmts, delta, (imports, lead, binders))
    else:  # inside a definition: the module's imports and binders are the same statements
        _LAST.imports, _LAST.binders = imports, binders
    return result


def _top_level_edited(edit: _Edit, removed: list[ast.stmt], stmts: list[ast.stmt], delta: int,
                      kept: tuple[set[str] | None, tuple[int, int | None] | None, Any]) -> None:
    """Carry the import dumps, the leading-import block and the binders index over an edit of the module body
    where the edit's effect on them is plain (imports inserted), else leave them to be rebuilt."""
    imports, lead, binders = kept
    only_imports = not removed and all(_is_import(n) for n in stmts)
    if imports is not None and not any(_is_import(n) for n in removed):
        _LAST.imports = imports | {ast.dump(n) for n in stmts if _is_import(n)}
    if lead is not None and stmts:
        index, last = lead
        if only_imports and edit.index == index:
            _LAST.lead = (index + len(stmts), stmts[-1].end_lineno)
        elif only_imports and edit.index < index:
            _LAST.lead = (index + len(stmts), None if last is None else last + delta)
        elif edit.index >= index and not any(_is_import(n) for n in stmts):
            _LAST.lead = lead
    if only_imports:
        _LAST.binders = binders  # (positions go stale but keep their order: imports bind nothing they index)


def _is_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Import | ast.ImportFrom)


def _import_dumps(tree: ast.Module) -> set[str]:
    """ast.dump of each top-level import of the file (kept with the tree)."""
    if tree is not _LAST.tree:
        return {ast.dump(s) for s in tree.body if _is_import(s)}
    if _LAST.imports is None:
        _LAST.imports = {ast.dump(s) for s in tree.body if _is_import(s)}
    return _LAST.imports


def _reindex(edit: _Edit, removed: list[ast.stmt], stmts: list[ast.stmt]) -> None:
    """Keep the container's name -> definition index when the edit's effect on it is plain, else drop it."""
    entry = _LAST.defs.get(id(edit.container))
    if entry is None:
        return
    index = entry[1]
    old = [n for n in removed if isinstance(n, DefNode)]
    new = [n for n in stmts if isinstance(n, DefNode)]
    appended = not removed and edit.index + len(stmts) == len(edit.container)
    same_place = len(old) == len(new) == 1 and old[0].name == new[0].name and index.get(old[0].name) is old[0]
    if appended or same_place:
        index.update((n.name, n) for n in new)
    elif old or new:
        del _LAST.defs[id(edit.container)]


def _index(container: list[ast.stmt], node: ast.stmt) -> int:
    """Position of `node` in `container` (searched from the end: edits cluster there)."""
    return next(i for i in range(len(container) - 1, -1, -1) if container[i] is node)


def _shift(stmts: list[ast.stmt], delta: int) -> None:
    if delta:
        for stmt in stmts:
            ast.increment_lineno(stmt, delta)


def _defs(tree: ast.Module, body: list[ast.stmt]) -> dict[str, DefNode]:
    """Name -> the last definition of that name in `body` (indexed once per body of the kept tree)."""
    if tree is not _LAST.tree:
        return _child_defs(body)
    entry = _LAST.defs.get(id(body))
    if entry is None or entry[0] is not body:
        entry = _LAST.defs[id(body)] = (body, _child_defs(body))
    return entry[1]


def _find_path(tree: ast.Module, qualname: str) -> list[tuple[list[ast.stmt], DefNode]]:
    """(container, definition) for each part of a qualified name down to it (as `find_node` finds it), or []."""
    body: list[ast.stmt] = tree.body
    path: list[tuple[list[ast.stmt], DefNode]] = []
    for part in qualname.split("."):
        node = _defs(tree, body).get(part)
        if node is None:
            return []
        path.append((body, node))
        body = node.body
    return path


def _child_defs(body: list[ast.stmt]) -> dict[str, DefNode]:
    found: dict[str, DefNode] = {}
    for node in body:
        if isinstance(node, DefNode) and node.name not in found:
            found[node.name] = node
    # A later redefinition wins, as at run time.
    for node in body:
        if isinstance(node, DefNode):
            found[node.name] = node
    return found


def find_node(tree: ast.Module, qualname: str) -> DefNode | None:
    """The definition named by a dotted qualified name (`f`, `C.m`, `C.Inner.m`), or None."""
    body: list[ast.stmt] = tree.body
    node: DefNode | None = None
    for part in qualname.split("."):
        node = _child_defs(body).get(part)
        if node is None:
            return None
        body = node.body
    return node


def _span(source_lines: list[str], node: DefNode) -> Span:
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    assert node.end_lineno is not None
    line = source_lines[start - 1]
    indent = line[: len(line) - len(line.lstrip())]
    return Span(start, node.end_lineno, indent, node)


def find_span(source: str, qualname: str) -> Span:
    """Locate a definition; raises SourceError when absent."""
    tree = _parse(source, "the file")
    node = find_node(tree, qualname)
    if node is None:
        raise SourceError(f"no definition named '{qualname}'")
    return _span(source.splitlines(keepends=True), node)


def extract(source: str, qualname: str) -> str:
    """The source text of one definition, dedented, with a trailing newline."""
    span = find_span(source, qualname)
    lines = source.splitlines(keepends=True)[span.start - 1 : span.end]
    text = textwrap.dedent("".join(lines))
    return text if text.endswith("\n") else text + "\n"


def _reindent(text: str, indent: str, newline: str) -> list[str]:
    body = textwrap.dedent(text).strip("\n")
    return [(indent + ln if ln.strip() else "") + newline for ln in body.split("\n")]


def _newline(source: str) -> str:
    return "\r\n" if "\r\n" in source else "\n"


def definition_in(snippet: str, qualname: str) -> str:
    """Pull the definition `qualname` out of a snippet of code (a model's answer, a wrong variant).

    Accepts the definition itself, or a class wrapping a method. Falls back to the last path component
    (a method given without its class).
    """
    tree = _parse(textwrap.dedent(snippet), "the snippet")
    snippet = textwrap.dedent(snippet)
    for name in (qualname, qualname.split(".")[-1]):
        node = find_node(tree, name)
        if node is not None:
            return extract(snippet, name)
    raise SourceError(f"the snippet has no definition of '{qualname}'")


def splice(source: str, qualname: str, definition: str) -> str:
    """Replace a definition (or add it when absent) and return the new file text.

    The replacement is re-indented to the target's indentation. A missing top-level name is appended at
    the end of the module; a missing method is appended at the end of its class.
    """
    _parse(definition, f"the new definition of '{qualname}'")
    tree = file_tree(source)
    nl, lines = file_newline(source), file_lines(source)
    path = _find_path(tree, qualname)
    if path:
        container, node = path[-1]
        span = _span(lines, node)
        new = _reindent(definition, span.indent, nl)
        return _track(lines[: span.start - 1] + new + lines[span.end :], tree, _Edit(
            container, _index(container, node), 1, path[:-1], span.start, span.end - span.start + 1, new,
            indent=span.indent))
    parent_name, _, _ = qualname.rpartition(".")
    if not parent_name:
        head = list(lines)
        if head and not head[-1].endswith(("\n", "\r")):
            head[-1] += nl
        new = [nl, nl, *_reindent(definition, "", nl)]
        return _track(head + new, tree, _Edit(tree.body, len(tree.body), 0, [], len(lines) + 1, 0, new, skip=2))
    return _add_method(lines, tree, qualname, definition, nl)


def _add_method(lines: list[str], tree: ast.Module, qualname: str, definition: str, nl: str) -> str:
    """A method appended at the end of its class (an existing class, else SourceError)."""
    parent_name, _, _ = qualname.rpartition(".")
    owners = _find_path(tree, parent_name)
    parent = owners[-1][1] if owners else None
    if not isinstance(parent, ast.ClassDef):
        raise SourceError(f"cannot add '{qualname}': no class '{parent_name}'")
    pspan = _span(lines, parent)
    inner = pspan.indent + "    "
    first = parent.body[0]
    first_line = lines[first.lineno - 1]
    if first.lineno > parent.lineno:
        inner = first_line[: len(first_line) - len(first_line.lstrip())]
    new = [nl, *_reindent(definition, inner, nl)]
    result = lines[: pspan.end] + new + lines[pspan.end :]
    if first.lineno == parent.lineno or not lines[pspan.end - 1].endswith(("\n", "\r")):
        _LAST.keep(None, None, [], False)  # a one-line class or a last line without a break: parse again
        return "".join(result)
    return _track(result, tree, _Edit(parent.body, len(parent.body), 0, owners, pspan.end + 1, 0, new, skip=1,
                                      indent=inner))


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _docstring_end(node: DefNode) -> int | None:
    first = node.body[0]
    return first.end_lineno if _is_docstring(first) else None


def _mask_function(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef, nl: str) -> list[str]:
    """Lines of the file with one function's body replaced by the stub."""
    first = node.body[0]
    if first.lineno == node.lineno:
        raise SourceError(f"'{node.name}' has its body on the def line; cannot mask it")
    body_line = lines[first.lineno - 1]
    indent = body_line[: len(body_line) - len(body_line.lstrip())]
    doc_end = _docstring_end(node)
    keep_until = doc_end if doc_end is not None else first.lineno - 1
    assert node.end_lineno is not None
    stub = [indent + s + nl for s in STUB_LINES]
    return lines[:keep_until] + stub + lines[node.end_lineno :]


def mask(source: str, qualname: str) -> str:
    """Replace a function's body by the stub (docstring kept). For a class, every method is masked."""
    nl = _newline(source)
    tree = _parse(source, "the file")
    node = find_node(tree, qualname)
    if node is None:
        raise SourceError(f"no definition named '{qualname}'")
    if isinstance(node, ast.ClassDef):
        methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        if not methods:
            raise SourceError(f"class '{qualname}' has no methods to mask")
        # Bottom-up so earlier line numbers stay valid.
        for method in sorted(methods, key=lambda m: m.lineno, reverse=True):
            source = mask(source, f"{qualname}.{method.name}")
        return source
    lines = source.splitlines(keepends=True)
    return "".join(_mask_function(lines, node, nl))


def is_stub(source: str, qualname: str) -> bool:
    """True when the definition's body is only a docstring, comments and `raise NotImplementedError`."""
    node = find_node(_parse(source, "the file"), qualname)
    if node is None:
        return False
    if isinstance(node, ast.ClassDef):
        methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        return bool(methods) and all(is_stub(source, f"{qualname}.{m.name}") for m in methods)
    body = node.body[1:] if _docstring_end(node) is not None else node.body
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0])


def body_fingerprint(source: str, qualname: str) -> str | None:
    """A normalised dump of a definition's body (no docstring), for finding copies elsewhere."""
    node = find_node(_parse(source, "the file"), qualname)
    if node is None:
        return None
    body = node.body[1:] if _docstring_end(node) is not None else node.body
    if not body:
        return None
    return "\n".join(ast.dump(stmt, annotate_fields=False) for stmt in body)


# --- Module additions: everything an answer adds besides its target definitions -------------------------------

MODULE_KEY = "<module>"
"""Pseudo-key of a `functions` entry: module-level code the answer adds or changes, in the answer's order."""
IMPORTS_KEY = "<imports>"
"""The older pseudo-key (import lines only); still read, with the same meaning as MODULE_KEY."""

# Statements that only run code when the module is imported (demos, prints, checks): never module additions.
_RUNS_CODE = (ast.Expr, ast.Assert, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Raise,
              ast.Delete, ast.Pass, ast.Global, ast.Nonlocal, ast.Return, ast.Break, ast.Continue, ast.Match)


def bound_names(stmt: ast.stmt) -> set[str]:
    """Names a statement binds in its own scope (a def's name, assignment targets, imported names)."""
    if isinstance(stmt, DefNode):
        return {stmt.name}
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    elif isinstance(stmt, ast.If | ast.Try):
        inner = [*stmt.body, *stmt.orelse, *getattr(stmt, "finalbody", [])]
        inner += [s for h in getattr(stmt, "handlers", []) for s in h.body]
        return set().union(*(bound_names(s) for s in inner))
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def used_names(node: ast.AST) -> set[str]:
    """Every bare name a piece of code mentions (loads, stores, attribute bases)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def is_main_guard(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (a demo)."""
    return isinstance(stmt, ast.If) and "__name__" in used_names(stmt.test) and "__main__" in ast.unparse(stmt.test)


def runs_code(stmt: ast.stmt) -> bool:
    """A statement that runs code at import and defines nothing: a demo, a print, a check."""
    return isinstance(stmt, _RUNS_CODE) or is_main_guard(stmt)


def is_placeholder(stmt: ast.stmt) -> bool:
    """An abbreviated definition (`def f(self): ...`, `X = ...`): stands for the file's own version."""
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        return isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    body = stmt.body[1:] if _docstring_end(stmt) is not None else stmt.body
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                           and s.value.value is Ellipsis) for s in body)


def same_statement(a: ast.stmt, b: ast.stmt) -> bool:
    """Equal code, whatever the formatting and comments."""
    return ast.dump(a) == ast.dump(b)


def first_line(stmt: ast.stmt) -> int:
    """0-based index of a statement's first line, decorators included."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))]) - 1


def _start_with_comments(lines: list[str], body: list[ast.stmt], i: int) -> int:
    """0-based index of the first line of body[i], lifted over the comment lines directly above it."""
    start = first_line(body[i])
    floor = (body[i - 1].end_lineno or 0) if i else 0
    while start > floor and lines[start - 1].strip().startswith("#"):
        start -= 1
    return start


def statement_lines(lines: list[str], body: list[ast.stmt], i: int) -> list[str]:
    """Lines of body[i] (decorators included) with the comment lines directly above it."""
    return lines[_start_with_comments(lines, body, i) : body[i].end_lineno]


def _as_lines(code: str, indent: str, nl: str) -> list[str]:
    return [(indent + ln if ln.strip() else "") + nl for ln in textwrap.dedent(code).strip("\n").split("\n")]


def _import_line(tree: ast.Module, future: bool) -> tuple[int, bool, int]:
    """Where a new import goes: (0-based line index, whether a blank line should follow it, index in the body).

    After the file's leading import block; a `from __future__` import, or a file without leading imports,
    gets the first place after the module docstring.
    """
    body = tree.body
    i = 1 if body and _is_docstring(body[0]) else 0
    top = (body[0].end_lineno or 0) if i else (body[0].lineno - 1 if body else 0)
    if future:
        return top, False, i
    end, last = _leading_imports(tree)
    return (last, False, end) if last is not None else (top, True, i)


def _leading_imports(tree: ast.Module) -> tuple[int, int | None]:
    """(body index after the file's leading import block, the block's last line or None), kept with the tree."""
    if tree is _LAST.tree and _LAST.lead is not None:
        return _LAST.lead
    body = tree.body
    i = 1 if body and _is_docstring(body[0]) else 0
    last = None
    while i < len(body) and _is_import(body[i]):
        last = body[i].end_lineno
        i += 1
    if tree is _LAST.tree:
        _LAST.lead = (i, last)
    return i, last


def _top_binders(tree: ast.Module, names: set[str]) -> list[ast.stmt]:
    """The module's non-import statements that bind any of `names`, in order (indexed once per kept tree)."""
    index = _LAST.binders if tree is _LAST.tree else None
    if index is None:
        index = {}
        for i, stmt in enumerate(tree.body):
            if not _is_import(stmt):
                for name in bound_names(stmt):
                    index.setdefault(name, []).append((i, stmt))
        if tree is _LAST.tree:
            _LAST.binders = index
    found = {id(stmt): (i, stmt) for name in names for i, stmt in index.get(name, [])}
    return [stmt for _, stmt in sorted(found.values(), key=lambda pair: pair[0])]


def _add_import(source: str, stmt: ast.stmt, code: list[str], nl: str) -> str:
    tree = file_tree(source)
    if ast.dump(stmt) in _import_dumps(tree):  # the same import, whatever its formatting (`same_statement`)
        return source
    future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
    at, blank, index = _import_line(tree, future)
    lines = list(file_lines(source))
    if lines and at == len(lines) and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += nl
    new = _as_lines("".join(code), "", nl)
    if blank and at < len(lines) and lines[at].strip():
        new.append(nl)
    return _track(lines[:at] + new + lines[at:], tree, _Edit(tree.body, index, 0, [], at + 1, 0, new))


def _replace_top_level(source: str, stmt: ast.stmt, code: list[str], nl: str) -> str | None:
    """Put a statement in place of the file's binding of its names; None when the file binds none of them."""
    tree = file_tree(source)
    binders = _top_binders(tree, bound_names(stmt))
    if not binders:
        return None
    if any(same_statement(stmt, b) for b in binders) or is_placeholder(stmt):
        return source
    return _rebind(file_lines(source), binders[-1], bound_names(stmt), _as_lines("".join(code), "", nl), [nl, nl])


def _rebind(lines: list[str], old: ast.stmt, names: set[str], new: list[str], gap: list[str]) -> str:
    """The new lines in place of a statement that binds nothing else, else right after it (it rebinds a part)."""
    if bound_names(old) <= names:
        return "".join(lines[: first_line(old)] + new + lines[old.end_lineno or 0 :])
    at = old.end_lineno or 0
    return "".join(lines[:at] + gap + new + lines[at:])


def import_time_names(stmt: ast.stmt) -> set[str]:
    """Names a statement needs when the module is imported (not when its functions are called)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        a = stmt.args
        parts: list[ast.AST | None] = [*stmt.decorator_list, *a.defaults, *a.kw_defaults, stmt.returns]
        parts += [arg.annotation for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if arg]
        return set().union(*(used_names(p) for p in parts if p is not None))
    if isinstance(stmt, ast.ClassDef):
        head = set().union(*(used_names(p) for p in [*stmt.decorator_list, *stmt.bases, *stmt.keywords]))
        return head.union(*(import_time_names(s) for s in stmt.body))
    return used_names(stmt)


def _insertion_index(body: list[ast.stmt], group: list[ast.stmt], names: set[str]) -> int | None:
    """Before the first statement that uses the group, unless the group needs at import time a name that only
    a later statement binds: then right after that statement."""
    user = next((i for i, s in enumerate(body) if used_names(s) & names), None)
    if user is None:
        return None
    needs = set().union(*(import_time_names(s) for s in group)) - names
    needs -= set().union(set(), *(bound_names(s) for s in body[:user]))
    later = [i for i, s in enumerate(body) if i >= user and bound_names(s) & needs]
    return later[-1] + 1 if later else user


def _insert_new(source: str, group: list[ast.stmt], chunks: list[list[str]], names: set[str], nl: str) -> str:
    """New statements, together and in their order, right before the first statement that uses one of them."""
    new: list[str] = []
    for chunk in chunks:
        new += ([nl, nl] if new else []) + _as_lines("".join(chunk), "", nl)
    body = file_tree(source).body
    lines = source.splitlines(keepends=True)
    user = _insertion_index(body, group, names)
    if user is None or user == len(body):
        head = "".join(lines)
        if head and not head.endswith(("\n", "\r")):
            head += nl
        return head + nl + nl + "".join(new)
    at = _start_with_comments(lines, body, user)
    return "".join(lines[:at] + new + [nl, nl] + lines[at:])


def add_module_code(source: str, code: str, deadline: float | None = None) -> str:
    """Splice module-level additions into a file.

    Imports the file lacks go after its leading imports (`from __future__` ones first of all). A statement
    that binds a name the file already binds replaces the file's (last) binding in place, unless it is the
    same code or a placeholder (`def f(): ...`). The new statements go together, in their order, right
    before the first top-level statement of the file that mentions one of their names (else at the end), or
    after a later statement binding a name they need at import time. Past `deadline` (time.monotonic), raises
    TimeLimit.
    """
    code = textwrap.dedent(code)
    tree = _parse(code, "the module additions")
    code_lines = code.splitlines(keepends=True)
    nl = _newline(source)
    group, chunks, names = [], [], set()
    for i, stmt in enumerate(tree.body):
        check_deadline(deadline)
        chunk = statement_lines(code_lines, tree.body, i)
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            source = _add_import(source, stmt, chunk, nl)
            continue
        replaced = _replace_top_level(source, stmt, chunk, nl)
        if replaced is None:
            group.append(stmt)
            chunks.append(chunk)
            names |= bound_names(stmt)
        else:
            source = replaced
    return _insert_new(source, group, chunks, names, nl) if chunks else source


def _splice_class_attribute(source: str, qualname: str, code: str) -> str:
    """Replace or add a class-level assignment (`C.EPS` = `EPS = 1e-8`); a new one goes before the methods."""
    parent_name, _, _ = qualname.rpartition(".")
    tree = file_tree(source)
    parent = find_node(tree, parent_name)
    if not isinstance(parent, ast.ClassDef):
        raise SourceError(f"cannot add '{qualname}': no class '{parent_name}'")
    stmt = pyast.parse(code).body[0]
    nl = _newline(source)
    lines = source.splitlines(keepends=True)
    members = parent.body
    if members[0].lineno == parent.lineno:
        raise SourceError(f"cannot add '{qualname}': class '{parent_name}' is written on one line")
    first = lines[members[0].lineno - 1]
    indent = first[: len(first) - len(first.lstrip())]
    new = _as_lines(code, indent, nl)
    binders = [s for s in members if bound_names(s) & bound_names(stmt)]
    if binders:
        return _rebind(lines, binders[-1], bound_names(stmt), new, [])
    defs = [i for i, s in enumerate(members) if isinstance(s, DefNode)]
    if not defs:
        at = members[-1].end_lineno or 0
        return "".join(lines[:at] + new + lines[at:])
    at = _start_with_comments(lines, members, defs[0])
    return "".join(lines[:at] + new + [nl] + lines[at:])


def splice_entry(source: str, qualname: str, code: str) -> str:
    """Splice one keyed entry: a definition (function, method, class) or a class-level assignment."""
    tree = _parse(textwrap.dedent(code), f"the new definition of '{qualname}'")
    name = qualname.rpartition(".")[2]
    first = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(first, ast.Assign | ast.AnnAssign) and name in bound_names(first):
        if "." in qualname:
            return _splice_class_attribute(source, qualname, textwrap.dedent(code))
        return add_module_code(source, code)
    return splice(source, qualname, definition_in(code, qualname))


def check_deadline(deadline: float | None) -> None:
    """Raise TimeLimit once `deadline` (a time.monotonic value) has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise TimeLimit("splicing took longer than its time limit")


def splice_functions(source: str, entry: dict[str, str], deadline: float | None = None) -> str:
    """Apply one file's entry of a `functions` prediction: each keyed definition, then the module additions.

    The module additions come last so that a new helper lands before its first use in the final file. The file
    is parsed once, whatever the number of keys (see `file_tree`); past `deadline` (time.monotonic), raises
    TimeLimit.
    """
    for key, code in entry.items():
        if key in (MODULE_KEY, IMPORTS_KEY):
            continue
        check_deadline(deadline)
        try:
            source = splice_entry(source, key, code)
        except TimeLimit:
            raise
        except SourceError as exc:
            raise SourceError(f"{key}: {exc}") from exc
    for key in (IMPORTS_KEY, MODULE_KEY):
        if key in entry:
            try:
                source = add_module_code(source, entry[key], deadline)
            except TimeLimit:
                raise
            except SourceError as exc:
                raise SourceError(f"{key}: {exc}") from exc
    return source
