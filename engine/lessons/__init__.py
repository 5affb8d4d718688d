"""Lessons: objectives, hints and the debrief."""
