"""The cue lexicons (``resources/lexicons/*.yaml``): valid, in step with the modules that read them, and read right."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from claimtrace.lexicons import lexicon, lexicon_names, patterns, read_lexicon

SRC = Path(__file__).resolve().parents[1] / "src" / "claimtrace"


def _asked(name: str) -> list[str]:
    """The pattern names that module ``name`` asks its lexicon for (its ``pattern(s)("name", ...)`` calls)."""
    tree = ast.parse((SRC / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    keys: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("pattern", "patterns"):
            args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            assert args[0] == name, f"{name}.py reads another module's lexicon {args[0]}"
            keys.extend(args[1:])
    return keys


def test_every_lexicon_is_valid_and_compiles() -> None:
    names = lexicon_names()
    assert {"cues", "checks.openscience", "checks.statistics", "documents.readers.pdf"} <= set(names)
    for name in names:
        lex = lexicon(name)
        assert lex.description and lex.patterns, name
        for key, cue in lex.patterns.items():
            assert isinstance(cue.compile(), re.Pattern), (name, key)


def test_each_lexicon_is_exactly_what_its_module_reads() -> None:
    for name in lexicon_names():
        asked = _asked(name)
        assert len(asked) == len(set(asked)), f"{name}: a pattern asked for twice"
        assert set(asked) == set(lexicon(name).patterns), f"{name}: file and module disagree"


def test_no_pattern_name_written_twice_in_a_file() -> None:
    # YAML keeps the last of two equal keys without a word: count the entries as written
    for path in sorted((SRC / "resources" / "lexicons").glob("*.yaml")):
        written = re.findall(r"^  (\w+):$", path.read_text(encoding="utf-8"), re.M)
        assert len(written) == len(set(written)) == len(read_lexicon(path).patterns), path.name


def test_patterns_join_pieces_and_set_flags() -> None:
    (marginal,) = patterns("checks.statistics", "MARGINAL_RE")
    assert marginal.flags & re.IGNORECASE
    assert marginal.search("the effect was Marginally significant, p = .07")
    assert not marginal.search("the effect was significant, p = .01")
    null, no_diff = patterns("cues", "NULL_RESULT", "NO_DIFFERENCE")
    assert null.search("there was no significant difference between groups")
    assert no_diff.search("ratings were similar across conditions")
    assert not no_diff.search("ratings were higher in the first condition")


def test_a_missing_pattern_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="no pattern NOT_THERE"):
        patterns("cues", "NULL_RESULT", "NOT_THERE")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("description: x\npatterns:\n  A:\n    note: n\n    flags: [CASELESS]\n    pattern: ['a']\n", "CASELESS"),
        ("description: x\npatterns:\n  A:\n    note: n\n    pattern: []\n", "pattern"),
        ("description: x\npatterns:\n  A:\n    note: n\n    pattern: ['a']\n    colour: red\n", "colour"),
        ("description: x\npatterns:\n  A:\n    pattern: ['a']\n", "note"),
        ("description: x\npatterns: [unclosed\n", "not a lexicon file"),
    ],
)
def test_a_bad_lexicon_file_says_which_and_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.yaml") as info:
        read_lexicon(path)
    assert why in str(info.value)
