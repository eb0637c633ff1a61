"""Runs of the model: batch replay of scripts with verdicts, and the live (interactive) session."""
