import pytest

from lmrbench.tasks.source import SourceError, definition_in, extract, is_stub, mask, splice

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
