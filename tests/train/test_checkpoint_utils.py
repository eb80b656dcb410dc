"""load_checkpoint / load_variable / list_variables and the checkpoint polling helpers."""
import json
import os
import shutil

import numpy as np
import pytest

from trainflow import train
from trainflow._src.train.checkpoint_utils import wait_for_new_checkpoint
from trainflow._src.formats import tensor_bundle
from trainflow._src.framework import errors

from fixture_paths import FIXTURES

CKPTS = os.path.join(FIXTURES, "checkpoints")


@pytest.mark.parametrize("name,prefix", [("a_dtypes", "model.ckpt"),
                                         ("c_partitioned", "model.ckpt")])
def test_list_variables_matches_tf(name, prefix):
    with open(os.path.join(CKPTS, name, "model.ckpt.json")) as f:
        fixture = json.load(f)
    want = fixture.get("list_variables") or [
        [k, v["shape"]] for k, v in sorted(fixture["checkpoint_keys"].items())]
    for where in (os.path.join(CKPTS, name), os.path.join(CKPTS, name, prefix)):
        assert train.list_variables(where) == [tuple(x) for x in want]


def test_load_checkpoint_from_a_directory_uses_the_latest():
    reader = train.load_checkpoint(os.path.join(CKPTS, "b_max_to_keep"))
    assert reader.get_tensor("global_step") == 3
    value = train.load_variable(os.path.join(CKPTS, "b_max_to_keep"), "w:0")
    np.testing.assert_array_equal(value, [3.0, -1.5])
    with pytest.raises(errors.NotFoundError, match="Key nope not found in checkpoint"):
        train.load_variable(os.path.join(CKPTS, "b_max_to_keep"), "nope")


def test_directory_without_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in "
                                         f"given directory {tmp_path}"):
        train.load_checkpoint(tmp_path)
    with pytest.raises(errors.NotFoundError):
        train.load_checkpoint(str(tmp_path / "nope"))


def _save(directory, step):
    prefix = os.path.join(directory, f"model.ckpt-{step}")
    tensor_bundle.save(prefix, {"step": np.int64(step)}, sync=False)
    train.update_checkpoint_state(directory, prefix)
    return prefix


def test_checkpoints_iterator_yields_each_new_checkpoint(tmp_path):
    first = _save(str(tmp_path), 1)
    pending = [2, 3]

    def timeout_fn():
        if not pending:
            return True
        _save(str(tmp_path), pending.pop(0))
        return False
    seen = list(train.checkpoints_iterator(str(tmp_path), timeout=0, timeout_fn=timeout_fn))
    assert seen == [first, str(tmp_path / "model.ckpt-2"), str(tmp_path / "model.ckpt-3")]
    assert list(train.checkpoints_iterator(str(tmp_path / "empty"), timeout=0)) == []


def test_wait_for_new_checkpoint(tmp_path):
    assert wait_for_new_checkpoint(str(tmp_path), timeout=0) is None
    prefix = _save(str(tmp_path), 7)
    assert wait_for_new_checkpoint(str(tmp_path), timeout=0) == prefix
    assert wait_for_new_checkpoint(str(tmp_path), prefix, timeout=0) is None
    moved = str(tmp_path) + "_moved"
    shutil.move(str(tmp_path), moved)
    assert wait_for_new_checkpoint(moved, timeout=0) == os.path.join(moved,
                                                                           "model.ckpt-7")
