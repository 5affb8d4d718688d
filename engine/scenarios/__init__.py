"""Scenario and session files: reading, checking, recording and the bundled files."""
