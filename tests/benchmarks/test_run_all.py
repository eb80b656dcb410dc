"""benchmarks/run_all.py: the workload list, and one small workload on trainflow alone
end to end (the table and the JSON rows; no timing is asserted)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "run_all.py")


def _run(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, timeout=120, check=True).stdout


def test_list_names_every_benchmark_script():
    listed = {line.split()[1] for line in _run("--list").splitlines()}
    scripts = {f for f in os.listdir(os.path.join(ROOT, "benchmarks"))
               if f.endswith(".py") and not f.startswith("_")}
    # Not pairs of trainflow and TF: the GPU script, the bare-NumPy floors, the per-op
    # XLA lowering times, the model server's load test, and the cold-process run.
    assert scripts - listed == {"run_all.py", "gpu_step.py", "bare_numpy.py",
                                "xla_conv_ops.py", "serve_load.py", "first_step.py"}


def test_one_workload_trainflow_only_as_json():
    out = json.loads(_run("--only", "many_small_ops", "--repeat", "1", "--no-tf", "--json"))
    (row,) = out["rows"]
    assert row["workload"] == "1000-op chain, per op" and row["load"] == "plain"
    assert row["trainflow"] > 0 and row["tensorflow"] is None and row["ratio"] is None
    assert len(out["load_average"]["before"]) == 3
