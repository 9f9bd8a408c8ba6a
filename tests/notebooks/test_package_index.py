"""The probe that lets the `network` tests skip where pip's index cannot be reached."""

from __future__ import annotations

import http.server
import socket
import threading
from pathlib import Path

import pytest

from tests.notebooks import package_index


def test_an_index_that_answers_is_reachable_whatever_the_status() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        assert package_index.unreachable(f"http://127.0.0.1:{port}/") is None
        assert package_index.unreachable(f"http://127.0.0.1:{port}/no-such-page/") is None  # 404
    finally:
        server.shutdown()
        server.server_close()


def test_a_closed_port_or_missing_folder_is_unreachable(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nobody listens once the socket is closed
    reason = package_index.unreachable(f"http://127.0.0.1:{port}/simple/", seconds=3)
    assert reason is not None and "refused" in reason.lower(), reason
    assert package_index.unreachable((tmp_path / "simple").as_uri()) is not None
    assert package_index.unreachable(tmp_path.as_uri()) is None


def test_the_index_comes_from_the_environment_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")
    assert package_index.configured_index() == "http://127.0.0.1:9/simple/"


def test_an_unreachable_index_skips_with_its_address(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("PIP_NO_INDEX", raising=False)
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{port}/simple/")
    with pytest.raises(pytest.skip.Exception, match=f"127.0.0.1:{port}/simple/"):
        package_index.skip_without_index()
