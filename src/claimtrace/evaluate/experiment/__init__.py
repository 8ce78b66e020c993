"""The experiment runner: context configurations × extractors over an evaluation dataset.

``claimtrace experiment CONFIG.yaml`` (schema in docs/evaluation.md) runs the claim-trace pipeline
(``claimtrace.extract``) for every item under every configuration and extractor, scores each stage,
and writes per-item results (resumable: finished items are skipped), a summary in the layout of the
published Table 1 (Markdown + CSV), transition reports and PNG plots.
"""

from claimtrace.evaluate.experiment.config import (
    ALL_STAGES,
    ExperimentConfig,
    ExperimentLLM,
    ExtractorOptions,
    Stage,
    load_config,
)
from claimtrace.evaluate.experiment.reports import (
    context_description,
    summarise,
    transition_reports,
    write_reports,
)
from claimtrace.evaluate.experiment.runner import run_experiment

__all__ = [
    "ALL_STAGES",
    "ExperimentConfig",
    "ExperimentLLM",
    "ExtractorOptions",
    "Stage",
    "context_description",
    "load_config",
    "run_experiment",
    "summarise",
    "transition_reports",
    "write_reports",
]
