"""``claimtrace run --dry-run``: time and LLM tokens for a corpus, estimated from a sample run in-process."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from pydantic import BaseModel

from claimtrace.corpus.work import CorpusItem, PaperTask, RunSettings, Worker, sha256_of, step_keys


class Estimate(BaseModel):
    """The dry run's estimate for the whole corpus."""

    schema_version: str = "1.0"
    papers: int
    sample: int
    failed_in_sample: int
    seconds_per_paper_median: float
    workers: int
    estimated_hours: float
    llm_calls_per_paper: float
    llm_tokens_per_paper: float
    estimated_llm_tokens: float
    estimated_cost_usd: float | None
    price_note: str

    def report(self) -> str:
        """A few readable lines."""
        cost = f"${self.estimated_cost_usd:,.2f}" if self.estimated_cost_usd is not None else "no price set"
        return (f"{self.papers} papers; sample of {self.sample} ({self.failed_in_sample} failed): "
                f"{self.seconds_per_paper_median:.3f} s/paper (median, one worker)\n"
                f"estimated time with {self.workers} workers: {self.estimated_hours:.2f} h\n"
                f"LLM: {self.llm_calls_per_paper:.1f} calls and {self.llm_tokens_per_paper:,.0f} tokens per paper; "
                f"{self.estimated_llm_tokens:,.0f} tokens in all; cost: {cost} ({self.price_note})")


def estimate(items: list[CorpusItem], settings: RunSettings, *, sample: int = 10, workers: int = 1,
             seed: int = 0) -> Estimate:
    """Run a random sample of the corpus in this process and scale its time and LLM usage up."""
    chosen = random.Random(seed).sample(items, min(sample, len(items)))
    w = Worker(settings)
    secs: list[float] = []
    failed = 0
    for it in chosen:
        try:
            pid = sha256_of(it.path)
        except OSError:
            failed += 1
            continue
        t0 = time.perf_counter()
        res = w.process(PaperTask(item=it, paper_id=pid, steps=list(step_keys(settings, it)),
                                  keys=step_keys(settings, it)))
        secs.append(time.perf_counter() - t0)
        failed += bool(res.errors)
    calls = tokens = 0.0
    cost: float | None = None
    note = "no LLM step"
    client: Any = getattr(w, "_client", None)
    if client is not None:
        s = client.summary()
        calls, tokens = float(s.calls), float((s.prompt_tokens or 0) + (s.completion_tokens or 0))
        priced = bool(getattr(client.settings, "prices", None))
        cost = s.cost_usd * len(items) / max(len(chosen), 1) if priced else None
        note = "ledger prices" if priced else "no price set in the LLM settings"
    n = max(len(chosen), 1)
    med = statistics.median(secs) if secs else 0.0
    return Estimate(papers=len(items), sample=len(chosen), failed_in_sample=failed, seconds_per_paper_median=round(med, 4),
                    workers=workers, estimated_hours=round(med * len(items) / workers / 3600, 3),
                    llm_calls_per_paper=calls / n, llm_tokens_per_paper=tokens / n,
                    estimated_llm_tokens=tokens / n * len(items), estimated_cost_usd=cost, price_note=note)
