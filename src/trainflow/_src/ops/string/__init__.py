"""String ops: formatting, printing, value summaries."""
