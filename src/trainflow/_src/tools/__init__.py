"""Command-line tools behind `trainflow SUBCOMMAND`."""
