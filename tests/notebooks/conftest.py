"""Markers for the notebook and Binder tests."""

from __future__ import annotations


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers",
        "binder: builds binder/'s environment in a fresh venv (about a minute with a warm pip "
        "cache); runs in the full suite, deselect with -m 'not binder' while iterating",
    )
