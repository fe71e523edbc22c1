"""Built-in audit targets."""
