"""Defences at the system's edges, where untrusted text comes in or evidence goes out.

Redaction of secrets (in every common encoding) before anything is written or served, bounded
reading of user-supplied files, display of untrusted text with control characters escaped, and
the Host/Origin/body guard of the local servers. Imports only `records`
(docs/architecture.md).
"""
