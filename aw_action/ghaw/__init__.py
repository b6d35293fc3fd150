"""Running inside a compiled gh-aw workflow: its environment, its limits, the records it collects.

Pure modules (no harness imports): ``limits`` reads the ``GH_AW_*`` limits, ``agent_session``
models and writes the canonical ``agent-session.jsonl`` events, ``invocation`` turns gh-aw's
agent-step environment into the harness's inputs. ``command`` is the ``aw-harness gh-aw`` entry
point (the only module here that imports the harness).
"""
