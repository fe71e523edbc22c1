"""Seeded environments with exact ground truth, and the tool protocol they expose."""
