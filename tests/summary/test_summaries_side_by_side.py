"""One TF1 program with every summary kind (helpers/summary_program.py), run under
TensorFlow and under trainflow: TensorBoard's EventAccumulator reads both log
directories into the same tags, kinds, steps and values (images and audio decoded)."""
import json
import os
import subprocess
import sys

import pytest

import accumulator_dump
import summary_program
from tf_interop import TF_ENV, TF_PYTHON, needs_tf, run_json

_HELPERS = os.path.dirname(os.path.abspath(summary_program.__file__))
_SRC = os.path.join(_HELPERS, "..", "..", "src")


def _dump(logdirs):
    """The accumulator's view of each log directory, read in one TensorFlow process."""
    return run_json(f"import json, runpy; dump = runpy.run_path("
                    f"{accumulator_dump.__file__!r})['dump']; "
                    f"print(json.dumps([dump(d) for d in {logdirs!r}]))")


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = tmp_path_factory.mktemp("side_by_side")
    runs = {"tensorflow": (TF_PYTHON, "tensorflow.compat.v1"),
            "trainflow": (sys.executable, "trainflow.compat.v1")}
    logdirs = []
    for name, (python, module) in runs.items():
        logdir = str(root / name)
        env = dict(os.environ, **TF_ENV)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.abspath(_SRC)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        subprocess.run([python, summary_program.__file__, module, logdir], check=True,
                       env=env, capture_output=True, timeout=300)
        logdirs.append(logdir)
    return tuple(_dump(logdirs))


@needs_tf
@pytest.mark.parametrize("part", ["tags", "scalars", "histograms", "images", "audio",
                                  "tensors", "run_metadata", "graph_nodes",
                                  "meta_graph_nodes"])
def test_tensorboard_sees_the_same_run(dumps, part):
    theirs, ours = dumps
    assert json.dumps(ours[part], sort_keys=True) == json.dumps(theirs[part], sort_keys=True)


@needs_tf
def test_the_program_writes_every_kind(dumps):
    tags = dumps[1]["tags"]
    assert {k for k in ("images", "audio", "histograms", "scalars", "tensors",
                        "run_metadata") if tags[k]} == {"images", "audio", "histograms",
                                                        "scalars", "tensors", "run_metadata"}
    assert tags["graph"] and tags["meta_graph"]
