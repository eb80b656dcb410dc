"""The `trainflow` command run as a subprocess with pipes: version, exit codes, pipes that
close early, and `inspect`'s path forms and strict JSON."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import trainflow
import trainflow._version
from trainflow._src.formats.tensor_bundle import BundleWriter

SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
ENV = dict(os.environ, PYTHONPATH=SRC)


def trainflow_cmd(*argv, timeout=120):
    """Runs `python -m trainflow ARGV` with pipes; returns (status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "trainflow", *argv], capture_output=True,
                          text=True, env=ENV, timeout=timeout, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    """A V2 checkpoint with a NaN/inf tensor and one big enough to fill a pipe."""
    d = tmp_path_factory.mktemp("ckpt")
    prefix = str(d / "model.ckpt-7")
    with BundleWriter(prefix) as w:
        w.add("big", np.arange(200000, dtype=np.float32))
        w.add("special", np.array([1.5, np.nan, np.inf, -np.inf], np.float32))
        w.add("c", np.array([complex(np.nan, 1.0)], np.complex64))
    return d, prefix


def test_version():
    code, out, err = trainflow_cmd("--version")
    assert code == 0 and err == ""
    assert out == f"trainflow {trainflow._version.__version__} (TensorFlow 1.15 API)\n"


def test_help_states_the_exit_codes():
    code, out, _ = trainflow_cmd("--help")
    assert code == 0 and "exit status: 0 success, 1 a file" in out and "2 wrong usage" in out


def test_help_says_what_cluster_appends():
    code, out, _ = trainflow_cmd("--help")
    assert code == 0 and "cluster" in out
    for flag in ("--job_name", "--task_index", "--ps_hosts", "--worker_hosts", "TF_CONFIG"):
        assert flag in out
    code, out, _ = trainflow_cmd("cluster", "--help")
    assert code == 0 and "Every task runs COMMAND with the flags" in out


@pytest.mark.parametrize("command", ["demo", "inspect", "events", "ops", "cluster"])
def test_every_command_is_in_the_readme_and_help(command):
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"\ntrainflow {command} " in readme
    code, out, _ = trainflow_cmd("--help")
    assert code == 0 and f"    {command} " in out


def test_missing_file_exits_1_for_every_file_command(tmp_path):
    for command in ("inspect", "events"):
        code, out, err = trainflow_cmd(command, str(tmp_path / "missing_dir"))
        assert (code, out) == (1, ""), command
        assert err.startswith(f"trainflow {command}: "), err


@pytest.mark.parametrize("argv", [[], ["nosuchcommand"], ["ops", "--symbols", "--json"],
                                  ["demo", "--epochs", "0"], ["demo", "--epochs", "-3"]])
def test_usage_errors_exit_2(argv):
    code, out, err = trainflow_cmd(*argv)
    assert code == 2 and out == "" and "usage: trainflow" in err


def test_bad_file_exits_1(tmp_path):
    code, out, err = trainflow_cmd("inspect", str(tmp_path / "missing"))
    assert code == 1 and out == "" and err.startswith("trainflow inspect: ")
    bad = tmp_path / "bad.ckpt.index"
    bad.write_bytes(b"not a table")
    code, out, err = trainflow_cmd("inspect", str(tmp_path / "bad.ckpt"))
    assert code == 1 and out == "" and "Traceback" not in err


@pytest.mark.parametrize("form", ["prefix", "index", "data", "directory"])
def test_inspect_accepts_every_form_of_a_checkpoint(ckpt, form):
    d, prefix = ckpt
    path = {"prefix": prefix, "index": prefix + ".index",
            "data": prefix + ".data-00000-of-00001", "directory": str(d)}[form]
    code, out, err = trainflow_cmd("inspect", path)
    assert (code, err) == (0, "")
    assert out.split() == ["big", "float32", "[200000]", "c", "complex64", "[1]",
                           "special", "float32", "[4]"]


def test_inspect_json_is_strict(ckpt):
    code, out, err = trainflow_cmd("inspect", ckpt[1], "--json", "--tensor", "special",
                                   "--tensor", "c")
    assert (code, err) == (0, "")

    def no_constants(token):
        raise AssertionError(f"non-standard JSON token {token}")
    doc = json.loads(out, parse_constant=no_constants)
    values = {t["name"]: t["value"] for t in doc["tensors"]}
    assert values == {"special": [1.5, "NaN", "Infinity", "-Infinity"], "c": [["NaN", 1.0]]}
    _, help_text, _ = trainflow_cmd("inspect", "--help")
    assert '"NaN"' in help_text and '"Infinity"' in help_text


def test_closed_pipe_is_quiet(ckpt):
    proc = subprocess.Popen([sys.executable, "-m", "trainflow", "inspect", ckpt[1], "--all",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=ENV, stdin=subprocess.DEVNULL)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    try:
        err = proc.stderr.read()
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
        proc.stderr.close()
    assert first == b"{\n"
    assert err == b"" and code == 141
