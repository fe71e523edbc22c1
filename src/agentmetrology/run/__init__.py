"""Running episodes and campaigns, and scoring what they produce."""
