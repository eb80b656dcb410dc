"""`trainflow inspect` on meta graphs: ops by type, collections, the saver's signature."""
import json
import os

import trainflow.compat.v1 as tf
from trainflow._src import cli
from trainflow._version import __version__ as trainflow_version

from fixture_paths import FIXTURES

META = os.path.join(FIXTURES, "checkpoints", "d_adam_slots", "model.ckpt.meta")


def test_text_listing_of_a_meta_file(capsys):
    assert cli.main(["inspect", META]) == 0
    out = capsys.readouterr().out
    assert "105 nodes" in out and "ApplyAdam" in out
    assert "train_op                     node_list x1" in out
    assert "restore op:      save/restore_all" in out


def test_json_from_checkpoint_prefix_with_meta_flag(capsys):
    assert cli.main(["inspect", META[:-len(".meta")], "--meta", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ops_by_type"]["ApplyAdam"] == 2 and doc["nodes"] == 105
    assert doc["collections"]["variables"] == {"kind": "bytes_list", "size": 9}
    assert doc["saver"]["filename_tensor_name"] == "save/Const:0"
    assert doc["saver"]["version"] == "V2"


def test_shows_the_writer_the_file_records(tmp_path, capsys):
    """TF's file shows TF's release; a file trainflow wrote shows trainflow's fields (the
    TF API level and trainflow's build), not a TF release it never ran."""
    assert cli.main(["inspect", META]) == 0
    assert "(tensorflow_version 2.21.0, tensorflow_git_version v2.21.0" in \
        capsys.readouterr().out
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        path = str(tmp_path / "ours.meta")
        tf.train.export_meta_graph(filename=path)
    assert cli.main(["inspect", path]) == 0
    assert (f"(tensorflow_version 1.15.0, tensorflow_git_version trainflow-{trainflow_version},"
            in capsys.readouterr().out)


def test_missing_meta_file_fails(tmp_path, capsys):
    assert cli.main(["inspect", str(tmp_path / "x.meta")]) == 1
    assert "File does not exist" in capsys.readouterr().err
