"""`trainflow inspect`: listing, values and JSON for every fixture checkpoint."""
import glob
import json
import os

import pytest

from trainflow._src import cli

from fixture_paths import FIXTURES

HERE = os.path.dirname(os.path.abspath(__file__))
CKPTS = os.path.join(FIXTURES, "checkpoints")
PREFIXES = sorted(p[:-len(".index")] for p in glob.glob(os.path.join(CKPTS, "*", "*.index")))
V1_FILE = os.path.join(HERE, "..", "formats", "data", "v1", "model.ckpt")


def _run(capsys, *argv):
    code = cli.main(["inspect", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("prefix", PREFIXES, ids=lambda p: os.path.relpath(p, CKPTS))
def test_lists_and_dumps_every_fixture(prefix, capsys):
    code, out, _ = _run(capsys, prefix)
    assert code == 0
    listing = out.splitlines()
    code, out, _ = _run(capsys, prefix, "--all", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["format_version"] == 2 and len(doc["tensors"]) == len(listing)
    assert all("value" in t for t in doc["tensors"])
    code, out, _ = _run(capsys, prefix, "--all")
    assert code == 0 and out.count("tensor_name:  ") == len(listing)


def test_listing_shows_dtype_shape_and_slices(capsys):
    code, out, _ = _run(capsys, os.path.join(CKPTS, "c_partitioned"))
    assert code == 0
    assert out.splitlines() == ["part      float32    [10,3]  (3 slices)",
                                "part_col  float32    [2,7]  (3 slices)",
                                "plain     float32    [2]"]


def test_tensor_values_as_json(capsys):
    path = os.path.join(CKPTS, "a_dtypes", "model.ckpt")
    code, out, _ = _run(capsys, path, "--json", "--tensor", "str_vec", "--tensor",
                        "f32_special", "--tensor", "extra/c64", "--tensor", "f32_empty",
                        "--tensor", "counter", "--tensor", "bool_vec")
    assert code == 0
    values = {t["name"]: t for t in json.loads(out)["tensors"]}
    assert values["str_vec"]["value"] == ["", "68656c6c6f", "00fffe62696e617279", "68c3a96c6c6f"]
    special = values["f32_special"]["value"]
    assert special[:5] == [0.0, -0.0, "Infinity", "-Infinity", "NaN"]
    assert values["extra/c64"] == {"name": "extra/c64", "dtype": "complex64", "shape": [2],
                                   "value": [[1.0, 2.0], [-0.0, -0.5]]}
    assert values["f32_empty"]["value"] == [[], []]
    assert values["counter"]["value"] == 7
    assert values["bool_vec"]["value"] == [True, False, True, True, False]


def test_object_graph_is_decoded(capsys):
    d = os.path.join(CKPTS, "e_object_based")
    code, out, _ = _run(capsys, d, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["object_graph"]["nodes"][0]["children"][0]["localName"] == "model"
    code, out, _ = _run(capsys, d, "--tensor", "_CHECKPOINTABLE_OBJECT_GRAPH")
    assert 'local_name: "optimizer"' in out and "slot_variables" in out
    code, out, _ = _run(capsys, d, "--tensor", "step/.ATTRIBUTES/VARIABLE_VALUE")
    assert out == "tensor_name:  step/.ATTRIBUTES/VARIABLE_VALUE\n2\n"


def test_v1_checkpoint(capsys):
    code, out, _ = _run(capsys, V1_FILE)
    assert code == 0 and "part    float32    [5,2]  (2 slices)" in out.splitlines()
    code, out, _ = _run(capsys, V1_FILE, "--tensor", "words", "--json")
    assert json.loads(out)["tensors"][0]["value"] == ["", "68656c6c6f", "ff007a"]


def test_errors_exit_with_status_1(capsys, tmp_path):
    code, out, err = _run(capsys, str(tmp_path / "none"))
    assert code == 1 and out == "" and "Failed to find any matching files" in err
    code, _, err = _run(capsys, str(tmp_path))
    assert code == 1 and "Couldn't find 'checkpoint' file" in err
    code, _, err = _run(capsys, V1_FILE, "--tensor", "nope")
    assert code == 1 and "nope not found in checkpoint file" in err
