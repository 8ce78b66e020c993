"""``python -m claimtrace``."""

from claimtrace.cli import main

main()
