"""Write small PDFs with a real text layer (matplotlib's PDF backend, TrueType fonts) for reader tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

WORDS = ["spectrum", "anisotropy", "expansion", "residual", "variance", "multipole", "survey", "redshift", "lensing", "baryon", "density", "amplitude", "tension", "likelihood", "prior", "posterior", "sample", "estimator", "bias", "noise", "beam", "foreground", "mask"]


def body_paragraph(i: int) -> str:
    """A body paragraph of about 700 characters with its own wording (numbered so that tests find it):
    text repeated on every page would be taken for running headers."""
    sentences = []
    for j in range(6):
        w = [WORDS[(i * 7 + j * 3 + k * 5) % len(WORDS)] for k in range(12)]
        sentences.append(f"The {w[0]} of sample {i}.{j} constrains the {w[1]} and {w[2]}, while the "
                         f"{w[3]} {w[4]} stays within the {w[5]} for every {w[6]} we examined.")
    return f"Paragraph {i} of the body. " + " ".join(sentences)


def write_paper_pdf(path: Path, *, title: str, abstract: str, paragraphs: list[str],
                    abstract_heading: bool, pages: int) -> Path:
    """A paper: large title, an abstract (an "Abstract" heading or run-in "Abstract."), then body
    paragraphs without any section heading spread over ``pages`` pages (the first page full too)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    matplotlib.rcParams["pdf.fonttype"] = 42
    width, height, left, top, pitch, size = 8.5, 11.0, 0.09, 0.93, 0.0155, 9.5
    lines: list[tuple[str, float, str]] = [(title, 16, "bold"), ("", size, "normal"),
                                           ("A. Author and B. Author, Institute of Examples", size, "normal"),
                                           ("", size, "normal")]
    if abstract_heading:
        lines.append(("Abstract", 11, "bold"))
        abstract_lines = textwrap.wrap(abstract, 100)
    else:
        abstract_lines = textwrap.wrap("Abstract. " + abstract, 100)
    lines += [(ln, size, "normal") for ln in abstract_lines] + [("", size, "normal")]
    for para in paragraphs:
        wrapped = textwrap.wrap(para, 100)
        lines += [("    " + wrapped[0], size, "normal")] + [(ln, size, "normal") for ln in wrapped[1:]]
        lines.append(("", size, "normal"))
    per_page = int((top - 0.06) / pitch)
    with PdfPages(path) as pdf:
        for p in range(pages):
            chunk = lines[p * per_page:(p + 1) * per_page]
            if not chunk:
                break
            fig = plt.figure(figsize=(width, height))
            y = top
            for text, fs, weight in chunk:
                if text:
                    fig.text(left, y, text, fontsize=fs, fontweight=weight, family="DejaVu Sans")
                y -= pitch * (1.6 if fs > 12 else 1.0)
            fig.text(0.5, 0.03, str(p + 1), fontsize=8, ha="center")
            pdf.savefig(fig)
            plt.close(fig)
    return path
