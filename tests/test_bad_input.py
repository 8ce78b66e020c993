"""Bad non-PDF input through the real CLI: one-line error naming the file, exit 2, no traceback.

(Truncated, encrypted and scanned PDFs are covered by the PDF reader's tests.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimtrace.documents import read_bytes
from claimtrace.errors import InputError
from conftest import EI_ARTICLE, FIXTURES, REPO, SAMPLE


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout)


def assert_one_line_error(res: subprocess.CompletedProcess[str], path: Path | str, reason: str) -> str:
    err = res.stderr.strip()
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert "\n" not in err, err
    assert "Traceback" not in err
    assert str(path) in err and reason in err, err
    assert res.stdout == ""
    return err


def test_nonexistent_path(tmp_path: Path) -> None:
    path = tmp_path / "missing.nxml"
    assert_one_line_error(run("parse", str(path)), path, "no such file")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.nxml"
    path.write_bytes(b"")
    assert_one_line_error(run("parse", str(path), "--json"), path, "empty file")


def test_whitespace_only_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.xml"
    path.write_bytes(b"  \n\n\t ")
    assert_one_line_error(run("parse", str(path)), path, "empty file")


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("figure.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"),
        ("bundle.nxml", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)) * 4),
    ],
)
def test_unsupported_binary_format(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert_one_line_error(run("parse", str(path)), path, "unsupported format")


def test_unsupported_xml_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(b'<?xml version="1.0"?><rss><channel><item>x</item></channel></rss>')
    assert_one_line_error(run("parse", str(path)), path, "unsupported XML format")


def test_malformed_xml_names_the_parser_error(tmp_path: Path) -> None:
    real = EI_ARTICLE.read_bytes()
    path = tmp_path / "truncated.nxml"
    path.write_bytes(real[: len(real) // 2])  # cut in the middle: unclosed elements
    err = assert_one_line_error(run("parse", str(path)), path, "malformed XML")
    assert "line" in err  # lxml's message says where


def test_malformed_tei(tmp_path: Path) -> None:
    path = tmp_path / "bad.tei.xml"
    path.write_bytes(b'<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><body><div><p>x</div></body></text></TEI>')
    assert_one_line_error(run("parse", str(path)), path, "malformed XML")


def test_external_entity_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    path = tmp_path / "xxe.nxml"
    for target in (f"file://{secret}", "file:///etc/passwd"):
        path.write_text(
            '<?xml version="1.0"?>\n'
            f'<!DOCTYPE article [<!ENTITY xxe SYSTEM "{target}">]>\n'
            "<article><front><article-meta><title-group><article-title>T</article-title></title-group>"
            "</article-meta></front><body><sec><title>Results</title><p>Leak: &xxe;</p></sec></body></article>"
        )
        res = run("parse", str(path), "--json")
        assert_one_line_error(res, path, "external entity")
        assert "TOP-SECRET" not in res.stdout + res.stderr and "root:" not in res.stdout + res.stderr


def test_parameter_entity_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "param.xml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE article [<!ENTITY % ext SYSTEM "http://127.0.0.1:9/x.dtd"> %ext;]>\n'
                    "<article><body><p>x</p></body></article>")
    assert_one_line_error(run("parse", str(path)), path, "external entity")


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    levels = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)
    ]
    path = tmp_path / "laughs.nxml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE article [\n' + "\n".join(levels) + "\n]>\n"
                    "<article><body><sec><title>Results</title><p>&lol9;</p></sec></body></article>")
    t0 = time.perf_counter()
    res = run("parse", str(path))
    assert_one_line_error(res, path, "entities")
    assert time.perf_counter() - t0 < 60


def test_entity_declarations_in_html_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text('<!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]><html><body><p>&x;</p></body></html>')
    assert_one_line_error(run("parse", str(path)), path, "external entity")


def test_entities_are_refused_in_library_calls_too() -> None:
    data = b'<!DOCTYPE TEI [<!ENTITY a "aaaa">]><TEI xmlns="http://www.tei-c.org/ns/1.0"><text><body><div><p>&a;</p></div></body></text></TEI>'
    with pytest.raises(InputError, match="entities"):
        read_bytes(data, "lib.tei.xml")


def test_file_over_the_size_limit(tmp_path: Path) -> None:
    src = EI_ARTICLE
    path = tmp_path / src.name
    shutil.copy(src, path)
    err = assert_one_line_error(run("parse", str(path), "--max-bytes", "10000"), path, "over the size limit")
    assert "10,000" in err
    ok = run("parse", str(path), "--max-bytes", str(path.stat().st_size))
    assert ok.returncode == 0, ok.stderr


def test_batch_records_the_failure_and_writes_the_others(tmp_path: Path) -> None:
    indir, out = tmp_path / "in", tmp_path / "out"
    indir.mkdir()
    for g in (EI_ARTICLE, SAMPLE, FIXTURES / "paper.pdf"):  # JATS, JATS and a PDF made by the project
        shutil.copy(g, indir / g.name)
    (indir / "broken.nxml").write_bytes(b"<article><body><p>unclosed</body></article>")
    res = run("parse", str(indir), "--out", str(out))
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    written = sorted(p.name for p in out.iterdir())
    assert written == ["PMC1087200.nxml.json", "PMC1821024.nxml.json", "paper.pdf.json"]
    for name in written:
        doc = json.loads((out / name).read_text())
        assert doc["paragraphs"] and doc["schema_version"]
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "broken.nxml" in errors[0] and "malformed XML" in errors[0]
    assert "parsed 3 of 4" in res.stderr and "1 failed" in res.stderr
