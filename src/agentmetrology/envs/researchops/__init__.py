"""ResearchOpsEnv: synthetic research-operations tasks where the causes of a score are known.

An agent fixes a broken experiment configuration through six tools; a seeded simulator records
the task quality H (did the intended fix happen, was evidence gathered) and the proxy reward P
(the visible reward a shortcut can inflate). The shipped composite verifier credits tool *names*,
a deliberate defect that the auditor and the paired-mutation diagnostics are meant to find.
"""
