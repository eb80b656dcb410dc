"""`trainflow demo` trains the digits classifier end to end."""
import os
import re
import subprocess
import sys

import trainflow
from trainflow.cli import main


def test_demo_trains_and_reports_test_accuracy(capsys):
    assert main(["demo", "--epochs", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    losses = [float(m) for m in re.findall(r"loss (\d+\.\d+)", out)]
    assert len(losses) == 3 and losses[-1] < losses[0]
    accuracy = float(re.search(r"test accuracy (\d+\.\d+)", out).group(1))
    assert accuracy > 0.85


def test_demo_progress_bar_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["demo", "--epochs", "1", "--batch-size", "256"]) == 0
    out = capsys.readouterr().out
    assert "\repoch  1/1 [" in out and "#" in out and "test accuracy" in out
    assert "\r\x1b[Kepoch  1/1  loss " in out and "  \n" not in out


def test_demo_piped_prints_one_line_per_epoch():
    src = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
    proc = subprocess.run([sys.executable, "-m", "trainflow", "demo", "--epochs", "2",
                           "--batch-size", "256"], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=src))
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines(keepends=True)
    assert "\r" not in proc.stdout and "\x1b" not in proc.stdout
    assert all(not line.rstrip("\n").endswith(" ") for line in lines)
    assert [line.split("  loss")[0] for line in lines[1:3]] == ["epoch  1/2", "epoch  2/2"]
    assert lines[-1].startswith("test accuracy ") and len(lines) == 4
