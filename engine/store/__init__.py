"""The run store (SQLite) and the run summary."""
