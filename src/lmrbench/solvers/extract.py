"""Pull target definitions out of a model's free-form answer.

Real answers come in every shape: prose around fenced code, several blocks, a whole file, a method without its
class, a class when a method was asked for, decorators, nested or extra helpers, missing imports, an answer cut
off mid-block. Each target is looked for in every candidate block, last block first.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from lmrbench.tasks.source import SourceError, definition_in, find_node

FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


class ExtractionError(ValueError):
    """Nothing usable in the answer; the message says why."""


@dataclass
class Extraction:
    definitions: dict[str, str] = field(default_factory=dict)
    helpers: dict[str, str] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)


def _parses(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _trim_to_parse(code: str) -> str | None:
    """A truncated block: drop trailing lines until it parses (keeps what is complete)."""
    lines = code.rstrip().split("\n")
    for cut in range(len(lines), max(0, len(lines) - 40), -1):
        candidate = "\n".join(lines[:cut])
        if candidate.strip() and _parses(candidate) is not None:
            return candidate
    return None


def candidate_blocks(answer: str) -> list[str]:
    """Code blocks, most likely first: fenced python blocks (last first), other fences, then the bare answer."""
    fenced = [(lang.lower(), body) for lang, body in FENCE.findall(answer)]
    py = [b for lang, b in fenced if lang in ("python", "py", "python3", "")]
    other = [b for lang, b in fenced if lang not in ("python", "py", "python3", "")]
    blocks = list(reversed(py)) + list(reversed(other))
    if not fenced:
        blocks.append(answer)
        start = re.search(r"^(?:@|def |class |async def )", answer, re.MULTILINE)
        if start:
            blocks.append(answer[start.start():])
    out = []
    for b in blocks:
        code = b if _parses(b) is not None else _trim_to_parse(b)
        if code is not None:
            out.append(code)
    return out


def _top_names(tree: ast.Module) -> dict[str, ast.stmt]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def _used_names(code: str) -> set[str]:
    tree = ast.parse(code)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


def _keep_decorators(definition: str, original: str, target: str) -> str:
    """If the answer dropped the original's decorators (e.g. @staticmethod), put them back."""
    new = ast.parse(definition).body[0]
    old = find_node(ast.parse(original), target)
    if isinstance(new, ast.FunctionDef | ast.AsyncFunctionDef) and not new.decorator_list and old is not None \
            and old.decorator_list:
        decos = "".join(f"@{ast.unparse(d)}\n" for d in old.decorator_list)
        return decos + definition
    return definition


def extract_targets(answer: str, targets: list[str], goal_source: str) -> Extraction:
    """Find every target; add helpers the targets call and imports they need that the goal file lacks."""
    blocks = candidate_blocks(answer)
    if not blocks:
        raise ExtractionError("no parsable Python code in the answer")
    result = Extraction()
    goal_tree = ast.parse(goal_source)
    goal_names = set(_top_names(goal_tree)) | {
        (a.asname or a.name).split(".")[0] for n in goal_tree.body if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    used_blocks = []
    for target in targets:
        for block in blocks:
            try:
                result.definitions[target] = _keep_decorators(definition_in(block, target), goal_source, target)
                used_blocks.append(block)
                break
            except SourceError:
                continue
        else:
            raise ExtractionError(f"the answer has no definition of '{target}'")
    needed = set().union(*(_used_names(d) for d in result.definitions.values()))
    short = {t.split(".")[-1] for t in targets} | {t.split(".")[0] for t in targets}
    for block in dict.fromkeys(used_blocks):
        tree = ast.parse(block)
        for name, node in _top_names(tree).items():
            if name in needed and name not in goal_names and name not in short:
                helper = ast.get_source_segment(block, node) or ast.unparse(node)
                result.helpers[name] = helper
                needed |= _used_names(helper)
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = {(a.asname or a.name).split(".")[0] for a in node.names}
                if names & needed and not names <= goal_names:
                    result.imports.append(ast.unparse(node))
    return result
