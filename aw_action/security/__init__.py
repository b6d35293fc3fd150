"""Keeping credentials and the run's records out of the agent's reach; keeping strangers' text
inert. See docs/security.md for the threat model and what each module guarantees. Three packages:
``confinement`` (the agent's processes and the harness process), ``records`` (the run's records) and
``untrusted_text`` (strangers' text, inert). Records and untrusted text import nothing else
of security; confinement may use untrusted text's secret shapes (import-linter).

This package sits below the agent layer (the tool protocol names a ``ToolIdentity``) and above
``ai``, whose model catalog names the credential variables; it imports nothing else from
aw_action, so every piece is usable and testable alone.
"""
