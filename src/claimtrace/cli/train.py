"""``claimtrace train-retriever``: fine-tune the multi-task bi-encoder; ``claimtrace retriever-data``: build
training data from Evidence Inference or EvidenceBench."""

from __future__ import annotations

from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import check_out_dir, fail, print_json
from claimtrace.schema_version import SCHEMA_VERSION


@app.command("train-retriever")
def train_retriever_cmd(
    data: Path = typer.Option(..., "--data", help="Training JSONL: {doc, task, query, positive, unit, gold} per line."),
    out: Path | None = typer.Option(None, "--out", help="A folder: the trained model goes there (default: a folder under the user's models directory)."),
    base_model: str | None = typer.Option(None, "--base-model", help="sentence-transformers path or id (default: the offline all-MiniLM-L6-v2)."),
    tau: float = typer.Option(0.89, "--tau", help="Skip hard-negative candidates with a sentence at cosine >= tau to a gold text."),
    epochs: int = typer.Option(2, "--epochs", help="Passes over the training data."),
    batch_size: int = typer.Option(16, "--batch-size", help="Triplets per training step."),
    lr: float = typer.Option(3e-5, "--lr", help="Encoder learning rate."),
    margin: float = typer.Option(0.2, "--margin", help="Triplet margin (cosine distance)."),
    max_seq_length: int = typer.Option(128, "--max-seq-length", help="Longest input in tokens (longer is cut)."),
    eval_every: int = typer.Option(50, "--eval-every", help="Steps between validation-recall checks."),
    patience: int = typer.Option(3, "--patience", help="Checks without improvement before stopping."),
    max_minutes: float = typer.Option(25.0, "--max-minutes", help="Stop training after this long (the best model is kept)."),
    max_examples: int | None = typer.Option(None, "--max-examples", help="Train on a random sample of this many examples."),
    json_out: bool = typer.Option(False, "--json", help="Print the training report as JSON."),
) -> None:
    """Train the fine-tuned multi-task retriever (needs the [torch] extra)."""
    from claimtrace.retrieval.embeddings import models_dir
    from claimtrace.retrieval.training_data import read_training_data
    from claimtrace.training.retriever import TrainConfig, train_retriever

    if not 0 < tau <= 1:
        fail(f"--tau must be in (0, 1], got {tau}")
    if out is not None:
        check_out_dir(out)
    examples = read_training_data(data)
    target = out or models_dir() / f"retriever-{data.stem}"
    cfg = TrainConfig(base_model=base_model, tau=tau, epochs=epochs, batch_size=batch_size, lr=lr, margin=margin,
                      max_seq_length=max_seq_length, eval_every=eval_every, patience=patience,
                      max_minutes=max_minutes, max_examples=max_examples)
    report = train_retriever(examples, target, cfg)
    report = {"schema_version": SCHEMA_VERSION, "out": str(target), **report}
    if json_out:
        print_json(report)
    else:
        typer.echo(f"{target}: best validation recall@1 {report['best_val_recall@1']:.3f} ({report['stopped']})")


@app.command("retriever-data")
def retriever_data_cmd(
    source: str = typer.Argument(..., help="'ei' (an Evidence-Inference split folder) or 'evidencebench' (its folder)."),
    path: Path = typer.Argument(..., help="The dataset folder."),
    out: Path = typer.Option(..., "--out", help="The training JSONL file to write."),
    unit: list[str] = typer.Option(["paragraph", "sentence"], "--units", "--unit", help="Unit kinds to emit: paragraph, sentence (repeatable)."),
    json_out: bool = typer.Option(False, "--json", help="Print counts as JSON."),
) -> None:
    """Build evidence-task training data for train-retriever from Evidence Inference or EvidenceBench."""
    from claimtrace.batch import check_out_file
    from claimtrace.retrieval.training_data import ei_training_data, evidencebench_training_data, write_jsonl

    check_out_file(out)
    bad = [u for u in unit if u not in ("paragraph", "sentence")]
    if bad:
        fail(f"unknown --unit {bad[0]!r} (expected paragraph or sentence)")
    if source == "ei":
        examples = list(ei_training_data(path, units=tuple(unit)))  # type: ignore[arg-type]
    elif source == "evidencebench":
        examples = [e for u in unit for e in evidencebench_training_data(path, u)]  # type: ignore[arg-type]
    else:
        fail(f"unknown source {source!r} (expected ei or evidencebench)")
    if not examples:
        fail(f"{path}: no training examples could be built")
    write_jsonl(examples, out)
    counts = {"schema_version": SCHEMA_VERSION, "out": str(out), "examples": len(examples)}
    if json_out:
        print_json(counts)
    else:
        typer.echo(f"wrote {len(examples)} examples to {out}")
