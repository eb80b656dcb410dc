"""`tf.app.run`: absl's `app.run` with TF1's tolerance of flags the program did not define."""
import importlib as _importlib
import sys as _sys


def run(main=None, argv=None):
    """Parses the command line flags and calls `main(argv)`, then exits with its result.

    As TF1's `tf.app.run`: runs `absl.app.run`, but flags the program did not
    define are left in the argv given to `main` instead of being an error.

    Args:
      main: the function to run; defaults to `__main__.main`.
      argv: the command line including the program name; defaults to `sys.argv`.

    Raises:
      SystemExit: always, with `main`'s return value as the exit status.
    """
    # absl loads only when a program runs, so `import trainflow.app` stays cheap.
    from absl import app as absl_app
    flags = _importlib.import_module("trainflow._src.app.flags")
    main = main or _sys.modules["__main__"].main

    def parse_known_flags(args):
        return flags.FLAGS(_sys.argv if args is None else args, known_only=True)

    absl_app.run(main=main, argv=argv, flags_parser=parse_known_flags)
