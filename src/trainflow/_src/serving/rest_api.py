"""TF Serving's REST API on a ModelManager: the URLs (tensorflow_serving/model_servers/
http_rest_api_util.cc), the dispatch to status, metadata, predict, classify and regress,
and the JSON each answers with. `handle()` takes a method, a path and a body and gives
back the HTTP status and the body; the server (server.py) only moves bytes."""
import json
import re
import urllib.parse

from google.protobuf import json_format

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

    def _dispatch(self, method, path, body):
        malformed = invalid_argument(f"Malformed request: {method} {path}")
        if method == "POST":
            m = _PREDICTION_PATH.fullmatch(path)
            if not m:
                raise malformed
            name = urllib.parse.unquote(m.group(1))
            version, label, verb = _version(m.group(2)), m.group(3), m.group(4)
            calls = {"predict": self._predict, "classify": self._classify,
                     "regress": self._regress}
            if verb not in calls:
                raise malformed
            return self._with_servable(name, version, label, calls[verb], body)
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

    def _with_servable(self, name, version, label, call, body):
        servable = self.manager.acquire(name, version, label)
        try:
            return call(servable, body)
        finally:
            servable.release()

    @staticmethod
    def _metadata(servable, _):
        return metadata_json(servable.name, servable.version,
                             servable.meta_graph_def.signature_def)

    @staticmethod
    def _predict(servable, body):
        signature_name, fmt, inputs = json_tensor.parse_predict_request(
            body, servable.input_dtypes)
        return json_tensor.predict_response(servable.predict(signature_name, inputs), fmt)

    @staticmethod
    def _classify(servable, body):
        signature_name, examples = json_examples.parse_examples_request(body)
        return json_examples.classification_response(servable.classify(signature_name,
                                                                       examples))

    @staticmethod
    def _regress(servable, body):
        signature_name, examples = json_examples.parse_examples_request(body)
        return json_examples.regression_response(servable.regress(signature_name, examples))
