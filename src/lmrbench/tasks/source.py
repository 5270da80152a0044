"""Find, extract, splice and mask definitions in Python source, keeping the rest of the file byte-for-byte.

Definitions are located with `ast` (line numbers only); text is cut and pasted on whole lines, so comments,
formatting, decorators and neighbouring methods are untouched.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

STUB_LINES = ("# TODO: implement (see the method description).", "raise NotImplementedError")

DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class SourceError(ValueError):
    """A definition cannot be found, parsed or spliced."""


@dataclass(frozen=True)
class Span:
    """Lines [start, end] (1-based, inclusive) of a definition, its decorators included."""

    start: int
    end: int
    indent: str
    node: DefNode


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        raise SourceError(f"{what} does not parse: {exc.msg} (line {exc.lineno})") from exc


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
    nl = _newline(source)
    lines = source.splitlines(keepends=True)
    tree = _parse(source, "the file")
    node = find_node(tree, qualname)
    if node is not None:
        span = _span(lines, node)
        new = _reindent(definition, span.indent, nl)
        return "".join(lines[: span.start - 1] + new + lines[span.end :])
    parent_name, _, _ = qualname.rpartition(".")
    if not parent_name:
        head = "".join(lines)
        if head and not head.endswith(("\n", "\r")):
            head += nl
        return head + nl + nl + "".join(_reindent(definition, "", nl))
    parent = find_node(tree, parent_name)
    if not isinstance(parent, ast.ClassDef):
        raise SourceError(f"cannot add '{qualname}': no class '{parent_name}'")
    pspan = _span(lines, parent)
    inner = pspan.indent + "    "
    first = parent.body[0]
    first_line = lines[first.lineno - 1]
    if first.lineno > parent.lineno:
        inner = first_line[: len(first_line) - len(first_line.lstrip())]
    new = [nl, *_reindent(definition, inner, nl)]
    return "".join(lines[: pspan.end] + new + lines[pspan.end :])


def _docstring_end(node: DefNode) -> int | None:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno
    return None


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


IMPORTS_KEY = "<imports>"


def add_imports(source: str, imports: str) -> str:
    """Insert import lines missing from a file after its last top-level import (or at the top)."""
    nl = _newline(source)
    tree = _parse(source, "the file")
    present = {ast.unparse(n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)}
    new = [ln.strip() for ln in imports.splitlines() if ln.strip() and ln.strip() not in present]
    for ln in new:
        _parse(ln, f"import line {ln!r}")
        if not isinstance(ast.parse(ln).body[0], ast.Import | ast.ImportFrom):
            raise SourceError(f"{ln!r} is not an import")
    if not new:
        return source
    lines = source.splitlines(keepends=True)
    last = max((n.end_lineno or 0 for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)), default=0)
    if last == 0 and tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
        last = tree.body[0].end_lineno or 0  # after the module docstring
    block = [ln + nl for ln in new]
    return "".join(lines[:last] + block + lines[last:])
