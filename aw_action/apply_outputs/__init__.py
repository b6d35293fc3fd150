"""``aw-harness apply-safe-outputs``: apply the records an agent job left (``safe_outputs/``) with
PyGithub and a write token, in a separate job: every record re-checked against the config, bodies
sanitised, items marked so a re-run never duplicates them (docs/safe-outputs.md)."""
