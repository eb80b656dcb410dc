"""formats/atomic.py: atomic single-file writes, multi-file commits with a journal, readers
following an interrupted commit, and the clean-up of dead writers' temporaries."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from trainflow._src.formats import atomic
from trainflow._src.formats import tensor_bundle as tb
from trainflow._src.formats.tensor_bundle_reader import BundleReader


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _names(d):
    return sorted(os.listdir(d))


def test_write_file_replaces_whole_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "checkpoint"
    atomic.write_file(path, "one")
    atomic.write_file(path, b"two")
    atomic.write_file(path, lambda f: f.write(b"three"))
    assert path.read_bytes() == b"three"
    assert _names(tmp_path) == ["checkpoint"]


def test_write_file_failure_removes_the_temporary(tmp_path):
    def boom(f):
        f.write(b"partial")
        raise OSError("disk full")
    (tmp_path / "state").write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"):
        atomic.write_file(tmp_path / "state", boom)
    assert (tmp_path / "state").read_bytes() == b"old"
    assert _names(tmp_path) == ["state"]


def test_temp_names_carry_the_pid_and_are_live_until_released(tmp_path):
    final = str(tmp_path / "x.index")
    tmp = atomic.temp_path(final)
    assert f".tempstate-{os.getpid()}-" in tmp
    open(tmp, "wb").close()
    atomic.clean_stale(str(tmp_path))
    assert os.path.exists(tmp)  # a live writer of this process keeps its files
    atomic.release(tmp)
    atomic.clean_stale(str(tmp_path))
    assert not os.path.exists(tmp)


def test_clean_stale_removes_dead_writers_files_and_folders_only(tmp_path):
    dead, alive = _dead_pid(), os.getppid()
    hexa = "0" * 32
    stale = [f"m.index.tempstate-{dead}-{hexa}", f"checkpoint.tmp-{dead}-{hexa}"]
    kept = [f"m.index.tempstate-{alive}-{hexa}", "m.index", "notes.tmp", "checkpoint"]
    for n in stale + kept:
        (tmp_path / n).write_bytes(b"x")
    (tmp_path / f"m.tempstate-{dead}-{'1' * 32}").mkdir()
    (tmp_path / f"m.tempstate-{dead}-{'1' * 32}" / "part-00000").write_bytes(b"x")
    atomic.clean_stale(str(tmp_path))
    assert _names(tmp_path) == sorted(kept)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux's /proc")
def test_clean_stale_treats_an_unreaped_writer_as_dead(tmp_path):
    # A writer killed with SIGKILL stays a zombie until its parent reaps it; it writes no more.
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        for _ in range(500):
            with open(f"/proc/{child.pid}/stat") as f:
                if f.read().rsplit(") ", 1)[1].startswith("Z"):
                    break
            time.sleep(0.01)
        else:
            pytest.fail("the child never exited")
        name = f"m.index.tempstate-{child.pid}-{'0' * 32}"
        (tmp_path / name).write_bytes(b"x")
        atomic.clean_stale(str(tmp_path))
        assert _names(tmp_path) == []
    finally:
        child.wait(timeout=30)


def _pair(prefix, value):
    tb.save(prefix, {"w": np.full(3, value, np.float32)})


def _interrupted_commit(tmp_path, renames_done):
    """The old checkpoint at `m`, a new complete pair in temporaries and a journal written
    by a dead process that did `renames_done` of its two renames."""
    prefix = str(tmp_path / "m")
    _pair(prefix, 1.0)
    _pair(str(tmp_path / "new"), 2.0)
    dead = _dead_pid()
    hexa = "a" * 32
    finals = [tb.data_filename(prefix, 0, 1), tb.index_filename(prefix)]
    temps = [f"{f}.tempstate-{dead}-{hexa}" for f in finals]
    os.replace(tb.data_filename(str(tmp_path / "new"), 0, 1), temps[0])
    os.replace(tb.index_filename(str(tmp_path / "new")), temps[1])
    journal = f"{finals[1]}.tempstate-{dead}-{'b' * 32}.commit"
    with open(journal, "w") as f:
        json.dump({"renames": [[os.path.basename(t), os.path.basename(x)]
                               for t, x in zip(temps, finals)]}, f)
    for t, x in list(zip(temps, finals))[:renames_done]:
        os.replace(t, x)
    return prefix


@pytest.mark.parametrize("renames_done", [0, 1, 2])
def test_readers_follow_an_interrupted_commit_and_the_next_save_finishes_it(tmp_path,
                                                                            renames_done):
    prefix = _interrupted_commit(tmp_path, renames_done)
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.full(3, 2.0, np.float32))
    atomic.clean_stale(str(tmp_path))  # what the next save does first
    assert _names(tmp_path) == ["m.data-00000-of-00001", "m.index"]
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.full(3, 2.0, np.float32))


def test_commit_over_an_existing_checkpoint_leaves_no_journal(tmp_path):
    prefix = str(tmp_path / "m")
    _pair(prefix, 1.0)
    _pair(prefix, 3.0)
    assert _names(tmp_path) == ["m.data-00000-of-00001", "m.index"]
    assert atomic.resolve_pending(tb.index_filename(prefix)) == {}
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.full(3, 3.0, np.float32))


def test_merge_bundles_commits_data_and_index_together(tmp_path):
    parts = []
    for k in range(2):
        part = str(tmp_path / "tmp" / f"part-{k}")
        tb.save(part, {f"t{k}": np.arange(k + 2)})
        parts.append(part)
    tb.merge_bundles(parts, str(tmp_path / "m"))
    with BundleReader(str(tmp_path / "m")) as r:
        np.testing.assert_array_equal(r.lookup("t1"), np.arange(3))
    assert not any("tempstate" in n for n in os.listdir(tmp_path))


def test_a_rename_failing_mid_commit_leaves_the_journal_for_readers_and_next_save(
        tmp_path, monkeypatch):
    prefix = str(tmp_path / "m")
    _pair(prefix, 1.0)
    real = os.replace
    calls = []

    def fail_second(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("I/O error")
        return real(src, dst)
    monkeypatch.setattr(atomic.os, "replace", fail_second)
    with pytest.raises(OSError, match="I/O error"):
        _pair(prefix, 5.0)
    monkeypatch.setattr(atomic.os, "replace", real)
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.full(3, 5.0, np.float32))
    atomic.clean_stale(str(tmp_path))
    assert _names(tmp_path) == ["m.data-00000-of-00001", "m.index"]
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.full(3, 5.0, np.float32))
