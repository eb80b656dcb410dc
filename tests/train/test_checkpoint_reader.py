"""`tf.train.NewCheckpointReader` over every fixture checkpoint, V1 files, and TF's errors."""
import glob
import json
import os

import numpy as np
import pytest

from trainflow._src.framework import dtypes, errors
from trainflow._src.train import checkpoint_reader
from trainflow._src.train.checkpoint_reader import NewCheckpointReader

from fixture_paths import FIXTURES

HERE = os.path.dirname(os.path.abspath(__file__))
CKPTS = os.path.join(FIXTURES, "checkpoints")
PREFIXES = sorted(p[:-len(".index")] for p in glob.glob(os.path.join(CKPTS, "*", "*.index")))
DATA = os.path.join(HERE, "..", "formats", "data")
with open(os.path.join(DATA, "expected.json")) as _f:
    EXPECTED = json.load(_f)


@pytest.mark.parametrize("prefix", PREFIXES, ids=lambda p: os.path.relpath(p, CKPTS))
def test_every_fixture_reads(prefix):
    with NewCheckpointReader(prefix) as reader:
        assert reader.format_version == 2
        shapes = reader.get_variable_to_shape_map()
        types = reader.get_variable_to_dtype_map()
        assert set(shapes) == set(types) and shapes
        for name, shape in shapes.items():
            value = reader.get_tensor(name)
            assert reader.has_tensor(name) and isinstance(types[name], dtypes.DType)
            if types[name] == dtypes.string:
                assert isinstance(value, bytes) if shape == [] else value.dtype == object
                continue
            assert list(np.shape(value)) == shape
            assert value.dtype == np.dtype(types[name].as_numpy_dtype)
            assert isinstance(value, np.generic if shape == [] else np.ndarray)
        lines = reader.debug_string().split(b"\n")
        assert lines[-1] == b"" and len(lines) - 1 >= len(shapes)


def test_list_matches_tf_and_slices_are_hidden():
    with open(os.path.join(CKPTS, "a_dtypes", "model.ckpt.json")) as f:
        fixture = json.load(f)
    reader = NewCheckpointReader(os.path.join(CKPTS, "a_dtypes", "model.ckpt"))
    shapes = reader.get_variable_to_shape_map()
    assert sorted(shapes.items()) == [tuple(x) for x in fixture["list_variables"]]
    assert reader.get_variable_to_dtype_map()["bf16_vec"] == dtypes.bfloat16
    assert reader.get_tensor("str_scalar") == b"a scalar string"  # as TF: bytes, not an array
    assert type(reader.get_tensor("counter")) is np.int64
    assert reader.debug_string().startswith(b"bf16_vec (DT_BFLOAT16) [4]\nbool_vec (DT_BOOL) [5]\n")
    part = NewCheckpointReader(os.path.join(CKPTS, "c_partitioned", "model.ckpt"))
    assert part.get_variable_to_shape_map() == {"part": [10, 3], "part_col": [2, 7],
                                                "plain": [2]}
    assert [str(s) for s in part.get_slices("part_col")] == ["0,2:0,3", "0,2:3,2", "0,2:5,2"]
    assert part.get_slices("plain") == []
    # Slice entries are listed by debug_string, as TF does.
    assert part.debug_string().count(b"\x00part\x00\x01") == 3


def test_object_graph_is_parsed():
    reader = NewCheckpointReader(os.path.join(CKPTS, "e_object_based", "ckpt-1"))
    graph = reader.get_object_graph()
    assert [c.local_name for c in graph.nodes[0].children] == ["model", "optimizer", "step",
                                                              "save_counter"]
    slots = [s.slot_name for n in graph.nodes for s in n.slot_variables]
    assert sorted(slots) == ["m", "m", "m", "v", "v", "v"]
    assert NewCheckpointReader(os.path.join(CKPTS, "d_adam_slots", "model.ckpt")) \
        .get_object_graph() is None


@pytest.mark.parametrize("sub", ["v1", "v1_sharded", "v2_sharded"])
def test_reader_over_tf_written_test_checkpoints(sub):
    reader = checkpoint_reader.CheckpointReader(os.path.join(DATA, sub, EXPECTED[sub]["path"]))
    tf_says = EXPECTED[sub]["reader"]
    assert reader.format_version == (2 if sub == "v2_sharded" else 1)
    assert reader.get_variable_to_shape_map() == tf_says["shape_map"]
    assert {k: v.name for k, v in reader.get_variable_to_dtype_map().items()} == \
        tf_says["dtype_map"]
    assert sorted(reader.debug_string().decode("latin-1").splitlines()) == \
        sorted(tf_says["debug_string"].splitlines())
    cls, message = tf_says["missing_tensor"]
    with pytest.raises(getattr(errors, cls), match=f"^{message}$"):
        reader.get_tensor("missing")
    np.testing.assert_array_equal(reader.get_tensor("part")[:, 0], [-4.5, -2.5, -0.5, 1.5, 3.5])
    assert [str(s) for s in reader.get_slices("part")] == ["0,3:0,2", "3,2:0,2"]
    assert reader.get_slices("f32") == []


def test_missing_checkpoint_and_directory_errors_match_tf(tmp_path):
    missing = str(tmp_path / "x")
    with pytest.raises(errors.NotFoundError, match="^Unsuccessful TensorSliceReader constructor: "
                                                   f"Failed to find any matching files for "
                                                   f"{missing}$"):
        NewCheckpointReader(missing)
    with pytest.raises(errors.DataLossError, match=f"^Unable to open table file {tmp_path}"):
        NewCheckpointReader(str(tmp_path))
    with pytest.raises(errors.NotFoundError):
        NewCheckpointReader(missing.encode())
