"""Regenerates the Python modules of src/trainflow/_src/protos/*.proto.

Runs grpc_tools.protoc (a dev-only dependency) with src/ as the import root,
so `import "trainflow/_src/protos/x.proto"` resolves, and writes x_pb2.py and
x_pb2.pyi beside each source. Usage: python scripts/gen_protos.py
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
    if result.returncode == 0:
        print(f"generated {len(rel)} modules in src/trainflow/_src/protos")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
