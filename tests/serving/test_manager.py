"""ModelManager with a stand-in loader: which folders count as versions, the newest served,
the old one unloaded only once the new one loaded, failed loads retried a bounded number of
times, and the NOT_FOUND messages."""
import pytest

from trainflow._src.serving.manager import MAX_LOAD_RETRIES, ModelManager, list_versions
from trainflow._src.serving.status import ServingError


class FakeServable:
    def __init__(self, name, version, path, tags, log, fail):
        if version in fail:
            log.append(("fail", version))
            raise OSError(f"cannot load {version}")
        self.name, self.version, self.closed = name, version, False
        self._log = log
        log.append(("load", version))

    def acquire(self):
        return not self.closed

    def release(self):
        pass

    def close(self):
        self.closed = True
        self._log.append(("unload", self.version))


def _manager(base, fail=()):
    log = []
    m = ModelManager("m", str(base), poll_wait_seconds=0,
                     load=lambda *a: FakeServable(*a, log=log, fail=set(fail)))
    return m, log


def test_list_versions(tmp_path):
    for name in ["1", "20", "003", "x1", "1a", "-2", "99999999999999999999"]:
        (tmp_path / name).mkdir()
    (tmp_path / "7").write_text("a file")
    assert sorted(list_versions(str(tmp_path))) == [1, 3, 20]
    assert list_versions(str(tmp_path / "missing")) == {}


def test_newest_is_served_and_old_unloaded_after(tmp_path):
    (tmp_path / "1").mkdir()
    m, log = _manager(tmp_path)
    assert m.poll() == 1
    (tmp_path / "3").mkdir()
    (tmp_path / "2").mkdir()
    assert m.poll() == 3
    assert log == [("load", 1), ("load", 3), ("unload", 1)]
    assert m.status("m") == [(3, "AVAILABLE", "OK", ""), (1, "END", "OK", "")]
    assert m.acquire("m").version == 3
    assert m.acquire("m", 3).version == 3
    m.stop()
    assert log[-1] == ("unload", 3)
    assert m.status("m", 3) == [(3, "END", "OK", "")]


def test_failed_load_is_retried_then_left(tmp_path):
    (tmp_path / "1").mkdir()
    m, log = _manager(tmp_path, fail={2})
    m.poll()
    (tmp_path / "2").mkdir()
    for _ in range(MAX_LOAD_RETRIES + 3):
        assert m.poll() == 1
    assert log.count(("fail", 2)) == MAX_LOAD_RETRIES
    assert m.status("m", 2) == [(2, "END", "UNKNOWN", "OSError: cannot load 2")]
    assert m.acquire("m").version == 1


@pytest.mark.parametrize("call, message", [
    (lambda m: m.acquire("x"), "Servable not found for request: Latest(x)"),
    (lambda m: m.acquire("m", 5), "Servable not found for request: Specific(m, 5)"),
    (lambda m: m.status("x"), "Could not find any versions of model x"),
    (lambda m: m.status("m", 5), "Could not find version 5 of model m"),
    (lambda m: m.acquire("m", label="canary"), "Unrecognized servable version label: canary"),
])
def test_not_found(tmp_path, call, message):
    (tmp_path / "1").mkdir()
    m, _ = _manager(tmp_path)
    m.poll()
    with pytest.raises(ServingError) as e:
        call(m)
    assert e.value.message == message
    assert e.value.http_status == (400 if "label" in message else 404)
