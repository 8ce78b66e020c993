"""``claimtrace serve``: review claim traces in the browser over a results store (the ``serve`` extra).

- :mod:`claimtrace.serve.app`: the FastAPI app (pages, decisions, quick check, request checks);
- :mod:`claimtrace.serve.review`: the SQLite review database, agreement (Cohen's kappa) and the export;
- :mod:`claimtrace.serve.index`: the corpus page's index (SQLite FTS5 over the store's summaries);
- :mod:`claimtrace.serve.paper`, :mod:`claimtrace.serve.pdfpages`, :mod:`claimtrace.serve.graphsvg`: the paper page.

Importing this package needs no web library: ``review`` (and ``claimtrace review-export``) work without the extra.
"""
