"""Runs the launcher for `python -m tistudio.lab` (the package holds the code, so it can import)."""

from tistudio.lab import main

main()
