"""`trainflow serve` end to end: a ModelServer on 127.0.0.1 (a free port) over a folder of
SavedModel versions written by trainflow's SavedModelBuilder, queried with urllib: status,
metadata, predict in both formats, b64 strings, classify, regress, the 400 and 404 bodies,
a new version picked up by polling; and the command itself stopped by SIGTERM and SIGINT."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from serving_models import export_model
from trainflow._src.serving.server import ModelServer

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def request(port, path, body=None, method=None):
    """(HTTP status, parsed JSON body) of a request to the server."""
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                 method=method or ("POST" if data is not None else "GET"))
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.headers["Content-Type"] == "application/json"
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        with e:
            return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("models") / "m"
    export_model(str(base / "1"))
    with ModelServer("m", str(base), "127.0.0.1", 0, poll_wait_seconds=0.2,
                     timeout_in_ms=500) as s:
        yield s
    assert not [t for t in threading.enumerate() if t.name.startswith("serving-")]


def _status(version, state="AVAILABLE", code="OK", message=""):
    return {"version": str(version), "state": state,
            "status": {"error_code": code, "error_message": message}}


CASES = [
    # (path, body, HTTP status, the JSON answer or the start of its error message)
    ("/v1/models/m", None, 200, {"model_version_status": [_status(1)]}),
    ("/v1/models/m/versions/1", None, 200, {"model_version_status": [_status(1)]}),
    ("/v1/models/m:predict", '{"instances": [1.0, 2.0, 5.0]}', 200,
     {"predictions": [2.5, 3.0, 4.5]}),
    ("/v1/models/m/versions/1:predict", '{"signature_name": "serving_default", '
                                        '"inputs": [3.0, 4.0]}', 200, {"outputs": [3.5, 4.0]}),
    ("/v1/models/m:predict", '{"signature_name": "multi", "instances": [{"x2": [1, 2], "k": 3},'
                             ' {"x2": [3, 4], "k": 5}]}', 200,
     {"predictions": [{"total": 1.5, "twice": 6}, {"total": 3.5, "twice": 10}]}),
    ("/v1/models/m:predict", '{"signature_name": "multi", "inputs": {"x2": [[1, 2]], "k": [3]}}',
     200, {"outputs": {"total": [1.5], "twice": [6]}}),
    ("/v1/models/m:predict", '{"signature_name": "strings", "instances": [{"b64": "w6k="}, '
                             '"abc"]}', 200,
     {"predictions": [{"echo": "\u00e9", "echo_bytes": {"b64": "w6k="}},
                      {"echo": "abc", "echo_bytes": {"b64": "YWJj"}}]}),
    ("/v1/models/m:classify", '{"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}, '
                              '{"x": [4.0]}]}', 200,
     {"results": [[["lo", 3.0], ["hi", 6.0]], [["lo", 4.0], ["hi", 8.0]]]}),
    ("/v1/models/m:regress", '{"signature_name": "regress_x_to_y", "examples": [{"x": 80.0}]}',
     200, {"results": [42.0]}),
    ("/v1/models/m:regress", '{"signature_name": "regress_x_to_y", "context": {"x": 1.0}, '
                             '"examples": [{}, {"x": 4.0}]}', 200, {"results": [2.5, 4.0]}),
    ("/v1/models/m:predict", "instances = [1, 2]", 400,
     {"error": "JSON Parse error: Invalid value. at offset: 0"}),
    ("/v1/models/m:predict", '{"instances": [[1.0, 2.0]]}', 400,
     {"error": "Cannot feed value of shape (1, 2) for Tensor x:0, which has shape (?,)"}),
    ("/v1/models/m:predict", '{"instances": [{"y": 1.0}]}', 400,
     {"error": "Failed to process element: 0 key: y of 'instances' list. Error: "
               "INVALID_ARGUMENT: JSON object: does not have named input: y"}),
    ("/v1/models/m:predict", '{"signature_name": "nope", "instances": [1.0]}', 400,
     {"error": 'Serving signature name: "nope" not found in signature def'}),
    ("/v1/models/m:classify", '{"signature_name": "serving_default", "examples": [{}]}', 400,
     "No classification inputs found in SignatureDef: "),
    ("/v1/models/m:regress", '{"examples": [{"x": 1}]}', 400,
     "No regression inputs found in SignatureDef: "),
    ("/v1/models/m:classify", '{"signature_name": "nope", "examples": [{}]}', 400,
     "No signature was found with the name: nope"),
    ("/v1/models/m:explain", "{}", 400,
     {"error": "Malformed request: POST /v1/models/m:explain"}),
    ("/v1/models/m/labels/stable", None, 400,
     {"error": "Unrecognized servable version label: stable"}),
    ("/v1/models", None, 400, {"error": "Missing model name in request."}),
    ("/v1/models/nope:predict", '{"instances": [1.0]}', 404,
     {"error": "Servable not found for request: Latest(nope)"}),
    ("/v1/models/m/versions/7:predict", '{"instances": [1.0]}', 404,
     {"error": "Servable not found for request: Specific(m, 7)"}),
    ("/v1/models/nope", None, 404, {"error": "Could not find any versions of model nope"}),
    ("/v1/models/m/versions/7", None, 404, {"error": "Could not find version 7 of model m"}),
    ("/v1/models/m/versions/7/metadata", None, 404,
     {"error": "Servable not found for request: Specific(m, 7)"}),
]


@pytest.mark.parametrize("path, body, status, answer", CASES, ids=[
    f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_request(server, path, body, status, answer):
    got_status, got = request(server.port, path, body)
    assert got_status == status, got
    if isinstance(answer, str):
        assert list(got) == ["error"] and got["error"].startswith(answer)
    else:
        assert got == answer


def test_metadata(server):
    status, got = request(server.port, "/v1/models/m/metadata")
    assert status == 200
    assert got["model_spec"] == {"name": "m", "signature_name": "", "version": "1"}
    sigs = got["metadata"]["signature_def"]["signature_def"]
    assert sorted(sigs) == ["classify_x_to_y", "multi", "regress_x_to_y", "serving_default",
                            "strings", "stuck"]
    assert sigs["serving_default"] == {
        "inputs": {"x": {"dtype": "DT_FLOAT", "name": "x:0", "tensor_shape": {
            "dim": [{"size": "-1", "name": ""}], "unknown_rank": False}}},
        "outputs": {"y": {"dtype": "DT_FLOAT", "name": "y:0", "tensor_shape": {
            "dim": [{"size": "-1", "name": ""}], "unknown_rank": False}}},
        "method_name": "tensorflow/serving/predict", "defaults": {}}


def test_raw_bodies_are_tf_servings_text(server):
    """The bytes TF Serving writes, layout included."""
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}/v1/models/m:predict",
                                 data=b'{"instances": [1.0, 2.0, 5.0]}')
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.read() == b'{\n    "predictions": [2.5, 3.0, 4.5\n    ]\n}'
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/v1/models/m/metadata",
                                timeout=30) as resp:
        assert resp.read().startswith(b'{\n"model_spec":{\n "name": "m",\n "signature_name": '
                                      b'"",\n "version": "1"\n}\n,\n"metadata": {"signature_def"'
                                      b': {\n "signature_def": {\n')


def test_requests_at_once(server):
    results = []

    def ask(i):
        results.append(request(server.port, "/v1/models/m:predict",
                               json.dumps({"instances": [float(i)] * 50})))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(r[1]["predictions"][0] for r in results) == [0.5 * i + 2 for i in range(8)]


def _wait_for(check, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_new_version_is_picked_up(tmp_path):
    base = tmp_path / "m"
    export_model(str(base / "1"))
    with ModelServer("m", str(base), "127.0.0.1", 0, poll_wait_seconds=0.1) as s:
        assert request(s.port, "/v1/models/m:predict", '{"instances": [2.0]}')[1] == \
            {"predictions": [3.0]}
        # A new version appears whole (written aside, then renamed in), as exporters do.
        export_model(str(tmp_path / "tmp2"), a=10.0, b=1.0)
        os.rename(tmp_path / "tmp2", base / "2")
        assert _wait_for(lambda: request(s.port, "/v1/models/m")[1] == {
            "model_version_status": [_status(2), _status(1, "END")]})
        assert request(s.port, "/v1/models/m:predict", '{"instances": [2.0]}')[1] == \
            {"predictions": [21.0]}
        assert request(s.port, "/v1/models/m/versions/1:predict", '{"instances": [2.0]}')[0] \
            == 404
        assert request(s.port, "/v1/models/m/metadata")[1]["model_spec"]["version"] == "2"
        # A broken version folder: reported END with its error, version 2 still served.
        (base / "3").mkdir()
        assert _wait_for(lambda: request(s.port, "/v1/models/m/versions/3")[0] == 200)
        state = request(s.port, "/v1/models/m/versions/3")[1]["model_version_status"][0]
        assert (state["state"], state["status"]["error_code"]) == ("END", "UNKNOWN")
        assert "SavedModel file does not exist" in state["status"]["error_message"]
        assert request(s.port, "/v1/models/m:predict", '{"instances": [2.0]}')[1] == \
            {"predictions": [21.0]}


def test_empty_base_path_serves_nothing_until_a_version_comes(tmp_path):
    base = tmp_path / "m"
    with ModelServer("m", str(base), "127.0.0.1", 0, poll_wait_seconds=0.1) as s:
        assert request(s.port, "/v1/models/m")[0] == 404
        export_model(str(tmp_path / "v"))
        base.mkdir()
        shutil.move(str(tmp_path / "v"), str(base / "5"))
        # Status answers 200 from the start of the load (LOADING); predict once AVAILABLE.
        assert _wait_for(lambda: request(s.port, "/v1/models/m")[1] == {
            "model_version_status": [_status(5)]})
        assert request(s.port, "/v1/models/m:predict", '{"inputs": [0.0]}')[1] == \
            {"outputs": [2.0]}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_command_stops_cleanly(tmp_path, sig):
    export_model(str(tmp_path / "m" / "1"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainflow._src.cli", "serve", "--model_name=m",
         f"--model_base_path={tmp_path / 'm'}", "--rest_api_port=0", "--host=127.0.0.1",
         "--port=8500", "--file_system_poll_wait_seconds=0.5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=SRC))
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"Exporting HTTP/REST API at:127\.0\.0\.1:(\d+) \.\.\.\n", line)
        assert m, line + proc.stderr.read()
        assert request(int(m.group(1)), "/v1/models/m:predict", '{"instances": [4.0]}') == \
            (200, {"predictions": [4.0]})
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


def test_request_is_parsed_before_the_model_is_looked_up(server):
    """As TF Serving: bad JSON for an unknown model is a 400, not a 404."""
    assert request(server.port, "/v1/models/nope:predict", "[1")[0] == 400
    assert request(server.port, "/v1/models/nope:classify", "{}")[0] == 400


def test_chunked_body_and_unknown_paths(server):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST", "/v1/models/m:predict", body=iter([b'{"instances": ', b"[1.0]}"]),
                     headers={"Transfer-Encoding": "chunked"}, encode_chunked=True)
        resp = conn.getresponse()
        assert (resp.status, json.loads(resp.read())) == (200, {"predictions": [2.5]})
        conn.request("GET", "/healthz")  # the same connection, kept alive
        resp = conn.getresponse()
        assert (resp.status, json.loads(resp.read())) == (404, {"error": "Not found: /healthz"})
    finally:
        conn.close()
    assert request(server.port, "/v1/models/m", None, method="PUT")[0] == 400


def test_unexpected_failure_is_a_500_body(server, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(server.manager, "status", broken)
    assert request(server.port, "/v1/models/m") == (500, {"error": "RuntimeError: disk on fire"})


def test_a_run_past_the_timeout_is_a_504(server):
    start = time.monotonic()
    status, got = request(server.port, "/v1/models/m:predict",
                          '{"signature_name": "stuck", "inputs": [1.0]}')
    assert (status, list(got)) == (504, ["error"])
    assert time.monotonic() - start < 20
    assert request(server.port, "/v1/models/m:predict", '{"instances": [0.0]}')[1] == \
        {"predictions": [2.0]}


def test_requests_past_num_threads_wait_for_a_slot(tmp_path):
    export_model(str(tmp_path / "m" / "1"))
    with ModelServer("m", str(tmp_path / "m"), "127.0.0.1", 0, poll_wait_seconds=0,
                     timeout_in_ms=1500, num_threads=1) as s:
        stuck = threading.Thread(target=request, args=(
            s.port, "/v1/models/m:predict", '{"signature_name": "stuck", "inputs": [1.0]}'))
        start = time.monotonic()
        stuck.start()
        time.sleep(0.3)
        assert request(s.port, "/v1/models/m:predict", '{"instances": [0.0]}') == \
            (200, {"predictions": [2.0]})
        assert time.monotonic() - start > 1.2  # it waited for the stuck run to time out
        stuck.join(30)


def test_serve_on_a_port_in_use_is_exit_1(server, tmp_path, capsys):
    from trainflow._src import cli
    export_model(str(tmp_path / "m" / "1"))
    before = set(threading.enumerate())
    assert cli.main(["serve", f"--model_base_path={tmp_path / 'm'}", "--host=127.0.0.1",
                     f"--rest_api_port={server.port}"]) == 1
    assert "Address already in use" in capsys.readouterr().err
    assert set(threading.enumerate()) <= before  # nothing left running


def _raw(port, data, timeout=30):
    """The raw answer to `data` sent on a new connection, read until the server closes."""
    import socket
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            part = s.recv(65536)
            if not part:
                return b"".join(chunks)
            chunks.append(part)


def _status_and_error(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    base = tmp_path_factory.mktemp("limited") / "m"
    export_model(str(base / "1"))
    with ModelServer("m", str(base), "127.0.0.1", 0, poll_wait_seconds=0, max_body_bytes=100,
                     read_timeout_seconds=0.5, max_connections=2) as s:
        yield s


LIMIT_CASES = [
    # (what the client sends, the HTTP status, the error message)
    (b"POST /v1/models/m:predict HTTP/1.1\r\nContent-Length: 101\r\n\r\n" + b"1" * 101, 413,
     "Request body of 101 bytes is over the limit of 100 bytes"),
    (b"POST /v1/models/m:predict HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"65\r\n" + b"1" * 101 + b"\r\n0\r\n\r\n", 413,
     "Request body of over 101 bytes is over the limit of 100 bytes"),
    (b"POST /v1/models/m:predict HTTP/1.1\r\nContent-Length: 20\r\n\r\n{\"inst", 408,
     "Timed out reading the request body after 0.5 seconds"),
    (b"POST /v1/models/m:predict HTTP/1.1\r\nContent-Length: x1\r\n\r\n", 400,
     "Invalid Content-Length header: 'x1'"),
    (b"POST /v1/models/m:predict HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400,
     "Invalid chunk size line: b'zz\\r\\n'"),
    (b"PATCH /v1/models/m HTTP/1.1\r\n\r\n", 400, "Malformed request: PATCH /v1/models/m"),
    (b"GET /v1/models/m HTTP/1.1\r\n" + b"X-A: b\r\n" * 101 + b"\r\n", 431,
     "Too many headers"),
]


@pytest.mark.parametrize("data, status, error", LIMIT_CASES)
def test_limits_are_4xx_with_an_error(limited, data, status, error):
    assert _status_and_error(_raw(limited.port, data)) == (status, error)
    assert request(limited.port, "/v1/models/m:predict", '{"instances": [0.0]}') == \
        (200, {"predictions": [2.0]})


def test_stalled_headers_are_closed_after_the_read_timeout(limited):
    start = time.monotonic()
    assert _raw(limited.port, b"POST /v1/models/m:predict HTTP/1.1\r\nContent-Le") == b""
    assert time.monotonic() - start < 10


def test_connections_past_the_limit_are_503(limited):
    import socket
    held = [socket.create_connection(("127.0.0.1", limited.port), timeout=30)
            for _ in range(2)]
    try:
        # Both held connections accepted (each holds a slot) before the third comes.
        assert _wait_for(lambda: limited._httpd.connections._value == 0)  # noqa: SLF001
        status, error = _status_and_error(_raw(limited.port, b"GET /v1/models/m HTTP/1.1\r\n\r\n"))
        assert (status, error) == (503, "Too many connections: 2 are open")
    finally:
        for s in held:
            s.close()
    assert _wait_for(lambda: request(limited.port, "/v1/models/m")[0] == 200)
