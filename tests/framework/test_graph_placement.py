"""Graph.device and Graph.colocate_with.

Expected devices and `_class` values were recorded from TensorFlow 2.21.
"""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.device_spec import DeviceSpec


def _dev():
    return tf.constant(1, name="c").op.device


@pytest.mark.parametrize("spec, expected", [
    ("/cpu:0", "/device:CPU:0"), ("/CPU:0", "/device:CPU:0"), ("cpu:0", "/device:CPU:0"),
    ("/device:CPU:0", "/device:CPU:0"), ("/gpu:1", "/device:GPU:1"), ("/job:ps", "/job:ps"),
    ("/job:ps/task:1", "/job:ps/task:1"),
    ("/job:worker/replica:2/task:3/device:GPU:4", "/job:worker/replica:2/task:3/device:GPU:4"),
    ("/task:1", "/task:1"), ("/device:GPU:*", "/device:GPU:*"), ("GPU", "/device:GPU:*"),
    ("/job:ps/cpu", "/job:ps/device:CPU:*"), ("", ""), ("/replica:1", "/replica:1"),
    ("/device:TPU_SYSTEM:0", "/device:TPU_SYSTEM:0"), ("/device:XLA_CPU:0", "/device:XLA_CPU:0"),
    ("/job:ps/device:cpu:1", "/job:ps/device:CPU:1"), ("/device:gpu:3", "/device:GPU:3"),
    ("/GPU:0", "/device:GPU:0"),
])
def test_device_strings_are_canonicalised(spec, expected):
    with tf.Graph().as_default() as g:
        with g.device(spec):
            assert _dev() == expected


@pytest.mark.parametrize("spec, message", [
    ("/foo:1", "Unknown attribute 'foo' is encountered while parsing the device spec: "
               "'/foo:1'."),
    ("/job:a:b", "Unknown attribute 'job' is encountered"),
    ("/task", "Unknown attribute 'task' is encountered"),
    ("/job:ps/task:x", "invalid literal for int()"),
    ("/cpu:0/gpu:0", "Multiple device types are not allowed"),
])
def test_bad_device_strings(spec, message):
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            with g.device(spec):
                _dev()


def test_nested_partial_specs_merge():
    with tf.Graph().as_default() as g:
        with g.device("/job:ps"):
            with g.device("/task:1"):
                assert _dev() == "/job:ps/task:1"
                with g.device("/cpu:0"):
                    assert _dev() == "/job:ps/task:1/device:CPU:0"
                    with g.device("/job:w"):
                        assert _dev() == "/job:w/task:1/device:CPU:0"
                    with g.device(""):
                        assert _dev() == "/job:ps/task:1/device:CPU:0"
                    with g.device(None):
                        assert _dev() == ""
                        with g.device("/gpu:0"):
                            assert _dev() == "/device:GPU:0"


def test_device_functions_and_specs():
    with tf.Graph().as_default() as g:
        with g.device(lambda op: "/job:fn/task:%d" % len(op.name)):
            assert tf.constant(1, name="abcd").op.device == "/job:fn/task:4"
            with g.device("/cpu:0"):
                assert tf.constant(1, name="abcd").op.device == "/job:fn/task:6"
        with g.device("/cpu:0"):
            with g.device(lambda op: "/job:fn"):
                assert _dev() == "/job:fn/device:CPU:0"
            with g.device(lambda op: ""):
                assert _dev() == "/device:CPU:0"
        with g.device(DeviceSpec(job="ps", device_type="GPU", device_index=0)):
            assert _dev() == "/job:ps/device:GPU:0"
        with tf.device(DeviceSpec.from_string("/job:ps/task:3")):
            assert _dev() == "/job:ps/task:3"


def test_colocate_with():
    with tf.Graph().as_default() as g:
        with g.device("/job:ps/task:0"):
            a = tf.constant(1, name="a")
        b = tf.constant(2, name="b")
        with g.device("/job:w/task:1"):
            with g.colocate_with(a):
                c = tf.constant(3, name="c")
                with g.device("/cpu:0"):  # colocation wins over device scopes
                    c2 = tf.constant(3, name="c2")
            with g.colocate_with(b.op):
                d = tf.constant(4, name="d")
                with g.colocate_with(a):
                    e = tf.constant(4, name="e")
                with g.colocate_with(a, ignore_existing=True):
                    e2 = tf.constant(4, name="e2")
                with g.colocate_with(None, ignore_existing=True):
                    e3 = tf.constant(4, name="e3")
            f = tf.constant(1, name="f")
        with g.colocate_with(c):
            h = tf.constant(1, name="h")
        with tf.colocate_with(a):
            i = tf.constant(1, name="i")
    cases = {c: ("/job:ps/task:0", [b"loc:@a"]), c2: ("/job:ps/task:0", [b"loc:@a"]),
             d: ("", [b"loc:@b"]), e: ("/job:ps/task:0", [b"loc:@a", b"loc:@b"]),
             e2: ("/job:ps/task:0", [b"loc:@a"]), h: ("/job:ps/task:0", [b"loc:@a"]),
             i: ("/job:ps/task:0", [b"loc:@a"])}
    for t, (device, groups) in cases.items():
        assert t.op.device == device, t.op.name
        assert t.op.colocation_groups() == groups
        assert t.op.get_attr("_class") == groups
        assert list(t.op.node_def.attr["_class"].list.s) == groups
    for t, name in ((e3, b"e3"), (f, b"f")):
        assert t.op.colocation_groups() == [b"loc:@" + name]
        assert "_class" not in t.op.node_def.attr
    assert f.op.device == "/job:w/task:1"


def test_colocate_with_none_needs_ignore_existing():
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match=r"Trying to reset colocation \(op is None\) but "
                           "ignore_existing is not True"):
            with g.colocate_with(None):
                pass
