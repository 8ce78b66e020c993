"""The one schema version of every JSON output (documents, statistics, traces, graphs, conclusions, reports).

Outputs carry it as ``schema_version``; their JSON Schemas are exported by ``claimtrace schema``. Raise it
when a field is renamed or removed or changes meaning (adding an optional field does not).
"""

SCHEMA_VERSION = "1.0"
