"""Scoring through the scorer protocol: every environment's scorers, one scoring function."""
