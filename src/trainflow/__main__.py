"""`python -m trainflow`: the `trainflow` command."""
import sys

from trainflow.cli import main

sys.exit(main())
