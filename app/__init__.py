"""The Qt desktop app: a view of the engine."""
