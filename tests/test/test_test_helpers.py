"""tf.test's StubOutForTesting, disable_with_predicate, with_eager_op_as_function,
test_src_dir_path and the build queries, as TensorFlow's googletest / test modules
behave (the cases of TF's own stub tests: module, class, instance and staticmethod)."""
import os
import types
import unittest

import pytest

import trainflow.compat.v1 as tf


class _Base:
    value = "base"

    @staticmethod
    def helper():
        return "static"

    def method(self):
        return "method"


class _Child(_Base):
    pass


def test_set_and_unset_module_and_class_attributes():
    module = types.ModuleType("m")
    module.answer = 42
    stubs = tf.test.StubOutForTesting()
    stubs.Set(module, "answer", 7)
    stubs.Set(_Base, "helper", staticmethod(lambda: "stubbed"))
    assert module.answer == 7 and _Base.helper() == "stubbed"
    stubs.UnsetAll()
    assert module.answer == 42 and _Base.helper() == "static"
    with pytest.raises(AttributeError):
        stubs.Set(module, "missing", 1)


def test_smart_set_replaces_where_the_attribute_is_defined():
    child = _Child()
    with tf.test.StubOutForTesting() as stubs:
        stubs.SmartSet(child, "method", lambda self: "stubbed")
        # Set on the instance's class (the last class of the MRO that has it), as TF does.
        assert child.method() == "stubbed" and _Child().method() == "stubbed"
        assert _Base().method() == "method"
        stubs.SmartSet(_Base, "value", "changed")
        assert _Child.value == "changed"
        own = _Child()
        own.__dict__["flag"] = 1
        stubs.SmartSet(own, "flag", 2)
        assert own.flag == 2
        with pytest.raises(AttributeError, match="Attribute not found."):
            stubs.SmartSet(_Child, "nothing", 1)
    assert "method" not in _Child.__dict__ or _Child().method() == "method"
    assert _Base.value == "base" and own.flag == 1


def test_disable_with_predicate_and_class_decorator():
    calls = []

    @tf.test.with_eager_op_as_function
    class Case(unittest.TestCase):
        @tf.test.disable_with_predicate(pred=lambda: True, skip_message="no")
        def test_skipped(self):
            calls.append("skipped")

        @tf.test.disable_with_predicate(pred=lambda: False, skip_message="no")
        def test_runs(self):
            calls.append("runs")

    assert tf.test.with_eager_op_as_function(only_as_function=True)(Case) is Case
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    assert calls == ["runs"] and [m for _, m in result.skipped] == ["no"]


def test_src_dir_path_and_build_queries(monkeypatch):
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    with pytest.raises(KeyError):
        tf.test.test_src_dir_path("python/ops")
    monkeypatch.setenv("TEST_SRCDIR", "/src")
    monkeypatch.setenv("TEST_WORKSPACE", "org_tensorflow")
    assert tf.test.test_src_dir_path("python/ops") == os.path.join(
        "/src", "org_tensorflow", "tensorflow", "python/ops")
    assert tf.test.is_built_with_gpu_support() is False
    assert tf.test.is_built_with_rocm() is False
