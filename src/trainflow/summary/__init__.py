"""The `tf.summary` namespace (TF1): FileWriter, FileWriterCache; summary ops come later."""
# --- events: FileWriter, FileWriterCache (issue 3) ---
