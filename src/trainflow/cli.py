"""The `trainflow` command: the demo training run and the tools users otherwise need TF for."""
import argparse
import importlib
import sys

# subcommand -> (module, help); each module defines add_arguments(parser) and run(args) -> int.
_COMMANDS = {
    "demo": ("trainflow.tools.demo", "train a small classifier end to end (the main job)"),
    "inspect": ("trainflow.tools.inspect_checkpoint", "list or print the tensors of a checkpoint"),
    "events": ("trainflow.tools.events", "print or plot the scalars of an event file"),
    "cluster": ("trainflow.tools.cluster", "run a command as every task of a localhost cluster"),
}


def main(argv=None):
    """Entry point of the `trainflow` console script. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="trainflow", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, (module_name, help_text) in _COMMANDS.items():
        sp = sub.add_parser(name, help=help_text)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name != module_name:
                raise
            continue
        module.add_arguments(sp)
        modules[name] = module
    args = parser.parse_args(argv)
    if args.command not in modules:
        parser.error(f"'{args.command}' is not available in this build")
    return modules[args.command].run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
