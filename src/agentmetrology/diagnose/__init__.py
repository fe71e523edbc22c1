"""Paired-mutation diagnostics (docs/diagnose.md): agent, environment or scorer?"""
