"""Corpus runs: a folder of papers -> a resumable, queryable Parquet results store (local or Ray)."""

from claimtrace.corpus.schema import DEFAULT_STEPS, STEPS, STORE_SCHEMA_VERSION, TABLE_NAMES, codebook, schema

__all__ = ["DEFAULT_STEPS", "STEPS", "STORE_SCHEMA_VERSION", "TABLE_NAMES", "codebook", "schema"]
