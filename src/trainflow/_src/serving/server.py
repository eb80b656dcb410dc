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
import socket
import sys
import threading
import time

from trainflow._src import tf_logging as logging
from trainflow._src.serving.json_writer import encode, error_json
from trainflow._src.serving.manager import ModelManager
from trainflow._src.serving.rest_api import RestApi
from trainflow._src.serving.servable import Servable

# Bounds on every wait: the serve loop's shutdown check, the joins at the end, a request
# waiting for a free slot, the drain of a refused body.
_SERVE_POLL_SECONDS = 0.5
_JOIN_SECONDS = 10.0
_SLOT_WAIT_SECONDS = 60.0
_DRAIN_SECONDS = 1.0
# Defaults of the limits a client cannot push past (flags below).
DEFAULT_MAX_BODY_BYTES = 64 << 20
DEFAULT_READ_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_CONNECTIONS = 128


class _BodyError(Exception):
    """A request body that cannot be taken: the HTTP status and the error message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "trainflow-serving"

    def setup(self):
        # Every read of a request (its line, headers, body, an idle keep-alive) waits at
        # most read_timeout seconds; a stalled client cannot hold its thread for longer.
        self.timeout = self.server.read_timeout
        super().setup()

    def _too_large(self, size):
        return _BodyError(413, f"Request body of {size} bytes is over the limit of "
                               f"{self.server.max_body_bytes} bytes")

    def _read_exactly(self, n, deadline):
        """n bytes of the body, read by the deadline (a client that trickles bytes is cut
        off as one that stalls)."""
        parts, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.connection.settimeout(min(left, self.server.read_timeout))
            part = self.rfile.read1(min(n - got, 1 << 20))
            if not part:
                raise _BodyError(400, f"Request body ended after {got} of {n} bytes")
            parts.append(part)
            got += len(part)
        return b"".join(parts)

    def _read_chunked(self, deadline):
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise _BodyError(400, f"Invalid chunk size line: {line[:40]!r}") from None
            if size < 0:
                raise _BodyError(400, f"Invalid chunk size line: {line[:40]!r}")
            if size == 0:
                while self.rfile.readline(1024).strip():  # the trailer, up to a blank line
                    pass
                return b"".join(parts)
            total += size
            if total > self.server.max_body_bytes:
                raise self._too_large(f"over {total}")
            parts.append(self._read_exactly(size, deadline))
            self.rfile.readline(1024)

    def _read_body(self):
        """The request body (Content-Length or chunked), read within read_timeout."""
        deadline = time.monotonic() + self.server.read_timeout
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(deadline)
        text = self.headers.get("Content-Length") or "0"
        try:
            n = int(text)
        except ValueError:
            n = -1
        if n < 0:
            raise _BodyError(400, f"Invalid Content-Length header: {text[:40]!r}")
        if n > self.server.max_body_bytes:
            raise self._too_large(n)
        return self._read_exactly(n, deadline) if n else b""

    def _send(self, status, text, head=False):
        data = encode(text)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _refuse_body(self, error):
        """Answers a body it will not read, then drains what the client still sends for a
        moment, so that the answer is not lost to a connection reset."""
        self.close_connection = True
        self._send(error.status, error_json(error.message))
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + _DRAIN_SECONDS
            while time.monotonic() < deadline:
                self.connection.settimeout(max(deadline - time.monotonic(), 0.01))
                if not self.connection.recv(1 << 16):
                    break
        except OSError:
            pass

    def _answer(self, method):
        path = self.path.split("?", 1)[0]
        try:
            body = self._read_body()
        except _BodyError as e:
            self._refuse_body(e)
            return
        except TimeoutError:
            self._refuse_body(_BodyError(408, "Timed out reading the request body after "
                                              f"{self.server.read_timeout:g} seconds"))
            return
        finally:
            self.connection.settimeout(self.server.read_timeout)
        if self.server.slots.acquire(timeout=_SLOT_WAIT_SECONDS):
            try:
                status, text = self.server.api.handle(method, path, body)
            finally:
                self.server.slots.release()
        else:
            status, text = 503, error_json("All request threads stayed busy for "
                                           f"{_SLOT_WAIT_SECONDS:g} seconds")
        self._send(status, text, head=method == "HEAD")

    def do_GET(self):  # noqa: N802 - BaseHTTPRequestHandler's names
        self._answer("GET")

    def do_POST(self):  # noqa: N802
        self._answer("POST")

    def do_PUT(self):  # noqa: N802
        self._answer("PUT")

    def do_DELETE(self):  # noqa: N802
        self._answer("DELETE")

    def send_error(self, code, message=None, explain=None):
        """The base class's errors (a bad request line, headers too long ...) as TF
        Serving's JSON error body instead of an HTML page; an unknown method is a 400,
        as PUT and DELETE are."""
        self.close_connection = True
        if code == 501:
            code, message = 400, f"Malformed request: {self.command} {self.path}"
        try:
            self._send(code, error_json(message or self.responses.get(code, ("Error",))[0]))
        except OSError:
            pass

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        logging.vlog(1, "%s - %s", self.address_string(), format % args)


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address, api, num_threads, max_body_bytes, read_timeout,
                 max_connections):
        self.api = api
        # At most num_threads requests are worked on at once (TF Serving's
        # --rest_api_num_threads); the others wait for a slot, bounded.
        self.slots = threading.BoundedSemaphore(num_threads)
        # At most max_connections connections (one thread each) are open at once; one
        # past that is answered 503 and closed by the accepting thread.
        self.connections = threading.BoundedSemaphore(max_connections)
        self.max_connections = max_connections
        self.max_body_bytes = max_body_bytes
        self.read_timeout = read_timeout
        super().__init__(address, _Handler)

    def process_request(self, request, client_address):
        if self.connections.acquire(blocking=False):
            try:
                super().process_request(request, client_address)
            except BaseException:
                self.connections.release()
                raise
            return
        data = encode(error_json(f"Too many connections: {self.max_connections} are open"))
        try:
            request.settimeout(1.0)
            request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                            b"application/json\r\nConnection: close\r\nContent-Length: "
                            + str(len(data)).encode() + b"\r\n\r\n" + data)
        except OSError:
            pass
        self.shutdown_request(request)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()


class ModelServer:
    """A model's versions (ModelManager) behind the REST API on host:port (port 0 picks a
    free one; `port` says which once started)."""

    def __init__(self, model_name, model_base_path, host="localhost", port=8501,
                 tags=("serve",), poll_wait_seconds=1.0, timeout_in_ms=30000,
                 num_threads=None, max_body_bytes=DEFAULT_MAX_BODY_BYTES,
                 read_timeout_seconds=DEFAULT_READ_TIMEOUT_SECONDS,
                 max_connections=DEFAULT_MAX_CONNECTIONS):
        def load(name, version, path, tags):
            return Servable(name, version, path, tags, timeout_in_ms)

        self.manager = ModelManager(model_name, model_base_path, tags, poll_wait_seconds, load)
        self._address = (host, port)
        self._num_threads = num_threads or 4 * (os.cpu_count() or 1)
        self._limits = (max_body_bytes, read_timeout_seconds, max_connections)
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
            self._httpd = _HTTPServer(self._address, RestApi(self.manager), self._num_threads,
                                      *self._limits)
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
    parser.add_argument("--rest_api_max_body_bytes", type=int, default=DEFAULT_MAX_BODY_BYTES,
                        help="a larger request body is refused with 413 (default: 64 MiB)")
    parser.add_argument("--rest_api_read_timeout_seconds", type=float,
                        default=DEFAULT_READ_TIMEOUT_SECONDS,
                        help="a client that sends nothing for this long (or takes longer "
                             "over one request body) is cut off, 408 (default: 10)")
    parser.add_argument("--rest_api_max_connections", type=int,
                        default=DEFAULT_MAX_CONNECTIONS,
                        help="open connections (one thread each) at most; one more is "
                             "answered 503 (default: 128)")


def run(args):
    """Serves until SIGINT or SIGTERM; returns 0."""
    tags = [t for t in args.saved_model_tags.split(",") if t]
    server = ModelServer(args.model_name, args.model_base_path, args.host, args.rest_api_port,
                         tags, args.file_system_poll_wait_seconds, args.rest_api_timeout_in_ms,
                         args.rest_api_num_threads, args.rest_api_max_body_bytes,
                         args.rest_api_read_timeout_seconds, args.rest_api_max_connections)
    stop = threading.Event()
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        server.start()
        print(f"Exporting HTTP/REST API at:{server.host}:{server.port} ...", flush=True)
        print(f"trainflow serve: listening on {server.host}:{server.port}"
              + (" (this machine only; --host=0.0.0.0 listens on every interface)"
                 if server.host in ("localhost", "127.0.0.1", "::1") else ""),
              file=sys.stderr, flush=True)
        while not stop.wait(1.0):
            pass
        print("Shutting down.", file=sys.stderr, flush=True)
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
