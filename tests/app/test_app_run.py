"""tf.app.run: parses known flags, passes the rest to main(argv), exits with main's result.
Each case runs a small script in a fresh interpreter, since absl.app.run sets up
process-wide state (logging handler, exit)."""
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys
    import trainflow.app as app
    flags = app.flags
    flags.DEFINE_string("foo", "x", "a string")
    flags.DEFINE_integer("count", 1, "an int")

    def main(argv):
        print("main", argv[1:], flags.FLAGS.foo, flags.FLAGS.count)
        return {ret}

    if __name__ == "__main__":
        app.run({args})
""")


def _run_script(tmp_path, args, ret="0", run_args="main"):
    path = tmp_path / "prog.py"
    path.write_text(SCRIPT.format(ret=ret, args=run_args))
    return subprocess.run([sys.executable, str(path)] + args, capture_output=True, text=True,
                          cwd=tmp_path)


def test_run_parses_flags_and_keeps_unknown_ones(tmp_path):
    proc = _run_script(tmp_path, ["--foo=zz", "--unk=1", "pos", "--count=4"], ret="3")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.strip() == "main ['--unk=1', 'pos'] zz 4"


def test_run_defaults_to_main_of_main_module(tmp_path):
    proc = _run_script(tmp_path, [], run_args="")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "main [] x 1"


def test_run_with_explicit_argv(tmp_path):
    proc = _run_script(tmp_path, ["--foo=ignored"],
                       run_args="main, argv=['prog', '--foo=given', 'extra']")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "main ['extra'] given 1"


def test_run_reports_bad_flag_values(tmp_path):
    proc = _run_script(tmp_path, ["--count=abc"])
    assert proc.returncode == 1
    assert "count" in proc.stderr and "abc" in proc.stderr
    assert proc.stdout == ""


def test_import_is_lazy():
    code = ("import sys, trainflow; before = set(sys.modules); import trainflow.app; "
            "print(sorted(m for m in set(sys.modules) - before if m.startswith('absl')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
