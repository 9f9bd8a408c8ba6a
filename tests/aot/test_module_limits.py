"""What the module reader reads: caps, stored members only, listed members only, no links out
of a folder, no FIFOs, tree ids 0..n-1, `expect_sha256`, and old code that needs a function
this runtime lacks."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import struct
import time
import zipfile

import numpy as np
import pytest

import tistudio as ti
import tistudio.aot
from tests.aot import kernels
from tistudio.aot.archive import MAX_MEMBERS, tcm_digest, write_tcm
from tistudio.aot.format import AotModuleError


@pytest.fixture(scope="module")
def good_files() -> dict[str, bytes]:
    module, *_ = kernels.build(ti.cpu)
    files = module.files()
    ti.reset()
    return files


def _tcm(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    write_tcm(files, buffer)
    return buffer.getvalue()


def _declare_size(data: bytes, member: str, size: int) -> bytes:
    """The archive with `member`'s sizes in the central directory set to `size`."""
    out = bytearray(data)
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        (name_length,) = struct.unpack_from("<H", data, at + 28)
        if data[at + 46 : at + 46 + name_length] == member.encode():
            struct.pack_into("<II", out, at + 20, size, size)
        at = data.find(b"PK\x01\x02", at + 4)
    return bytes(out)


def test_compressed_members_are_refused(good_files, tmp_path):
    path = tmp_path / "deflated.tcm"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in good_files.items():
            archive.writestr(name, data)
    with pytest.raises(AotModuleError, match=r"deflated.tcm'.*is compressed; .tcm members are"):
        tistudio.aot.load(path)


def test_member_count_is_capped(good_files, tmp_path):
    extra = {f"junk{k}": b"" for k in range(MAX_MEMBERS)}
    (tmp_path / "many.tcm").write_bytes(_tcm({**good_files, **extra}))
    with pytest.raises(AotModuleError, match=f"more than {MAX_MEMBERS} members"):
        tistudio.aot.load(tmp_path / "many.tcm")


def test_declared_sizes_are_capped_before_reading(good_files, tmp_path):
    data = _tcm(good_files)
    for name in ("fill.ll", "init.ll", "total.ll"):  # each under 1 GiB, together over 2 GiB
        data = _declare_size(data, name, 900 << 20)
    (tmp_path / "big.tcm").write_bytes(data)
    message = r"big.tcm': the module's files take 28311\d+ bytes, more than 2147483648"
    with pytest.raises(AotModuleError, match=message):
        tistudio.aot.load(tmp_path / "big.tcm")


def test_members_the_module_does_not_list_are_not_read(good_files, tmp_path):
    junk = b"JUNK" * 64
    data = _tcm({**good_files, "notes.txt": junk})
    data = data.replace(junk, b"KNUJ" * 64)  # its CRC no longer fits: reading it would fail
    (tmp_path / "m.tcm").write_bytes(data)
    m = tistudio.aot.load(tmp_path / "m.tcm")
    m.get_kernel("init")(1.0)
    np.testing.assert_array_equal(m.fields["x"].to_numpy(), kernels.expected_x(1.0))


def test_a_huge_tree_id_is_refused_at_once(good_files, tmp_path):
    meta = json.loads(good_files["metadata.json"])
    meta["trees"][0]["id"] = 10**12
    meta["fields"] = [f for f in meta["fields"] if f["tree"] != 0]
    files = {**good_files, "metadata.json": json.dumps(meta).encode()}
    (tmp_path / "m.tcm").write_bytes(_tcm(files))
    start = time.perf_counter()
    with pytest.raises(AotModuleError, match="tree ids must be 0, 1, 2"):
        tistudio.aot.load(tmp_path / "m.tcm")
    assert time.perf_counter() - start < 2


def test_expect_sha256(good_files, tmp_path):
    data = _tcm(good_files)
    (tmp_path / "m.tcm").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    tistudio.aot.load(tmp_path / "m.tcm", expect_sha256=digest.upper())
    with pytest.raises(AotModuleError, match=f"has SHA-256 {digest}, not the expected 00"):
        tistudio.aot.load(tmp_path / "m.tcm", expect_sha256="0" * 64)
    with pytest.raises(ValueError, match="64 hex digits"):
        tistudio.aot.load(tmp_path / "m.tcm", expect_sha256="abc")
    folder = tmp_path / "folder"
    folder.mkdir()
    for name, content in good_files.items():
        (folder / name).write_bytes(content)
    (folder / "notes.txt").write_text("not part of the module")
    assert tcm_digest(good_files) == digest  # a folder's digest is its archive's
    tistudio.aot.load(folder, expect_sha256=digest)
    (folder / "__content__").write_bytes(b"kernel:other\n")
    with pytest.raises(AotModuleError, match="not the expected"):
        tistudio.aot.load(folder, expect_sha256=digest)


def _folder(files: dict[str, bytes], path) -> None:
    path.mkdir()
    for name, content in files.items():
        (path / name).write_bytes(content)


def test_folder_links_lead_nowhere_outside(good_files, tmp_path):
    _folder(good_files, tmp_path / "m")
    outside = tmp_path / "secret.txt"
    outside.write_bytes(good_files["__content__"])
    (tmp_path / "m" / "__content__").unlink()
    os.symlink(outside, tmp_path / "m" / "__content__")
    with pytest.raises(AotModuleError, match="'__content__' is a link out of the module folder"):
        tistudio.aot.load(tmp_path / "m")
    (tmp_path / "m" / "__content__").unlink()
    (tmp_path / "m" / "content.txt").write_bytes(good_files["__content__"])
    os.symlink("content.txt", tmp_path / "m" / "__content__")  # inside the folder: fine
    tistudio.aot.load(tmp_path / "m").get_kernel("init")(1.0)


def _alarm(signum, frame):
    raise TimeoutError("the reader blocked")


def test_fifos_are_refused_without_blocking(good_files, tmp_path):
    _folder(good_files, tmp_path / "m")
    os.mkfifo(tmp_path / "m" / "extra")  # not listed: never opened
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        tistudio.aot.load(tmp_path / "m")
        (tmp_path / "m" / "__content__").unlink()
        os.mkfifo(tmp_path / "m" / "__content__")
        with pytest.raises(AotModuleError, match="'__content__' is not a regular file"):
            tistudio.aot.load(tmp_path / "m")
        os.mkfifo(tmp_path / "fifo.tcm")
        with pytest.raises(AotModuleError, match="no AOT module at|not a regular file"):
            tistudio.aot.load(tmp_path / "fifo.tcm")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@ti.kernel
def wave(a: ti.f32) -> ti.f32:
    return ti.sin(a)


def test_code_that_needs_a_missing_function_is_refused(tmp_path):
    """Modules built before session 12 call `tistudio_sinf`, which the runtime no longer
    defines; RuntimeDyld would link the call to address 0."""
    ti.init(arch=ti.cpu, offline_cache=False)
    module = ti.aot.Module(ti.cpu)
    module.add_kernel(wave)
    files = module.files()
    ti.reset()
    assert b"\0sinf\0" in files["wave.o"]
    obj = files["wave.o"].replace(b"\0sinf\0", b"\0sinq\0")
    meta = json.loads(files["metadata.json"])
    meta["artifacts"]["wave.o"] = hashlib.sha256(obj).hexdigest()
    files = {**files, "wave.o": obj, "metadata.json": json.dumps(meta).encode()}
    (tmp_path / "old.tcm").write_bytes(_tcm(files))
    m = tistudio.aot.load(tmp_path / "old.tcm")
    with pytest.raises(AotModuleError, match=r"old.tcm'.*kernel 'wave': cannot load 'wave.o'"):
        m.get_kernel("wave")
