"""The `trainflow` command: the demo training run and the tools users otherwise need TF for."""
import argparse
import importlib
import os
import sys

_EPILOG = """exit status: 0 success, 1 a file or its data was bad (missing, corrupt, no such
tensor), 2 wrong usage; output cut short by a closed pipe (`| head`) ends quietly
with 141, as a process stopped by SIGPIPE."""

# subcommand -> (module, help); each module defines add_arguments(parser) and run(args) -> int.
_COMMANDS = {
    "demo": ("trainflow._src.tools.demo", "train a small classifier end to end (the main job)"),
    "inspect": ("trainflow._src.tools.inspect_checkpoint",
                "list or print the tensors of a checkpoint"),
    "events": ("trainflow._src.tools.events",
               "list, export, extract or plot what event files hold"),
    "ops": ("trainflow._src.tools.support",
            "what is supported: TF 2.21's tf.compat.v1 symbols and op types"),
    "cluster": ("trainflow._src.tools.cluster",
                "run a command as every task of a localhost cluster, appending --job_name, "
                "--task_index, --ps_hosts, --worker_hosts and setting TF_CONFIG"),
    "freeze": ("trainflow._src.tools.freeze_graph",
               "freeze a graph's variables into constants (TF's freeze_graph)"),
    "saved-model": ("trainflow._src.tools.saved_model_cli",
                    "show, run or scan a SavedModel, as TF's saved_model_cli"),
    "serve": ("trainflow._src.serving.server",
              "TF Serving's REST API (predict, classify, regress) over SavedModel versions"),
}


def _version():
    from trainflow._version import __version__  # lazy: only `--version` reads it
    return f"trainflow {__version__} (TensorFlow 1.15 API)"


def _quiet_broken_pipe():
    """Points stdout at /dev/null so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass


def main(argv=None):
    """Entry point of the `trainflow` console script. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="trainflow", description=__doc__, epilog=_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, (module_name, help_text) in _COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name != module_name:
                raise
            sub.add_parser(name, help=help_text)
            continue
        # `trainflow CMD --help` starts with the module's docstring: what CMD does.
        sp = sub.add_parser(name, help=help_text, description=module.__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sp)
        modules[name] = module
    args = parser.parse_args(argv)
    if args.command not in modules:
        parser.error(f"'{args.command}' is not available in this build")
    try:
        status = modules[args.command].run(args) or 0
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 141
    except KeyboardInterrupt:
        return 130
    except OSError as e:  # a file the subcommand did not expect to fail
        print(f"trainflow {args.command}: {e}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
