"""Images: a PDF page of a paper, and a conclusion's forest plot (rendered once, then cached)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from claimtrace.serve.deps import State

router = APIRouter()


@router.get("/paper/{paper_id}/page/{n}.png")
def page_png(state: State, paper_id: str, n: int) -> Response:
    """One page of a paper's PDF as a PNG (rendered once, then cached)."""
    from claimtrace.serve.paper import resolve_source
    from claimtrace.serve.pdfpages import render_page

    root = state.locate(paper_id)
    rows = state.reader(root).rows("papers", paper_id, "paper_id")
    if not rows or rows[0].get("format") != "pdf":
        raise StarletteHTTPException(404, "this paper is not a PDF")
    out = state.settings.cache / "pages" / paper_id / f"{n}.png"
    if not out.is_file():
        src = resolve_source(root, rows[0]["path"])
        from claimtrace.corpus.work import sha256_of

        if not src.is_file() or sha256_of(src) != paper_id:
            raise StarletteHTTPException(404, "the PDF is not there any more (or has changed)")
        try:
            render_page(src, n, out)
        except IndexError:
            raise StarletteHTTPException(404, f"no page {n}") from None
    return FileResponse(out, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

@router.get("/paper/{paper_id}/forest/{i}.png")
def forest_png(state: State, paper_id: str, i: int) -> Response:
    """The forest plot of one of a paper's conclusions as a PNG (cached)."""
    root = state.locate(paper_id)
    out = state.settings.cache / "forest" / f"{paper_id}-{i}.png"
    if not out.is_file():
        rows = state.reader(root).rows("conclusions", paper_id, "intervention, comparator, outcome")
        if not 0 <= i < len(rows):
            raise StarletteHTTPException(404, "no such conclusion")
        from claimtrace.conclude.model import ConcludeResult
        from claimtrace.conclude.pipeline import forest_rows
        from claimtrace.plots import forest_plot

        res = ConcludeResult.model_validate_json(rows[i]["result_json"])
        frows = forest_rows([(f"{res.question.intervention} vs {res.question.comparator}", res)])
        if not frows:
            raise StarletteHTTPException(404, "no estimate with a confidence interval for a forest plot")
        out.parent.mkdir(parents=True, exist_ok=True)
        forest_plot(frows, out, title=res.question.outcome)
    return FileResponse(out, media_type="image/png")
