"""`trainflow demo`: trains from a TFRecord queue pipeline in a MonitoredTrainingSession,
resumes from its checkpoint, and draws its curves."""
import io
import os
import re

import pytest

from trainflow._src.cli import main


def test_demo_trains_resumes_and_plots(tmp_path, capsys):
    logdir = str(tmp_path / "run")
    assert main(["demo", "--logdir", logdir, "--epochs", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out
    losses = [float(m) for m in re.findall(r"  loss (\d+\.\d+)", out)]
    assert len(losses) == 3 and losses[-1] < losses[0]
    accuracy = float(re.search(r"test accuracy (\d+\.\d+)", out).group(1))
    assert accuracy > 0.85
    assert re.search(r"after 135 steps \(135 in this run", out)
    assert main(["demo", "--logdir", logdir, "--epochs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming from step 135" in out
    assert re.findall(r"epoch +(\d+) ", out) == ["4"]
    assert re.search(r"after 180 steps \(45 in this run", out)
    assert sorted(f for f in os.listdir(logdir) if f.endswith(".index")) == \
        ["model.ckpt-135.index", "model.ckpt-180.index", "model.ckpt-90.index"]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert os.path.getsize(os.path.join(logdir, "curves.png")) > 1000


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_demo_progress_bar_only_on_a_terminal(tmp_path, monkeypatch):
    term = _Terminal()
    monkeypatch.setattr("sys.stdout", term)
    assert main(["demo", "--logdir", str(tmp_path), "--epochs", "1", "--batch-size", "256",
                 "--plot", str(tmp_path / "c.png")]) == 0
    out = term.getvalue()
    assert "\r" in out and "#" in out and "test accuracy" in out


@pytest.mark.parametrize("flag", ["--epochs", "--batch-size", "--hidden"])
@pytest.mark.parametrize("value, message", [("x", "invalid int value: 'x'"),
                                            ("0", "must be a positive integer: '0'"),
                                            ("-3", "must be a positive integer: '-3'")])
def test_demo_rejects_bad_numbers(tmp_path, flag, value, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["demo", "--logdir", str(tmp_path), flag, value])
    assert e.value.code == 2
    assert f"argument {flag}: {message}" in capsys.readouterr().err
    assert not os.listdir(tmp_path)  # nothing trained


def test_demo_piped_prints_plain_lines(tmp_path):
    import subprocess
    import sys

    import trainflow
    src = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
    proc = subprocess.run([sys.executable, "-m", "trainflow._src.cli", "demo", "--logdir",
                           str(tmp_path), "--epochs", "2", "--batch-size", "256", "--plot",
                           str(tmp_path / "c.png")],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=src))
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stdout and "\x1b" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert all(not line.endswith(" ") for line in lines)
    assert [line.split("  step")[0] for line in lines if line.startswith("epoch")] == \
        ["epoch   1", "epoch   2"]
    assert any(line.startswith("test accuracy ") for line in lines)


def test_demo_exports_a_model_trainflow_serve_answers(tmp_path, capsys):
    """The README's flow: train, export with --export_dir, serve, query predict and classify."""
    import json
    import urllib.request

    import numpy as np

    from trainflow._src.datasets import load_digits
    from trainflow._src.serving.server import ModelServer
    export = tmp_path / "export"
    assert main(["demo", "--logdir", str(tmp_path / "run"), "--epochs", "1", "--batch-size",
                 "256", "--no-progress", "--plot", str(tmp_path / "c.png"), "--export_dir",
                 str(export)]) == 0
    assert f"exported the model to {export / '6'}" in capsys.readouterr().out
    assert sorted(os.listdir(export)) == ["6"]
    images, _ = load_digits()
    with ModelServer("digits", str(export), "127.0.0.1", 0, poll_wait_seconds=0) as s:
        def post(verb, doc):
            req = urllib.request.Request(f"http://127.0.0.1:{s.port}/v1/models/digits:{verb}",
                                         json.dumps(doc).encode())
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read())
        rows = post("predict", {"instances": images[:3].tolist()})["predictions"]
        results = post("classify", {"signature_name": "classify",
                                    "examples": [{"image": images[0].tolist()}]})["results"]
    assert [r["classes"] for r in rows] == [int(np.argmax(r["probabilities"])) for r in rows]
    assert [label for label, _ in results[0]] == [str(i) for i in range(10)]
    np.testing.assert_allclose([score for _, score in results[0]], rows[0]["probabilities"],
                               rtol=1e-5)
