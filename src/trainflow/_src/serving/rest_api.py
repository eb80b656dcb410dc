"""TF Serving's REST API on a ModelManager: the URLs (tensorflow_serving/model_servers/
http_rest_api_util.cc), the dispatch to status, metadata, predict, classify and regress,
and the JSON each answers with. `handle()` takes a method, a path and a body and gives
back the HTTP status and the body; the server (server.py) only moves bytes."""
import json
import re
import urllib.parse

from google.protobuf import json_format

from trainflow._src import tf_logging as logging
from trainflow._src.protos import types_pb2
from trainflow._src.serving import json_examples, json_tensor
from trainflow._src.serving.json_writer import error_json
from trainflow._src.serving.status import ServingError, invalid_argument

_PREDICTION_PATH = re.compile(
    r"(?i)/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?"
    r":(classify|regress|predict)")
_STATUS_PATH = re.compile(
    r"(?i)/v1/models(?:/([^/:]+))?(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?"
    r"(?:/(metadata))?")
_API_PATH = re.compile(r"(?i)/v1/.*")


def _version(text):
    if text is None:
        return None
    value = int(text)
    if value >= 2 ** 63:
        raise invalid_argument(f"Failed to convert version: {text} to numeric.")
    return value


def _tensor_info_json(info):
    """A TensorInfo as TF Serving's metadata writes it (proto field names, every field)."""
    shape = info.tensor_shape
    out = {"dtype": types_pb2.DataType.Name(info.dtype),
           "tensor_shape": {"dim": [{"size": str(d.size), "name": d.name} for d in shape.dim],
                            "unknown_rank": shape.unknown_rank}}
    encoding = info.WhichOneof("encoding")
    if encoding == "name":
        out["name"] = info.name
    elif encoding is not None:
        out[encoding] = json_format.MessageToDict(
            getattr(info, encoding), preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True)
    return out


def signature_def_map_json(signature_defs):
    """A signature_def map as the SignatureDefMap JSON of TF Serving's metadata."""
    out = {}
    for key in sorted(signature_defs):
        sig = signature_defs[key]
        out[key] = {
            "inputs": {k: _tensor_info_json(sig.inputs[k]) for k in sorted(sig.inputs)},
            "outputs": {k: _tensor_info_json(sig.outputs[k]) for k in sorted(sig.outputs)},
            "method_name": sig.method_name,
            "defaults": {k: json_format.MessageToDict(sig.defaults[k],
                                                      preserving_proto_field_name=True)
                         for k in sorted(sig.defaults)}}
    return {"signature_def": out}


def metadata_json(name, version, signature_defs):
    """GET .../metadata: model_spec and the signature defs, laid out as TF Serving joins
    them (two protobuf JSON documents in a hand-written frame)."""
    spec = json.dumps({"name": name, "signature_name": "", "version": str(version)}, indent=1)
    sigs = json.dumps(signature_def_map_json(signature_defs), indent=1)
    return f'{{\n"model_spec":{spec}\n,\n"metadata": {{"signature_def": {sigs}\n}}\n}}\n'


def status_json(states):
    """GET /v1/models/NAME[/versions/N]: GetModelStatusResponse as protobuf's JSON."""
    doc = {"model_version_status": [
        {"version": str(v), "state": state,
         "status": {"error_code": code, "error_message": message}}
        for v, state, code, message in states]}
    return json.dumps(doc, indent=1) + "\n"


class RestApi:
    """The REST API of one model (a ModelManager)."""

    def __init__(self, manager):
        self.manager = manager

    def handle(self, method, path, body):
        """(HTTP status, JSON text) for a request; `path` without its query string."""
        if not _API_PATH.fullmatch(path):
            return 404, error_json(f"Not found: {path}")
        try:
            return 200, self._dispatch(method, path, body)
        except ServingError as e:
            return e.http_status, error_json(e.message)
        except Exception as e:  # noqa: BLE001 - any failure still answers, as an error body
            logging.error("%s %s failed: %s: %s", method, path, type(e).__name__, e)
            return 500, error_json(f"{type(e).__name__}: {e}")

    def _dispatch(self, method, path, body):
        malformed = invalid_argument(f"Malformed request: {method} {path}")
        if method == "POST":
            m = _PREDICTION_PATH.fullmatch(path)
            if not m:
                raise malformed
            name = urllib.parse.unquote(m.group(1))
            version, label, verb = _version(m.group(2)), m.group(3), m.group(4)
            if verb == "predict":
                return self._predict(name, version, label, body)
            if verb in ("classify", "regress"):
                # As TF Serving: the request is parsed before the model is looked up.
                signature_name, examples = json_examples.parse_examples_request(body)
                call = self._classify if verb == "classify" else self._regress
                return self._with_servable(name, version, label, call,
                                           (signature_name, examples))
            raise malformed
        if method == "GET":
            m = _STATUS_PATH.fullmatch(path)
            if not m:
                raise malformed
            name = urllib.parse.unquote(m.group(1) or "")
            version, label = _version(m.group(2)), m.group(3)
            if not name:
                raise invalid_argument("Missing model name in request.")
            if m.group(4) == "metadata":
                return self._with_servable(name, version, label, self._metadata, None)
            return status_json(self.manager.status(name, version, label))
        raise malformed

    def _with_servable(self, name, version, label, call, request):
        servable = self.manager.acquire(name, version, label)
        try:
            return call(servable, request)
        finally:
            servable.release()

    @staticmethod
    def _metadata(servable, _):
        return metadata_json(servable.name, servable.version,
                             servable.meta_graph_def.signature_def)

    def _predict(self, name, version, label, body):
        """Parses the request (the model is looked up once the JSON parsed, for the
        signature's inputs), runs it, writes the response in the request's format."""
        held = []

        def input_dtypes_of(signature_name):
            held.append(self.manager.acquire(name, version, label))
            return held[0].input_dtypes(signature_name)

        try:
            signature_name, fmt, inputs = json_tensor.parse_predict_request(body,
                                                                            input_dtypes_of)
            return json_tensor.predict_response(held[0].predict(signature_name, inputs), fmt)
        finally:
            for servable in held:
                servable.release()

    @staticmethod
    def _classify(servable, request):
        return json_examples.classification_response(servable.classify(*request))

    @staticmethod
    def _regress(servable, request):
        return json_examples.regression_response(servable.regress(*request))
