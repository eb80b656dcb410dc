"""A fork server for TensorFlow's python: it imports TensorFlow once, then runs each script
it is sent in a forked child, as `python -c CODE ARGS...` would, so the interop tests pay
for TensorFlow's import once per test run instead of once per script.

Run under TensorFlow's python as `python tf_fork_server.py`; it reads one JSON request a
line on stdin ({"code", "args", "stdin", "env", "cwd", "timeout"}) and answers one JSON line
on stdout ({"rc", "stdout", "stderr"}). The child gets fresh stdin/stdout/stderr files, the
request's environment and working directory, and `__name__ == "__main__"`; whatever it
changes dies with it. `ForkServerClient` is the test side."""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time


def _child(request, out_path, err_path, in_path):
    """Runs the request's code in this (forked) process and never returns."""
    rc = 0
    try:
        for fd, path, mode in ((0, in_path, os.O_RDONLY), (1, out_path, os.O_WRONLY),
                               (2, err_path, os.O_WRONLY)):
            handle = os.open(path, mode)
            os.dup2(handle, fd)
            os.close(handle)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = ["-c", *request["args"]]
        sys.path[0] = ""
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            exec(compile(request["code"], "<string>", "exec"), namespace)
        except SystemExit as stop:
            code = stop.code
            rc = code if isinstance(code, int) else (0 if code is None else 1)
            if code is not None and not isinstance(code, int):
                print(code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - the child reports whatever the test code raised
            import traceback
            traceback.print_exc()
            rc = 1
        try:
            import atexit
            atexit._run_exitfuncs()
        except BaseException:  # noqa: BLE001 - nothing may stop the os._exit below
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(rc)


def _serve():
    """The server loop: one forked child at a time, killed when it runs past its timeout."""
    import tensorflow.compat.v1  # noqa: F401  (the import this server exists to share)
    protocol_in = sys.stdin
    protocol_out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    protocol_out.write("ready\n")
    protocol_out.flush()
    for line in protocol_in:
        request = json.loads(line)
        # Plain files, not a TemporaryDirectory: the child runs the atexit functions, and
        # a TemporaryDirectory would remove itself there.
        paths = [_scratch_file("") for _ in range(2)] + [_scratch_file(request["stdin"] or "")]
        try:
            pid = os.fork()
            if pid == 0:
                protocol_out.close()
                _child(request, *paths)
            rc = _wait(pid, request["timeout"])
            with open(paths[0], errors="replace") as out, open(paths[1], errors="replace") as err:
                reply = {"rc": rc, "stdout": out.read(), "stderr": err.read()}
        finally:
            for path in paths:
                os.unlink(path)
        protocol_out.write(json.dumps(reply) + "\n")
        protocol_out.flush()


def _scratch_file(text):
    """The path of a new temporary file holding `text`."""
    handle, path = tempfile.mkstemp(prefix="tf-fork-")
    with os.fdopen(handle, "w") as scratch:
        scratch.write(text)
    return path


def _wait(pid, timeout):
    """The child's exit status (negative: killed by that signal); None if it ran past
    `timeout` seconds (it is killed then)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)


class ForkServerClient:
    """The test side: starts the server under `python` with `env` on first use and sends it
    scripts one at a time; a script sent while another runs (from another thread) gets None,
    so the caller can run it in a plain subprocess instead."""

    def __init__(self, python, env):
        self._python, self._env = python, env
        self._proc = None
        self._lock = threading.Lock()

    def run(self, code, args, stdin, timeout):
        """(returncode, stdout, stderr) of the script, or None when the server is busy or
        can't start. Raises subprocess.TimeoutExpired past `timeout` seconds."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if not self._start():
                return None
            request = {"code": code, "args": list(args), "stdin": stdin,
                       "env": dict(os.environ, **self._env), "cwd": os.getcwd(),
                       "timeout": timeout}
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._read_line(timeout + 30)
            if line is None:
                self.close()
                raise subprocess.TimeoutExpired([self._python, "-c", code], timeout)
            reply = json.loads(line)
            if reply["rc"] is None:
                raise subprocess.TimeoutExpired([self._python, "-c", code], timeout)
            return reply["rc"], reply["stdout"], reply["stderr"]
        finally:
            self._lock.release()

    def _start(self):
        if self._proc is not None and self._proc.poll() is None:
            return True
        here = os.path.abspath(__file__)
        self._proc = subprocess.Popen([self._python, here], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True, env=dict(os.environ, **self._env))
        if self._read_line(300) != "ready":
            self.close()
            return False
        return True

    def _read_line(self, timeout):
        """The server's next line, or None if none came within `timeout` seconds."""
        ready, _, _ = select.select([self._proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self._proc.stdout.readline()
        return line.rstrip("\n") if line else None

    def close(self):
        """Stops the server (it exits when its stdin closes; killed if it doesn't)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=10)
        proc.stdout.close()


if __name__ == "__main__":
    _serve()
