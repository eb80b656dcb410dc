"""The default-session stack and eval/run through it, without the runtime's types."""
import pytest

from trainflow._src.framework import session_stack


class _FakeSession:
    """Anything with `graph` and `run` can be a default session."""

    def __init__(self, graph):
        self.graph = graph
        self.calls = []

    def run(self, fetches, feed_dict=None):
        self.calls.append((fetches, feed_dict))
        return "ran"


def test_stack_nests():
    a, b = _FakeSession("g"), _FakeSession("g")
    assert session_stack.get_default_session() is None
    with session_stack.default_session(a):
        with session_stack.default_session(b):
            assert session_stack.get_default_session() is b
        assert session_stack.get_default_session() is a
        assert session_stack.has_default_session()
    assert not session_stack.has_default_session()


def test_run_using_default_session():
    sess = _FakeSession("g")
    with session_stack.default_session(sess):
        assert session_stack.run_using_default_session("t", {"x": 1}, "g") == "ran"
    assert sess.calls == [("t", {"x": 1})]
    with pytest.raises(ValueError, match="Cannot evaluate tensor using `eval\\(\\)`"):
        session_stack.run_using_default_session("t", None, "g", is_tensor=True)
    with pytest.raises(ValueError, match="Cannot execute operation using `run\\(\\)`"):
        session_stack.run_using_default_session("op", None, "g")
    with pytest.raises(ValueError, match="the tensor's graph is different"):
        session_stack.run_using_default_session("t", None, "other", session=sess)
