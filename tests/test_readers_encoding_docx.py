"""Text files in legacy and UTF-16/32 encodings, and Word .docx manuscripts, through the real readers and CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import docx
import pytest

from claimtrace import load_document
from claimtrace.errors import InputError
from conftest import REPO

PAPER = (
    "Abstract\n\nPatients in the Müller café group (n = 30) scored higher, t(28) = 2.20, p = .03.\n\n"
    "Methods\n\nThe naïve participants were randomised – twelve per arm – in Zürich.\n\n"
    "Results\n\nThe groups did not differ in accuracy, F(1, 40) = 1.10, p = .30.\n"
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


@pytest.mark.parametrize(
    ("codec", "text", "expected"),
    [
        ("latin-1", PAPER.replace("–", "-"), "cp1252"),  # ISO-8859-1 bytes read as its superset cp1252
        ("cp1252", PAPER, "cp1252"),  # – is 0x96 in cp1252 (a control code in Latin-1)
        ("utf-16", PAPER, "utf-16-le"),  # Python writes a BOM, little-endian here
        ("utf-16-be", "\ufeff" + PAPER, "utf-16-be"),
        ("utf-32", PAPER, "utf-32-le"),
        ("utf-8-sig", PAPER, "utf-8"),
        ("utf-8", PAPER, "utf-8"),
    ],
)
def test_text_encodings_are_detected_and_recorded(tmp_path: Path, codec: str, text: str, expected: str) -> None:
    path = tmp_path / f"paper-{codec}.txt"
    path.write_bytes(text.encode(codec))
    doc = load_document(path)
    assert doc.source.encoding == expected
    assert "Müller café" in doc.abstract_text and "\ufeff" not in doc.abstract_text
    assert "naïve" in doc.body_text and "Zürich" in doc.body_text
    assert [p.section for p in doc.paragraphs] == ["Methods", "Results"]


def test_cyrillic_cp1251_is_not_forced_into_cp1252(tmp_path: Path) -> None:
    text = "Результаты\n\nГруппы различались по времени реакции, t(28) = 2.20, p = .03, у всех участников.\n" * 3
    path = tmp_path / "ru.txt"
    path.write_bytes(text.encode("cp1251"))
    doc = load_document(path)
    assert doc.source.encoding == "cp1251"
    assert "Группы различались" in doc.body_text


def test_latin1_and_utf16_files_through_the_cli(tmp_path: Path) -> None:
    for codec in ("latin-1", "utf-16"):
        path = tmp_path / f"{codec}.txt"
        path.write_bytes(PAPER.replace("–", "-").encode(codec))
        res = run("stats", str(path), "--json")
        assert res.returncode == 0, res.stderr
        data = json.loads(res.stdout)
        assert data["summary"]["checked"] == 2
        assert [r["test"] for r in data["results"]] == ["t", "F"]


def test_utf16_without_bom_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "nobom.txt"
    path.write_bytes(PAPER.encode("utf-16-le"))
    with pytest.raises(InputError, match="unsupported format"):
        load_document(path)


@pytest.fixture
def manuscript(tmp_path: Path) -> Path:
    """A Word manuscript written with python-docx: styled title and headings, a table, references."""
    d = docx.Document()
    d.add_heading("Sleep loss slows working memory", 0)
    d.add_heading("Abstract", 1)
    d.add_paragraph("One night without sleep slowed responses, t(28) = 2.20, p = .03.")
    d.add_heading("Introduction", 1)
    d.add_paragraph("We hypothesised that sleep loss slows responses in an n-back task.")
    d.add_heading("Results", 1)
    d.add_paragraph("Deprived participants were slower than rested ones, t(28) = 2.20, p = .03. "
                    "Accuracy did not differ, F(1, 40) = 1.10, p = .30.")
    table = d.add_table(rows=2, cols=2)
    for (r, c), value in {(0, 0): "Group", (0, 1): "RT (ms)", (1, 0): "Deprived", (1, 1): "512"}.items():
        table.cell(r, c).text = value
    d.add_heading("References", 1)
    d.add_paragraph("Smith J. (2001). Sleep and memory. Journal of Sleep 1, 1-2.")
    path = tmp_path / "manuscript.docx"
    d.save(str(path))
    return path


def test_docx_manuscript_parses(manuscript: Path) -> None:
    doc = load_document(manuscript)
    assert doc.source.format == "docx"
    assert doc.title == "Sleep loss slows working memory"
    assert doc.abstract_text == "One night without sleep slowed responses, t(28) = 2.20, p = .03."
    assert [(p.section, p.section_kind) for p in doc.paragraphs] == [
        ("Introduction", "introduction"), ("Results", "results")]
    kinds = sorted(b.kind for b in doc.excluded)
    assert kinds == ["references", "table"]
    assert "Deprived | 512" in next(b.text for b in doc.excluded if b.kind == "table")


def test_stats_checks_a_docx_manuscript(manuscript: Path) -> None:
    res = run("stats", str(manuscript), "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    body = [r for r in data["results"] if r["scope"] == "body"]
    assert [(r["test"], r["df1"], r["consistent"]) for r in body] == [("t", 28.0, False), ("F", 1.0, True)]
    assert abs(body[0]["computed_p"] - 0.0362) < 1e-3  # t(28) = 2.20 gives p = .036, reported as .03


def test_zip_that_is_not_docx_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "bundle.docx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data.csv", "a,b\n1,2\n")
    res = run("parse", str(path))
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "not a Word .docx" in res.stderr
