"""`trainflow saved-model show|run`: saved_model_cli's text for a SavedModel written by
trainflow's builder, its inputs flags, and its errors."""
import argparse
import ast
import os

import numpy as np
import pytest

from serving_models import export_model
from trainflow._src import cli
from trainflow._src.tools import saved_model_cli as smc


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return export_model(str(tmp_path_factory.mktemp("sm") / "1"))


def _show(model_dir, **flags):
    args = argparse.Namespace(dir=model_dir, all=False, tag_set=None, signature_def=None,
                              list_ops=False)
    vars(args).update(flags)
    lines = []
    smc.show(args, out=lines.append)
    return "\n".join(lines)


SHOW_CASES = [
    ({}, "The given SavedModel contains the following tag-sets:\n'serve'"),
    ({"tag_set": "serve"},
     "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
     'SignatureDef key: "classify_x_to_y"\nSignatureDef key: "multi"\n'
     'SignatureDef key: "regress_x_to_y"\nSignatureDef key: "serving_default"\n'
     'SignatureDef key: "strings"\nSignatureDef key: "stuck"'),
    ({"tag_set": "serve", "signature_def": "multi"},
     "The given SavedModel SignatureDef contains the following input(s):\n"
     "  inputs['k'] tensor_info:\n      dtype: DT_INT32\n      shape: (-1)\n      name: k:0\n"
     "  inputs['x2'] tensor_info:\n      dtype: DT_FLOAT\n      shape: (-1, 2)\n"
     "      name: x2:0\n"
     "The given SavedModel SignatureDef contains the following output(s):\n"
     "  outputs['total'] tensor_info:\n      dtype: DT_FLOAT\n      shape: (-1)\n"
     "      name: total:0\n"
     "  outputs['twice'] tensor_info:\n      dtype: DT_INT32\n      shape: (-1)\n"
     "      name: twice:0\n"
     "Method name is: tensorflow/serving/predict"),
]


@pytest.mark.parametrize("flags, text", SHOW_CASES)
def test_show(model_dir, flags, text):
    assert _show(model_dir, **flags) == text


def test_show_all_and_list_ops(model_dir):
    text = _show(model_dir, all=True)
    assert text.startswith("\nMetaGraphDef with tag-set: 'serve' contains the following "
                           "SignatureDefs:\n\nsignature_def['classify_x_to_y']:\n"
                           "  The given SavedModel SignatureDef contains the following "
                           "input(s):\n    inputs['inputs'] tensor_info:\n"
                           "        dtype: DT_STRING\n")
    ops = text.splitlines()[-1]
    assert ops.startswith("The MetaGraph with tag set ['serve'] contains the following ops: {")
    assert {"Placeholder", "VariableV2", "ParseExampleV2", "AddV2"} <= ast.literal_eval(
        ops.split(": ")[1])
    assert _show(model_dir, tag_set="serve", list_ops=True).splitlines()[0] == ops


@pytest.mark.parametrize("flags, message", [
    ({"tag_set": "train"}, "MetaGraphDef associated with tag-set train could not be found in "
                           "the SavedModel. Please use one of the following tag-sets: ['serve']"),
    ({"tag_set": "serve", "signature_def": "nope"},
     'Could not find signature "nope". Please choose from: '),
    ({"tag_set": ","}, "tag_set must contain at least one non-empty item."),
])
def test_show_errors(model_dir, flags, message):
    with pytest.raises(smc.CliError) as e:
        _show(model_dir, **flags)
    assert str(e.value).startswith(message)


def test_run_from_files_and_expressions(model_dir, tmp_path, capsys):
    np.save(tmp_path / "x2.npy", np.arange(6, dtype=np.float32).reshape(3, 2))
    np.savez(tmp_path / "both.npz", a=np.ones(2, np.float32), b=np.zeros(2))
    outdir = tmp_path / "out"
    argv = ["saved-model", "run", "--dir", model_dir, "--tag_set", "serve", "--signature_def",
            "multi", "--inputs", f"x2={tmp_path / 'x2.npy'}", "--input_exprs", "k=[1,2,3]",
            "--outdir", str(outdir)]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == (
        "Result for output key total:\n[0.5 2.5 4.5]\n"
        f"Output total is saved to {outdir / 'total.npy'}\n"
        "Result for output key twice:\n[2 4 6]\n"
        f"Output twice is saved to {outdir / 'twice.npy'}\n")
    np.testing.assert_array_equal(np.load(outdir / "twice.npy"), [2, 4, 6])
    assert cli.main(argv) == 1  # the outputs are there: --overwrite replaces them
    assert "already exists. Add \"--overwrite\"" in capsys.readouterr().err
    assert cli.main(argv + ["--overwrite"]) == 0
    assert smc.load_inputs(f"x={tmp_path / 'both.npz'}[a]", "", "")["x"].tolist() == [1, 1]
    with pytest.raises(smc.CliError, match="contains more than one ndarrays"):
        smc.load_inputs(f"x={tmp_path / 'both.npz'}", "", "")


@pytest.mark.parametrize("flags, out", [
    (["--signature_def", "serving_default", "--input_exprs", "x=np.ones(3) * 2"],
     "Result for output key y:\n[3. 3. 3.]\n"),
    (["--signature_def", "serving_default", "--input_exprs", "x=[0.0, 4.0]"],
     "Result for output key y:\n[2. 4.]\n"),
    (["--signature_def", "regress_x_to_y", "--input_examples", 'inputs=[{"x":[1.0]},{"x":[3.0]}]'],
     "Result for output key outputs:\n[[2.5]\n [3.5]]\n"),
    (["--signature_def", "strings", "--input_exprs", "s=[b'a', b'bc']"],
     "Result for output key echo:\n[b'a' b'bc']\nResult for output key echo_bytes:\n"
     "[b'a' b'bc']\n"),
])
def test_run(model_dir, capsys, flags, out):
    assert cli.main(["saved-model", "run", "--dir", model_dir, "--tag_set", "serve"] + flags) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("flags, err", [
    (["--signature_def", "serving_default", "--input_exprs", "y=[1.0]"],
     '"y" is not a valid input key. Please choose from "x", or use --show option.'),
    (["--signature_def", "serving_default"],
     "At least one of --inputs, --input_exprs or --input_examples must be required"),
    (["--signature_def", "serving_default", "--input_exprs", "x=open('f')"],
     "Expression \"open('f')\" is not a valid python literal or numpy expression"),
    (["--signature_def", "serving_default", "--inputs", "x"], '--inputs "x" format is '
                                                              "incorrect."),
])
def test_run_errors(model_dir, capsys, flags, err):
    assert cli.main(["saved-model", "run", "--dir", model_dir, "--tag_set", "serve"] + flags) == 1
    assert capsys.readouterr().err.startswith("trainflow saved-model: " + err)


def test_missing_saved_model_is_exit_1(tmp_path, capsys):
    assert cli.main(["saved-model", "show", "--dir", str(tmp_path)]) == 1
    assert "SavedModel file does not exist at: " + str(tmp_path) in capsys.readouterr().err
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("flags, out", [
    ([], "MetaGraph with tag set ['serve'] does not contain the default denylisted ops: "
         "{'PrintV2', 'ReadFile', 'WriteFile'}\n"),
    (["--tag_set", "serve", "--op_denylist", "QueueDequeueV2, Mul,Foo"],
     "MetaGraph with tag set ['serve'] contains the following denylisted ops: "
     "{'Mul', 'QueueDequeueV2'}\n"),
    (["--op_denylist", ""], "MetaGraph with tag set ['serve'] does not contain the default "
                            "denylisted ops: {'PrintV2', 'ReadFile', 'WriteFile'}\n"),
])
def test_scan(model_dir, capsys, flags, out):
    assert cli.main(["saved-model", "scan", "--dir", model_dir] + flags) == 0
    assert capsys.readouterr().out == out
