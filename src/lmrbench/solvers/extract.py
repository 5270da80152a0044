"""Pull a model's code out of its free-form answer, losing nothing it defined.

Real answers come in every shape: prose around fenced code, several blocks, a whole file, a method without its
class, a class when a method was asked for, decorators, nested or extra helpers, constants, imports anywhere, an
answer cut off mid-block. Each target is looked for in every candidate block, last block first. Everything else
the answer defines (imports, constants, helper functions and classes, helper methods and class attributes of the
target's class) is kept as module additions or class members; only code that merely runs at import (demos,
prints, `if __name__ == "__main__":`) is dropped, with the imports and call results nothing else uses.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from lmrbench import pyast
from lmrbench.tasks.source import (
    MODULE_KEY,
    SourceError,
    bound_names,
    definition_in,
    find_node,
    first_line,
    is_placeholder,
    runs_code,
    same_statement,
    statement_lines,
    used_names,
)

# A fence closes at a line that starts (after at most three spaces, as in CommonMark) with three backticks, so a
# docstring's own ``` example inside the code (indented with its function) does not cut the block short.
FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(^[ ]{0,3}```|\Z)", re.DOTALL | re.MULTILINE)
PYTHON_LANGS = ("python", "py", "python3", "")
CODE_START = re.compile(r"^(?:@|def |class |async def |import |from [\w.]+ import )", re.MULTILINE)


class ExtractionError(ValueError):
    """Nothing usable in the answer; the message says why."""


@dataclass
class Extraction:
    """What an answer defines, as one file's entry of a `functions` prediction."""

    definitions: dict[str, str] = field(default_factory=dict)
    """Target qualified name -> its new source."""
    members: dict[str, str] = field(default_factory=dict)
    """'Class.name' -> a helper method or class attribute the answer adds to (or changes in) a target's class."""
    module: str = ""
    """Module-level code the answer adds or changes (imports, constants, helpers), in the answer's order."""

    def entry(self) -> dict[str, str]:
        """The `functions` entry for the goal file."""
        out = dict(self.definitions) | self.members
        if self.module:
            out[MODULE_KEY] = self.module
        return out


@dataclass(frozen=True)
class Block:
    """One candidate piece of code, in the answer's order."""

    code: str
    python: bool
    """Fenced as Python (or unlabelled), or the bare answer."""


def _parses(code: str) -> ast.Module | None:
    try:
        return pyast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _drop_cut_statement(code: str, cut_indent: int) -> str:
    """Drop the statement a truncation cut through (the last one, or the last member of a last class)."""
    tree = pyast.parse(code)
    if not tree.body or cut_indent == 0:
        return code
    last = tree.body[-1]
    if isinstance(last, ast.ClassDef):
        if cut_indent <= last.body[-1].col_offset:
            return code  # a new member was cut off: every member present is complete
        if len(last.body) > 1:
            last = last.body[-1]
    return "".join(code.splitlines(keepends=True)[: first_line(last)])


def _trim_to_parse(code: str) -> str | None:
    """A truncated block: drop trailing lines until it parses, then the statement the cut went through."""
    lines = code.rstrip().split("\n")
    for cut in range(len(lines), max(0, len(lines) - 40), -1):
        candidate = "\n".join(lines[:cut])
        if candidate.strip() and _parses(candidate) is not None:
            dropped = next((ln for ln in lines[cut:] if ln.strip()), "")
            kept = _drop_cut_statement(candidate, len(dropped) - len(dropped.lstrip()))
            return kept + "\n" if kept.strip() else None
    return None


def _usable(code: str) -> str | None:
    code = textwrap.dedent(code)
    return code if _parses(code) is not None else _trim_to_parse(code)


def answer_blocks(answer: str) -> list[Block]:
    """Every parsable code block in the answer's order; the bare answer when it has no fences."""
    fenced = [(lang.lower(), body) for lang, body, _ in FENCE.findall(answer)]
    if not fenced:
        return _bare_block(answer)
    blocks = []
    for lang, body in fenced:
        code = _usable(body)
        if code is not None:
            blocks.append(Block(code, lang in PYTHON_LANGS))
    return blocks


def _bare_block(answer: str) -> list[Block]:
    """An answer without fences: all of it when it parses, else from its first line of code on."""
    start = CODE_START.search(answer)
    options = [answer]
    if start and start.start() > 0 and _parses(textwrap.dedent(answer)) is None:
        options.insert(0, answer[start.start():])
    for body in options:
        code = _usable(body)
        if code is not None:
            return [Block(code, True)]
    return []


def _search_order(blocks: list[Block]) -> list[str]:
    return [b.code for b in reversed(blocks) if b.python] + [b.code for b in reversed(blocks) if not b.python]


def candidate_blocks(answer: str) -> list[str]:
    """Code blocks, most likely first: Python blocks (last first), other fences, then the bare answer."""
    return _search_order(answer_blocks(answer))


def _keep_decorators(definition: str, original: str, target: str) -> str:
    """If the answer dropped the original's decorators (e.g. @staticmethod), put them back."""
    new = pyast.parse(definition).body[0]
    old = find_node(pyast.parse(original), target)
    if isinstance(new, ast.FunctionDef | ast.AsyncFunctionDef) and not new.decorator_list and old is not None \
            and old.decorator_list:
        decos = "".join(f"@{ast.unparse(d)}\n" for d in old.decorator_list)
        return decos + definition
    return definition


def _find_target(codes: list[str], target: str) -> str | None:
    """The target's definition from the first code that has a real one (a placeholder only as a last resort)."""
    found = []
    for code in codes:
        try:
            found.append(definition_in(code, target))
        except SourceError:
            continue
    real = [d for d in found if not is_placeholder(pyast.parse(d).body[0])]
    return (real or found)[0] if found else None


@dataclass
class _Scope:
    """The targets, seen from the goal file."""

    targets: list[str]
    goal: ast.Module

    @property
    def method_classes(self) -> list[str]:
        """Qualified names of the classes whose methods are targets, in target order."""
        return list(dict.fromkeys(t.rpartition(".")[0] for t in self.targets
                                  if "." in t and isinstance(find_node(self.goal, t.rpartition(".")[0]),
                                                             ast.ClassDef)))

    def is_target_def(self, stmt: ast.stmt) -> bool:
        short = {t.rpartition(".")[2] for t in self.targets}
        return isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and stmt.name in short

    def holds_targets(self, stmt: ast.stmt) -> bool:
        return isinstance(stmt, ast.ClassDef) and stmt.name in {t.split(".")[0] for t in self.targets if "." in t}


def _method_home(stmt: ast.stmt, scope: _Scope, definitions: dict[str, str], called: set[str]) -> str | None:
    """The target class a top-level function of the answer belongs to, if it is a method given without it."""
    classes = scope.method_classes
    if not classes or not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    first = stmt.args.posonlyargs + stmt.args.args
    decos = {ast.unparse(d) for d in stmt.decorator_list}
    by_attr = [c for c in classes if any(
        isinstance(n, ast.Attribute) and n.attr == stmt.name and isinstance(n.value, ast.Name)
        and n.value.id in ("self", "cls", c.rpartition(".")[2])
        for t, d in definitions.items() if t.rpartition(".")[0] == c for n in ast.walk(pyast.parse(d)))]
    if by_attr:
        return by_attr[0]
    if stmt.name in called:  # `helper(cls)`: a module-level helper whose argument is a class
        return None
    if (first and first[0].arg in ("self", "cls")) or decos & {"staticmethod", "classmethod", "property"}:
        return classes[0]
    return None


def _called_by_name(definitions: dict[str, str]) -> set[str]:
    """The names the answer's definitions call as plain functions (not as attributes of an object)."""
    return {n.func.id for d in definitions.values() for n in ast.walk(pyast.parse(d))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


@dataclass
class _Found:
    """Additions in the answer's order; a later statement binding the same names replaces an earlier one."""

    members: dict[str, ast.stmt] = field(default_factory=dict)
    member_code: dict[str, str] = field(default_factory=dict)
    module: list[tuple[ast.stmt, str]] = field(default_factory=list)

    def add_member(self, key: str, stmt: ast.stmt, code: str) -> None:
        self.members.pop(key, None)
        self.members[key], self.member_code[key] = stmt, textwrap.dedent(code)

    def add_module(self, stmt: ast.stmt, code: str) -> None:
        names = bound_names(stmt)
        if names and not isinstance(stmt, ast.Import | ast.ImportFrom):
            self.module = [(s, c) for s, c in self.module if bound_names(s) != names]
        self.module.append((stmt, code))


def _collect_class(found: _Found, cls: ast.ClassDef, lines: list[str], scope: _Scope) -> None:
    home = next((c for c in scope.method_classes if c.rpartition(".")[2] == cls.name), None)
    if home is None:
        return  # a class holding nested targets: its targets are taken by name, the rest stays as in the file
    for j, member in enumerate(cls.body):
        if runs_code(member) or scope.is_target_def(member) or not bound_names(member):
            continue
        key = f"{home}.{sorted(bound_names(member))[0]}"
        found.add_member(key, member, "".join(statement_lines(lines, cls.body, j)))


def _collect(codes: list[str], scope: _Scope, definitions: dict[str, str]) -> _Found:
    found = _Found()
    called = _called_by_name(definitions) if scope.method_classes else set()
    for code in codes:
        tree = pyast.parse(code)
        lines = code.splitlines(keepends=True)
        for i, stmt in enumerate(tree.body):
            text = "".join(statement_lines(lines, tree.body, i))
            if runs_code(stmt) or (scope.is_target_def(stmt) and not scope.holds_targets(stmt)):
                continue
            if isinstance(stmt, ast.ClassDef) and scope.holds_targets(stmt):
                _collect_class(found, stmt, lines, scope)
            elif (home := _method_home(stmt, scope, definitions, called)) is not None:
                assert isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
                found.add_member(f"{home}.{stmt.name}", stmt, text)
            else:
                found.add_module(stmt, text)
    return found


def _unchanged(stmt: ast.stmt, body: list[ast.stmt]) -> bool:
    """The file already has this statement, or the answer only abbreviated the file's own definition."""
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return any(same_statement(stmt, s) for s in body)
    binders = [s for s in body if not isinstance(s, ast.Import | ast.ImportFrom) and bound_names(s) & bound_names(stmt)]
    return any(same_statement(stmt, s) for s in binders) or (bool(binders) and is_placeholder(stmt))


def _calls_something(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign | ast.AnnAssign) and any(isinstance(n, ast.Call) for n in ast.walk(stmt))


def _drop_demo_leftovers(found: _Found, definitions: dict[str, str], goal: ast.Module) -> None:
    """New imports and call results (`x = torch.randn(3)`) that no kept code uses belonged to a demo."""
    goal_names = set().union(*(bound_names(s) for s in goal.body))

    def optional(stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            return False  # a compiler directive: used by the whole file
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            return True
        return _calls_something(stmt) and not bound_names(stmt) & goal_names

    kept = [pyast.parse(d) for d in definitions.values()] + list(found.members.values())
    kept += [s for s, _ in found.module if not optional(s)]
    pending = [s for s, _ in found.module if optional(s)]
    used = set().union(*(used_names(k) for k in kept))
    while newly := [s for s in pending if bound_names(s) & used]:
        pending = [s for s in pending if s not in newly]
        used |= set().union(*(used_names(s) for s in newly))
    found.module = [(s, c) for s, c in found.module if s not in pending]


def additions(codes: list[str], targets: list[str], goal_source: str, definitions: dict[str, str]) -> Extraction:
    """Everything the codes add to or change in the goal file besides the targets' definitions."""
    scope = _Scope(targets, pyast.parse(goal_source))
    found = _collect(codes, scope, definitions)
    for key in list(found.members):
        cls = find_node(scope.goal, key.rpartition(".")[0])
        if isinstance(cls, ast.ClassDef) and _unchanged(found.members[key], cls.body):
            del found.members[key], found.member_code[key]
    found.module = [(s, c) for s, c in found.module if not _unchanged(s, scope.goal.body)]
    _drop_demo_leftovers(found, definitions, scope.goal)
    module = ""
    for i, (stmt, code) in enumerate(found.module):
        both_imports = i and all(isinstance(s, ast.Import | ast.ImportFrom) for s in (found.module[i - 1][0], stmt))
        module += ("" if not i or both_imports else "\n") + code.rstrip("\n") + "\n"
    return Extraction(definitions=definitions, members=found.member_code, module=module)


def extract_from_code(codes: list[str], search: list[str], targets: list[str], goal_source: str) -> Extraction:
    """Targets from the `search` codes (first match wins), additions from every one of `codes` in order."""
    definitions = {}
    for target in targets:
        found = _find_target(search, target)
        if found is None:
            raise ExtractionError(f"the answer has no definition of '{target}'")
        definitions[target] = _keep_decorators(found, goal_source, target)
    return additions(codes, targets, goal_source, definitions)


def extract_targets(answer: str, targets: list[str], goal_source: str) -> Extraction:
    """Find every target in the answer, and keep everything else it adds to the goal file."""
    blocks = answer_blocks(answer)
    if not blocks:
        raise ExtractionError("no parsable Python code in the answer")
    used = {b.code for b in blocks if not b.python and any(_has(b.code, t) for t in targets)}
    codes = [b.code for b in blocks if b.python or b.code in used]
    return extract_from_code(codes, _search_order(blocks), targets, goal_source)


def _has(code: str, target: str) -> bool:
    try:
        definition_in(code, target)
    except SourceError:
        return False
    return True
