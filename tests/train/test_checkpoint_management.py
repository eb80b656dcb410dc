"""The `checkpoint` state file: TF's text, relative paths, moved directories, removal."""
import os
import shutil

import numpy as np
import pytest

from trainflow import train
from trainflow._src.formats import tensor_bundle
from trainflow._src.formats.checkpoint_v1 import V1CheckpointWriter
from trainflow._src.train import checkpoint_management as cm

from fixture_paths import FIXTURES

CKPTS = os.path.join(FIXTURES, "checkpoints")


def _read(path):
    with open(path) as f:
        return f.read()


def test_reads_the_fixture_state_files():
    d = os.path.join(CKPTS, "b_max_to_keep")
    state = train.get_checkpoint_state(d)
    assert state.model_checkpoint_path == os.path.join(d, "model.ckpt-3")
    assert list(state.all_model_checkpoint_paths) == [os.path.join(d, "model.ckpt-2"),
                                                      os.path.join(d, "model.ckpt-3")]
    assert train.latest_checkpoint(d) == os.path.join(d, "model.ckpt-3")
    for name, prefix in [("a_dtypes", "model.ckpt"), ("e2_object_based_eager", "ckpt-1")]:
        assert train.latest_checkpoint(os.path.join(CKPTS, name)) == \
            os.path.join(CKPTS, name, prefix)


def test_writes_tfs_text_and_a_moved_directory_still_resolves(tmp_path):
    d = tmp_path / "run"
    shutil.copytree(os.path.join(CKPTS, "b_max_to_keep"), d)
    os.chmod(d, 0o755)
    os.remove(d / "checkpoint")
    cm.update_checkpoint_state_internal(str(d), str(d / "model.ckpt-3"),
                                        [str(d / "model.ckpt-2"), str(d / "model.ckpt-3")],
                                        save_relative_paths=True)
    assert _read(d / "checkpoint") == _read(os.path.join(CKPTS, "b_max_to_keep", "checkpoint"))
    moved = tmp_path / "elsewhere"
    shutil.move(str(d), str(moved))
    assert train.latest_checkpoint(str(moved)) == str(moved / "model.ckpt-3")
    assert len(train.get_checkpoint_mtimes([str(moved / "model.ckpt-2")])) == 1


def test_relative_save_dir_gives_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("run")
    train.update_checkpoint_state("run", "run/model.ckpt-5", ["run/model.ckpt-4"])
    assert _read("run/checkpoint") == ('model_checkpoint_path: "model.ckpt-5"\n'
                                      'all_model_checkpoint_paths: "model.ckpt-4"\n'
                                      'all_model_checkpoint_paths: "model.ckpt-5"\n')
    state = train.get_checkpoint_state("run")
    assert state.model_checkpoint_path == os.path.join("run", "model.ckpt-5")


def test_absolute_paths_timestamps_and_latest_filename(tmp_path):
    d = str(tmp_path)
    train.update_checkpoint_state(d, os.path.join(d, "m-2"), [os.path.join(d, "m-1"),
                                                              os.path.join(d, "m-2")],
                                  latest_filename="state", all_model_checkpoint_timestamps=[
                                      1.5, 2.25], last_preserved_timestamp=0.5)
    text = _read(tmp_path / "state")
    assert f'model_checkpoint_path: "{d}/m-2"' in text
    assert "all_model_checkpoint_timestamps: 1.5\nall_model_checkpoint_timestamps: 2.25\n" \
        "last_preserved_timestamp: 0.5\n" in text
    assert train.get_checkpoint_state(d) is None
    state = train.get_checkpoint_state(d, "state")
    assert list(state.all_model_checkpoint_timestamps) == [1.5, 2.25]
    assert train.latest_checkpoint(d, "state") is None  # no such files on disk
    assert not [n for n in os.listdir(d) if ".tmp" in n]


def test_generate_proto_rules():
    state = train.generate_checkpoint_state_proto("/abs", "/abs/a-2", ["/abs/a-1"])
    assert list(state.all_model_checkpoint_paths) == ["/abs/a-1", "/abs/a-2"]
    with pytest.raises(ValueError, match="timestamps, if provided, must match"):
        train.generate_checkpoint_state_proto("/abs", "/abs/a", [], [1.0, 2.0])
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        train.update_checkpoint_state("/abs", "/abs/checkpoint")


def test_bad_state_files(tmp_path):
    (tmp_path / "checkpoint").write_text("all_model_checkpoint_paths: 'x'\n")
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        train.get_checkpoint_state(str(tmp_path))
    (tmp_path / "checkpoint").write_text("this is not a proto")
    assert train.get_checkpoint_state(str(tmp_path)) is None
    assert train.latest_checkpoint(str(tmp_path)) is None


def test_exists_mtimes_and_remove(tmp_path):
    v2 = str(tmp_path / "model.ckpt-1")
    tensor_bundle.save(v2, {"w": np.ones(2)}, sync=False)
    (tmp_path / "model.ckpt-1.meta").write_bytes(b"meta")
    v1 = str(tmp_path / "old.ckpt")
    w = V1CheckpointWriter(v1)
    w.add("w", np.ones(2))
    w.finish()
    assert train.checkpoint_exists(v2) and train.checkpoint_exists(v1)
    assert train.checkpoint_exists(str(tmp_path / "old.*"))
    assert not train.checkpoint_exists(str(tmp_path / "model.ckpt-2"))
    mtimes = train.get_checkpoint_mtimes([v2, v1, str(tmp_path / "gone")])
    assert len(mtimes) == 2 and all(m > 1e9 for m in mtimes)
    train.remove_checkpoint(v2)
    assert sorted(os.listdir(tmp_path)) == ["old.ckpt"]
    train.remove_checkpoint(v1, checkpoint_format_version=cm.V1)
    assert os.listdir(tmp_path) == []
    assert cm.meta_graph_filename("/x/model.ckpt-12-00001-of-00002") == "/x/model.ckpt-12.meta"
