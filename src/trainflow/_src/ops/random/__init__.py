"""Random ops of TF1 and their seeds."""
