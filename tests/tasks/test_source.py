import pytest

from lmrbench.tasks.source import SourceError, definition_in, extract, is_stub, mask, splice, splice_functions

SRC = '''import os  # a comment that must survive

CONST = 3


class Model:
    """A model."""

    @property
    def size(self):
        return 1

    @staticmethod
    def forward(x, y):
        """Forward pass."""
        # inner comment
        return x + y  # trailing

    def other(self):
        return 2
# a comment after the class


def helper(a):
    return a
'''


def test_splice_keeps_rest_byte_for_byte():
    new = splice(SRC, "Model.forward", "@staticmethod\ndef forward(x, y):\n    return x * y\n")
    old_body = '        """Forward pass."""\n        # inner comment\n        return x + y  # trailing'
    assert SRC.replace(old_body, "        return x * y") == new


def test_splice_reindents_and_accepts_class_wrapper():
    answer = "class Model:\n    def forward(x, y):\n        return 0\n"
    new = splice(SRC, "Model.forward", definition_in(answer, "Model.forward"))
    assert "    def forward(x, y):\n        return 0\n" in new
    assert "@staticmethod\n    def forward" not in new  # the answer's decorators replace the original's
    assert "# a comment after the class" in new and "import os  # a comment that must survive" in new


def test_method_without_class_is_found():
    assert definition_in("def forward(x, y):\n    return 1\n", "Model.forward").startswith("def forward")


def test_missing_definitions_are_added():
    new = splice(SRC, "Model.extra", "def extra(self):\n    return 3\n")
    assert "    def extra(self):\n        return 3\n" in new
    new = splice(SRC, "brand_new", "def brand_new():\n    return 4\n")
    assert new.startswith(SRC) and new.endswith("def brand_new():\n    return 4\n")


def test_splice_rejects_unparsable_definition():
    with pytest.raises(SourceError):
        splice(SRC, "helper", "def helper(a):\n    return (\n")


def test_mask_keeps_docstring_and_is_stub():
    masked = mask(SRC, "Model.forward")
    assert '"""Forward pass."""\n        # TODO: implement' in masked
    assert "inner comment" not in masked
    assert is_stub(masked, "Model.forward") and not is_stub(SRC, "Model.forward")
    assert masked.count("\n") == SRC.count("\n")  # 2 body lines -> 2 stub lines


def test_mask_whole_class_masks_every_method():
    masked = mask(SRC, "Model")
    assert is_stub(masked, "Model")
    assert masked.count("raise NotImplementedError") == 3


def test_extract_includes_decorators():
    assert extract(SRC, "Model.size") == "@property\ndef size(self):\n    return 1\n"


def test_crlf_files_keep_their_line_endings():
    crlf = SRC.replace("\n", "\r\n")
    new = splice(crlf, "helper", "def helper(a):\n    return -a\n")
    assert "\r\n" in new and "\n" not in new.replace("\r\n", "")


MODULE = '''"""Doc."""

import os

A, B = 1, 2


class Model:
    """A model."""

    def forward(self, x):
        return x


def helper(a):
    return a
'''


def test_module_additions_go_after_imports_and_before_first_use():
    entry = {"helper": "def helper(a):\n    return _twice(a) + LIMIT\n",
             "<module>": "import math\n\nLIMIT = 3\n\n\ndef _twice(a):\n    return 2 * a\n"}
    new = splice_functions(MODULE, entry)
    assert new == MODULE.replace("import os\n", "import os\nimport math\n").replace(
        "def helper(a):\n    return a\n",
        "LIMIT = 3\n\n\ndef _twice(a):\n    return 2 * a\n\n\ndef helper(a):\n    return _twice(a) + LIMIT\n")
    assert splice_functions(new, entry) == new  # applying it again changes nothing


def test_redefinitions_replace_in_place_but_placeholders_and_partial_bindings_do_not():
    new = splice_functions(MODULE, {"<module>": "def helper(a):\n    ...\n\nA = 10\n"})
    # `helper: ...` stands for the file's own; `A = 10` rebinds only part of `A, B = 1, 2`: right after it
    assert new == MODULE.replace("A, B = 1, 2\n", "A, B = 1, 2\n\n\nA = 10\n")
    new = splice_functions(MODULE, {"<module>": "def helper(a):\n    return -a\n"})
    assert new == MODULE.replace("    return a\n", "    return -a\n")


def test_future_imports_go_first_and_the_older_imports_key_is_read():
    new = splice_functions(MODULE, {"<imports>": "from __future__ import annotations\nimport os\nimport re"})
    assert new == MODULE.replace('"""Doc."""\n', '"""Doc."""\nfrom __future__ import annotations\n').replace(
        "import os\n", "import os\nimport re\n")


def test_class_attributes_are_replaced_or_added_before_the_methods():
    new = splice_functions(MODULE, {"Model.EPS": "EPS = 1e-8\n"})
    assert new == MODULE.replace('    """A model."""\n', '    """A model."""\n\n    EPS = 1e-8\n')
    assert splice_functions(new, {"Model.EPS": "EPS: float = 0.5\n"}) == new.replace("EPS = 1e-8", "EPS: float = 0.5")


@pytest.mark.parametrize(("entry", "reason"), [
    ({"<module>": "def broken(:\n"}, "<module>: the module additions does not parse"),
    ({"<module>": "x = 1\x00\n"}, "<module>: the module additions does not parse"),
    ({"<module>": "x = " + "(" * 400 + ")" * 400 + "\n"}, "<module>: the module additions does not parse"),
    ({"Nope.EPS": "EPS = 1\n"}, "Nope.EPS: cannot add 'Nope.EPS': no class 'Nope'"),
    ({"helper": "y = 2\n"}, "helper: the snippet has no definition of 'helper'"),
    ({"Tiny.EPS": "EPS = 1\n"}, "Tiny.EPS: cannot add 'Tiny.EPS': class 'Tiny' is written on one line"),
])
def test_bad_entries_are_source_errors_naming_the_key(entry, reason):
    with pytest.raises(SourceError) as exc:
        splice_functions(MODULE + "\n\nclass Tiny: pass\n", entry)
    assert str(exc.value).startswith(reason)


def test_new_statements_come_after_what_they_need_at_import_time():
    src = "import os\n\n\ndef target():\n    return SCALED\n\n\nBASE = 2\n\n\ndef tail():\n    return 0\n"
    # SCALED needs BASE when the module is imported, and BASE is bound only after the first use of SCALED
    new = splice_functions(src, {"<module>": "SCALED = BASE * 3\n"})
    assert new == src.replace("BASE = 2\n", "BASE = 2\n\n\nSCALED = BASE * 3\n")
    # a function only needs it when called: before its first use
    new = splice_functions(src.replace("return SCALED", "return scaled()"),
                           {"<module>": "def scaled(k=1):\n    return BASE * 3 * k\n"})
    assert new.index("def scaled") < new.index("def target")
    new = splice_functions(src.replace("return SCALED", "return scaled()"),
                           {"<module>": "def scaled(k=BASE):\n    return 3 * k\n"})  # a default: import time
    assert new.index("BASE = 2") < new.index("def scaled") < new.index("def tail")
