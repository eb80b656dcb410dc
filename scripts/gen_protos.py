"""Regenerates the Python modules of src/trainflow/_src/protos/*.proto.

Runs grpc_tools.protoc (a dev-only dependency) with src/ as the import root,
so `import "trainflow/_src/protos/x.proto"` resolves, and writes x_pb2.py and
x_pb2.pyi beside each source. The modules then register their files in trainflow's own
descriptor pool (`_pool.py`: TensorFlow's package names, beside TensorFlow's modules)
instead of protobuf's default pool. Usage: python scripts/gen_protos.py
"""
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")


def main():
    """Runs protoc over every .proto file; returns its exit status."""
    protos = sorted(glob.glob(os.path.join(SRC, "trainflow", "_src", "protos", "*.proto")))
    if not protos:
        print("no .proto files under src/trainflow/_src/protos", file=sys.stderr)
        return 1
    rel = [os.path.relpath(p, SRC) for p in protos]
    cmd = [sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.",
           "--pyi_out=."] + rel
    # protoc needs the well-known types (any.proto, wrappers.proto) that ship
    # inside grpc_tools.
    import grpc_tools
    cmd.insert(3, "-I" + os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))
    result = subprocess.run(cmd, cwd=SRC)
    if result.returncode != 0:
        return result.returncode
    for proto in protos:
        _use_private_pool(proto[:-len(".proto")] + "_pb2.py")
    print(f"generated {len(rel)} modules in src/trainflow/_src/protos")
    return 0


_DEFAULT_POOL = "_descriptor_pool.Default().AddSerializedFile("
_POOL_IMPORT = "from trainflow._src.protos._pool import POOL as _POOL\n"


def _use_private_pool(module_path):
    with open(module_path) as f:
        text = f.read()
    if _DEFAULT_POOL not in text:
        raise SystemExit(f"{module_path}: no default-pool registration to rewrite")
    text = text.replace(_DEFAULT_POOL, "_POOL.AddSerializedFile(")
    marker = "# @@protoc_insertion_point(imports)\n"
    text = text.replace(marker, marker + "\n" + _POOL_IMPORT, 1)
    with open(module_path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
