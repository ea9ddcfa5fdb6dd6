"""Leaderboard: every result, the paper's numbers and our baselines side by side."""
