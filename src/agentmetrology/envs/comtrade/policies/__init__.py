"""Model-free ComtradeBench agents and the payload conventions they share with the harness."""
