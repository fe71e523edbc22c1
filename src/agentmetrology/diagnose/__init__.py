"""Paired-mutation diagnostics (specs/trace.md): agent, environment or scorer?"""
