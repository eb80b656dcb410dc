"""Corrupt iterator state never crashes DeserializeIterator: mutated bytes are
DataLossError (the checksum), and mutated bodies with a recomputed checksum are
InvalidArgumentError or a restore that reads on with tf.errors only (never another
exception, never a hang). TRAINFLOW_FUZZ_EXAMPLES sets the example count."""
import json
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import trainflow.compat.v1 as tf
from fuzz_mutations import FUZZ_SETTINGS, MUTATIONS, mutate
from trainflow._src.formats import crc32c
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background, iterator_state, state_codec
from trainflow._src.ops.dataset.iterator_resource import IteratorResource

D = tf.data.Dataset
PIPELINES = {
    "range_map_batch": lambda: D.range(20).map(lambda x: x * 2).batch(3),
    "strings_zip": lambda: D.zip((D.from_tensor_slices(["a", "bb", "ccc", "d"]), D.range(4))),
    "flat_map_repeat": lambda: D.range(4).flat_map(lambda i: D.range(i)).repeat(2),
    "prefetch_filter": lambda: D.range(30).filter(lambda x: tf.equal(x % 3, 0)).prefetch(3),
    "concatenate_skip_take": lambda: D.range(5).concatenate(D.range(7, 9)).skip(1).take(5),
}
_CACHE = {}


def _resource(name):
    """A fresh IteratorResource over pipeline `name` (its dataset built once)."""
    if name not in _CACHE:
        graph = tf.Graph()
        with graph.as_default():
            ds = PIPELINES[name]()
            with tf.Session() as sess:
                value = sess.run(ds._variant_tensor)
        _CACHE[name] = (value[()] if isinstance(value, np.ndarray) else value,
                        ds._structure.flat_types, ds._structure.flat_shapes, graph)
    dataset, types, shapes, _ = _CACHE[name]
    resource = IteratorResource("fuzzed", types, shapes)
    resource.make(dataset)
    return resource


def _state(name, reads):
    resource = _resource(name)
    token = background.Cancellation()
    for _ in range(reads):
        try:
            resource.get_next(token)
        except errors.OutOfRangeError:
            break
    blob = iterator_state.serialize(resource)
    resource.close()
    return blob


def _read_on(resource):
    token = background.Cancellation()
    for _ in range(200):
        try:
            resource.get_next(token)
        except errors.OutOfRangeError:
            return
        except errors.OpError:
            continue


def _with_checksum(body):
    return state_codec.MAGIC + struct.pack("<I", crc32c.masked_crc32c(body)) + body


@FUZZ_SETTINGS
@given(name=st.sampled_from(sorted(PIPELINES)), reads=st.integers(0, 8),
       mutations=MUTATIONS, fix_checksum=st.booleans())
def test_mutated_state_is_rejected_or_reads_on(name, reads, mutations, fix_checksum):
    blob = _state(name, reads)
    head = len(state_codec.MAGIC) + 4
    if fix_checksum:
        bad = _with_checksum(mutate(blob[head:], mutations))
    else:
        bad = mutate(blob, mutations)
    resource = _resource(name)
    try:
        iterator_state.deserialize(resource, bad)
    except (errors.DataLossError, errors.InvalidArgumentError):
        pass
    else:
        if not fix_checksum:  # the checksum lets nothing else through
            assert bad == blob
    finally:
        _read_on(resource)
        resource.close()


# Well-formed bodies holding values of every JSON kind where the position should be.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=4),
    max_leaves=12)


@FUZZ_SETTINGS
@given(name=st.sampled_from(sorted(PIPELINES)), position=JSON_VALUES)
def test_state_with_a_foreign_position_is_invalid_argument_or_reads_on(name, position):
    saved = state_codec.decode(_state(name, 2))
    body = json.loads(state_codec.encode(saved)[len(state_codec.MAGIC) + 4:])
    body["$m"] = [[k, position if k == "position" else v] for k, v in body["$m"]]
    bad = _with_checksum(json.dumps(body).encode())
    resource = _resource(name)
    try:
        iterator_state.deserialize(resource, bad)
    except (errors.InvalidArgumentError, errors.DataLossError):
        pass
    finally:
        _read_on(resource)
        resource.close()


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_unmutated_state_round_trips(name):
    blob = _state(name, 3)
    resource = _resource(name)
    iterator_state.deserialize(resource, blob)
    assert iterator_state.serialize(resource) == blob
    resource.close()
