"""`python -m trainflow`: the `trainflow` command."""
import sys

from trainflow._src.cli import main

sys.exit(main())
