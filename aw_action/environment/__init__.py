"""The run's environment, read in one place: the bottom layer every other one reads it through.

- ``runner.py``: the runner's facts as one frozen record (``RunnerFacts``), built once per entry
  point beside the resolved config and carried by the run's services; the names of the
  variables the harness itself sets for its children.
- ``tuning.py``: the one table of the harness's own tuning variables (``AW_*``: type, default,
  bounds, whether a bad value is an error or a warning) and its one reader.
- ``event_file.py``: the one bounded reader of the event file (``GITHUB_EVENT_PATH``).
- ``strict_json.py``: the one strict JSON reader (no ``NaN``/``Infinity``, nesting bounded).
- ``tool_env_table.py``: the table of what the agent's tools' environment may hold (the filter
  that applies it stays in ``security/confinement/tool_env.py``).

Nothing else in ``aw_action`` spells a runner variable (``GITHUB_*``, ``RUNNER_*``, ``ACTIONS_*``)
or an ``AW_*`` one (``tests/architecture/test_environment_names.py``), except the exec wrapper and
the spawn server, standard library only, which get their values on their command line, the
runner-side action's launcher (``runner_launch.py``, standard library only, before the harness), and the
credential table (``ai/models.json``).
"""
