"""Scaffold levels: who owns each execution-critical decision, and the episode runners."""
