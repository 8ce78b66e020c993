"""The presets data file (``resources/presets.yaml``, shipped with the package): selectors and context configurations.

Read by ``claimtrace.retrieval.selectors`` (its ``selectors`` section) and ``claimtrace.extract.config``
(its ``contexts`` and ``defaults`` sections); a context's k and M come from the selector it names.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import yaml


@lru_cache(maxsize=1)
def preset_data() -> dict[str, Any]:
    """The parsed presets file (read once)."""
    text = resources.files("claimtrace").joinpath("resources", "presets.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not {"selectors", "contexts", "defaults"} <= set(data):
        raise ValueError("presets.yaml: expected the sections selectors, contexts and defaults")
    return data
