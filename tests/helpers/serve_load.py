"""A load test of `trainflow serve`, shared by tests/reliability/test_serve_load.py (a few
hundred requests) and benchmarks/serve_load.py (10,000): the command runs in its own process
over the SavedModel of serving_models.export_model; `clients` threads send `requests`
requests, a fraction of them malformed (bad JSON, wrong shapes or dtypes, unknown signature
or model, a body over the size limit, a client that sends half a body and stalls, one that
stalls inside its headers). Every answer is checked: a valid request gets its 200 and the
right values, a bad one its 4xx and an `error` message naming the problem. The server's RSS
is sampled throughout."""
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from serving_models import export_model

MAX_BODY_BYTES = 64 << 10
READ_TIMEOUT_S = 2.0

# (kind, expected HTTP status, a pattern the error message must match)
BAD_KINDS = [
    ("bad_json", 400, r"JSON Parse error"),
    ("wrong_shape", 400, r"Cannot feed value of shape|shape"),
    ("wrong_dtype", 400, r"float|type|convert"),
    ("unknown_signature", 400, r"Serving signature name: \"nope\" not found"),
    ("unknown_model", 404, r"Servable not found for request: Latest\(nope\)"),
    ("too_large", 413, r"Request body of \d+ bytes is over the limit of \d+ bytes"),
    ("stall_body", 408, r"Timed out reading the request body"),
    ("stall_headers", None, None),  # the server closes the connection (no request began)
]
VALID_KINDS = ["predict_row", "predict_columns", "multi", "classify", "regress", "status"]


def _request_of(kind, rng):
    """(method, path, body, check) of a request of `kind`; check(json) -> bool for a 200."""
    xs = [float(rng.randint(-50, 50)) for _ in range(rng.randint(1, 8))]
    ys = [0.5 * x + 2.0 for x in xs]
    if kind == "predict_row":
        return "POST", "/v1/models/m:predict", json.dumps({"instances": xs}), \
            lambda got: got == {"predictions": ys}
    if kind == "predict_columns":
        return "POST", "/v1/models/m/versions/1:predict", json.dumps({"inputs": xs}), \
            lambda got: got == {"outputs": ys}
    if kind == "multi":
        body = {"signature_name": "multi",
                "instances": [{"x2": [x, 1.0], "k": int(x)} for x in xs]}
        want = [{"total": 0.5 * (x + 1.0), "twice": 2 * int(x)} for x in xs]
        return "POST", "/v1/models/m:predict", json.dumps(body), \
            lambda got: got == {"predictions": want}
    if kind == "classify":
        body = {"signature_name": "classify_x_to_y", "examples": [{"x": x} for x in xs]}
        want = [[["lo", y], ["hi", 2 * y]] for y in ys]
        return "POST", "/v1/models/m:classify", json.dumps(body), \
            lambda got: got == {"results": want}
    if kind == "regress":
        body = {"signature_name": "regress_x_to_y", "examples": [{"x": x} for x in xs]}
        return "POST", "/v1/models/m:regress", json.dumps(body), \
            lambda got: got == {"results": ys}
    if kind == "status":
        return "GET", "/v1/models/m", None, \
            lambda got: got["model_version_status"][0]["state"] == "AVAILABLE"
    bodies = {
        "bad_json": json.dumps({"instances": xs})[:-rng.randint(1, 3)],
        "wrong_shape": json.dumps({"signature_name": "multi",
                                   "instances": [{"x2": [x, 1.0, 2.0], "k": 1} for x in xs]}),
        "wrong_dtype": json.dumps({"instances": [{"b64": "AAAA"}] * len(xs)}),
        "unknown_signature": json.dumps({"signature_name": "nope", "instances": xs}),
    }
    if kind == "unknown_model":
        return "POST", "/v1/models/nope:predict", json.dumps({"instances": xs}), None
    return "POST", "/v1/models/m:predict", bodies.get(kind), None


class _Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.latencies = []
        self.failures = []

    def add(self, key, latency=None, failure=None):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1
            if latency is not None:
                self.latencies.append(latency)
            if failure is not None and len(self.failures) < 20:
                self.failures.append(failure)


def _raw(port, data, stall_s=None, read_s=30.0):
    """Sends `data` on a new connection (then waits stall_s with it open, sending nothing);
    (status, body, seconds) of the answer, status None if the server closed the
    connection without one."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=read_s) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server already answered and closed (a body it refused)
        chunks = []
        try:
            while True:
                part = s.recv(65536)
                if not part:
                    break
                chunks.append(part)
        except ConnectionResetError:
            pass
    raw = b"".join(chunks)
    seconds = time.monotonic() - start
    if not raw:
        return None, None, seconds
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), body, seconds


def _client(port, jobs, results, rng):
    conn = None
    for kind in jobs:
        method, path, body, check = _request_of(kind, rng)
        if kind in ("too_large", "stall_body", "stall_headers"):
            if kind == "too_large":
                data = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: "
                        f"{MAX_BODY_BYTES + 1}\r\n\r\n").encode() + b"[" * (MAX_BODY_BYTES + 1)
            elif kind == "stall_body":
                data = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
                        '{"instances": [1.').encode()
            else:
                data = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Len".encode()
            try:
                status, text, seconds = _raw(port, data)
            except OSError as e:
                results.add("bad_conn_error", failure=(kind, repr(e)))
                continue
            _check_bad(kind, status, text, seconds, results)
            continue
        for attempt in range(2):
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            start = time.monotonic()
            try:
                conn.request(method, path, body=body,
                             headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                status, text = resp.status, resp.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server closed as idle: a new one, once.
                conn.close()
                conn = None
                if attempt:
                    status, text = None, b""
            except OSError as e:
                conn.close()
                conn = None
                status, text = None, repr(e).encode()
                break
        seconds = time.monotonic() - start
        if check is None:
            _check_bad(kind, status, text, seconds, results)
        elif status is None:
            results.add("valid_conn_error", failure=(kind, text))
        elif status >= 500:
            results.add("valid_5xx", failure=(kind, status, text[:300]))
        else:
            try:
                ok = status == 200 and check(json.loads(text))
            except (ValueError, KeyError, IndexError):
                ok = False
            results.add("valid_ok" if ok else "valid_wrong", seconds,
                        None if ok else (kind, status, text[:300]))
    if conn is not None:
        conn.close()


def _check_bad(kind, status, text, seconds, results):
    want_status, pattern = next((s, p) for k, s, p in BAD_KINDS if k == kind)
    if want_status is None:  # stalled headers: closed, within the read timeout (+ slack)
        ok = status is None and seconds < READ_TIMEOUT_S + 5
        results.add("bad_ok" if ok else "bad_wrong", None,
                    None if ok else (kind, status, seconds))
        return
    try:
        message = json.loads(text)["error"] if status is not None else None
    except (ValueError, KeyError, TypeError):
        message = None
    ok = status == want_status and isinstance(message, str) and re.search(pattern, message)
    if status is not None and status >= 500:
        results.add("bad_5xx", failure=(kind, status, text[:300]))
    else:
        results.add("bad_ok" if ok else "bad_wrong", None,
                    None if ok else (kind, status, (text or b"")[:300]))


def _rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None


def _percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def run(workdir, requests=10000, clients=32, malformed=0.2, seed=0, src=None):
    """Runs the load test; a dict of figures (see the keys at the end)."""
    base = os.path.join(workdir, "m")
    if not os.path.exists(os.path.join(base, "1")):
        export_model(os.path.join(base, "1"))
    rng = random.Random(seed)
    jobs = [rng.choice([k for k, _, _ in BAD_KINDS]) if rng.random() < malformed
            else rng.choice(VALID_KINDS) for _ in range(requests)]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainflow._src.cli", "serve", "--model_name=m",
         f"--model_base_path={base}", "--rest_api_port=0", "--host=127.0.0.1",
         "--file_system_poll_wait_seconds=0", f"--rest_api_max_body_bytes={MAX_BODY_BYTES}",
         f"--rest_api_read_timeout_seconds={READ_TIMEOUT_S}", "--rest_api_max_connections=96"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    results, rss, done = _Results(), [], threading.Event()
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"Exporting HTTP/REST API at:127\.0\.0\.1:(\d+) \.\.\.\n", line)
        if not m:
            raise RuntimeError(f"the server did not start: {line!r} {proc.stderr.read()}")
        port = int(m.group(1))
        bind_line = proc.stderr.readline().strip()
        rss_start = _rss_kb(proc.pid)

        def sample():
            while not done.wait(0.1):
                value = _rss_kb(proc.pid)
                if value:
                    rss.append(value)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        threads = [threading.Thread(target=_client, args=(
            port, jobs[i::clients], results, random.Random(seed * 1000 + i)))
            for i in range(clients)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - start
        done.set()
        sampler.join()
        alive = proc.poll() is None
        rss_end = _rss_kb(proc.pid)
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(timeout=60)
    finally:
        done.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
    lat = results.latencies
    return {
        "requests": requests, "clients": clients,
        "malformed": sum(1 for k in jobs if k not in VALID_KINDS),
        "malformed_by_kind": {k: jobs.count(k) for k, _, _ in BAD_KINDS},
        "counts": results.counts, "failures": results.failures,
        "crashed": not alive, "exit_code": exit_code,
        "p50_ms": _percentile(lat, 0.5) * 1e3 if lat else None,
        "p99_ms": _percentile(lat, 0.99) * 1e3 if lat else None,
        "wall_s": wall, "valid_per_s": len(lat) / wall if wall else None,
        "rss_start_mb": rss_start / 1024 if rss_start else None,
        "rss_peak_mb": max(rss) / 1024 if rss else None,
        "rss_end_mb": rss_end / 1024 if rss_end else None,
        "bind_line": bind_line, "stderr_tail": stderr[-2000:],
    }
