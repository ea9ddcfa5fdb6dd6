"""Evaluators: score anyone's samples for each task (one module per task)."""
