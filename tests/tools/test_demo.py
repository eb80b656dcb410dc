"""`trainflow demo` trains the digits classifier end to end."""
import re

from trainflow.cli import main


def test_demo_trains_and_reports_test_accuracy(capsys):
    assert main(["demo", "--epochs", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    losses = [float(m) for m in re.findall(r"loss (\d+\.\d+)", out)]
    assert len(losses) == 3 and losses[-1] < losses[0]
    accuracy = float(re.search(r"test accuracy (\d+\.\d+)", out).group(1))
    assert accuracy > 0.85


def test_demo_progress_bar(capsys):
    assert main(["demo", "--epochs", "1", "--batch-size", "256"]) == 0
    out = capsys.readouterr().out
    assert "[" in out and "#" in out and "test accuracy" in out
