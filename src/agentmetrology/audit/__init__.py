"""The auditor: probes a benchmark's scorer and ownership and writes a validity card."""
