"""`trainflow serve`: TensorFlow Serving's REST API for the SavedModel versions under
--model_base_path (numbered folders; the newest is served, a newer one is picked up by
polling the folder).

  trainflow serve --model_name=digits --model_base_path=/models/digits --rest_api_port=8501
  curl localhost:8501/v1/models/digits
  curl -d '{"instances": [[...64 floats...]]}' localhost:8501/v1/models/digits:predict

The flags are TF Serving's (tensorflow_model_server); --host says where to listen
(localhost unless told otherwise). Ctrl-C or SIGTERM stops it cleanly.
"""
import http.server
import os
import signal
import sys
import threading

from trainflow._src import tf_logging as logging
from trainflow._src.serving.json_writer import encode, error_json
from trainflow._src.serving.manager import ModelManager
from trainflow._src.serving.rest_api import RestApi
from trainflow._src.serving.servable import Servable

# Bounds on every wait: an idle keep-alive connection, the serve loop's shutdown check,
# the joins at the end.
_SOCKET_TIMEOUT_SECONDS = 60.0
_SERVE_POLL_SECONDS = 0.5
_JOIN_SECONDS = 10.0
_MAX_BODY_BYTES = 1 << 30
_SLOT_WAIT_SECONDS = 60.0


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _SOCKET_TIMEOUT_SECONDS
    server_version = "trainflow-serving"

    def _read_chunked(self):
        parts, total = [], 0
        while True:
            size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(1024).strip():  # the trailer, up to a blank line
                    pass
                return b"".join(parts)
            total += size
            if size < 0 or total > _MAX_BODY_BYTES:
                raise ValueError("chunked body too large")
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def _read_body(self):
        """The request body (Content-Length or chunked); None if it cannot be read."""
        try:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self._read_chunked()
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return None
        if n < 0 or n > _MAX_BODY_BYTES:
            return None
        return self.rfile.read(n) if n else b""

    def _answer(self, method):
        path = self.path.split("?", 1)[0]
        body = self._read_body()
        if body is None:
            self.close_connection = True
            self.send_error(400, "Bad request body")
            return
        if self.server.slots.acquire(timeout=_SLOT_WAIT_SECONDS):
            try:
                status, text = self.server.api.handle(method, path, body)
            finally:
                self.server.slots.release()
        else:
            status, text = 503, error_json("All request threads stayed busy for "
                                           f"{_SLOT_WAIT_SECONDS:g} seconds")
        data = encode(text)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - BaseHTTPRequestHandler's names
        self._answer("GET")

    def do_POST(self):  # noqa: N802
        self._answer("POST")

    def do_PUT(self):  # noqa: N802
        self._answer("PUT")

    def do_DELETE(self):  # noqa: N802
        self._answer("DELETE")

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        logging.vlog(1, "%s - %s", self.address_string(), format % args)


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, api, num_threads):
        self.api = api
        # At most num_threads requests are worked on at once (TF Serving's
        # --rest_api_num_threads); the others wait for a slot, bounded.
        self.slots = threading.BoundedSemaphore(num_threads)
        super().__init__(address, _Handler)


class ModelServer:
    """A model's versions (ModelManager) behind the REST API on host:port (port 0 picks a
    free one; `port` says which once started)."""

    def __init__(self, model_name, model_base_path, host="localhost", port=8501,
                 tags=("serve",), poll_wait_seconds=1.0, timeout_in_ms=30000,
                 num_threads=None):
        def load(name, version, path, tags):
            return Servable(name, version, path, tags, timeout_in_ms)

        self.manager = ModelManager(model_name, model_base_path, tags, poll_wait_seconds, load)
        self._address = (host, port)
        self._num_threads = num_threads or 4 * (os.cpu_count() or 1)
        self._httpd = None
        self._thread = None

    @property
    def host(self):
        return self._address[0]

    @property
    def port(self):
        return self._httpd.server_address[1]

    def start(self):
        """Loads the newest version, starts polling and answering. Returns self."""
        self.manager.start()
        try:
            self._httpd = _HTTPServer(self._address, RestApi(self.manager), self._num_threads)
        except BaseException:
            self.manager.stop()
            raise
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": _SERVE_POLL_SECONDS},
                                        name="serving-http", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stops answering, then unloads every version."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(_JOIN_SECONDS)
            self._httpd = None
        self.manager.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def add_arguments(parser):
    """Declares TF Serving's flags (the ones that apply here) on `parser`."""
    parser.add_argument("--model_name", default="default",
                        help="the name of the model in the URLs (default: default)")
    parser.add_argument("--model_base_path", required=True,
                        help="folder of numbered version folders, each a SavedModel")
    parser.add_argument("--rest_api_port", type=int, default=8501,
                        help="port of the HTTP/REST API (0 picks a free port; default 8501)")
    parser.add_argument("--port", type=int, default=8500,
                        help="TF Serving's gRPC port: accepted, gRPC is not served")
    parser.add_argument("--host", default="localhost",
                        help="address to listen on (default: localhost; 0.0.0.0 for all)")
    parser.add_argument("--file_system_poll_wait_seconds", type=float, default=1.0,
                        help="seconds between polls for new versions (0: poll once)")
    parser.add_argument("--saved_model_tags", default="serve",
                        help="comma-separated tags of the MetaGraphDef to load")
    parser.add_argument("--rest_api_timeout_in_ms", type=int, default=30000,
                        help="a request running longer fails with 504 (0: no limit)")
    parser.add_argument("--rest_api_num_threads", type=int, default=0,
                        help="requests worked on at once (default: 4 per CPU)")


def run(args):
    """Serves until SIGINT or SIGTERM; returns 0."""
    tags = [t for t in args.saved_model_tags.split(",") if t]
    server = ModelServer(args.model_name, args.model_base_path, args.host, args.rest_api_port,
                         tags, args.file_system_poll_wait_seconds, args.rest_api_timeout_in_ms,
                         args.rest_api_num_threads)
    stop = threading.Event()
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        server.start()
        print(f"Exporting HTTP/REST API at:{server.host}:{server.port} ...", flush=True)
        while not stop.wait(1.0):
            pass
        print("Shutting down.", file=sys.stderr, flush=True)
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
