"""The run layer: the facts of one run, beneath extensions, sinks, github/ and the harness.

It holds the run's config (``config``, resolved by the ``config`` package), its prompt and
imports (``prompt_files``, read through ``input_files``), its state in owned parts
(``record``, ``ledger``, ``journal`` composed in ``state``), the budget table and its arithmetic
(``budget_kinds``, ``effective_tokens``, ``time_budget``), the one table of the files a run
writes in its output dir (``record_table``), how the run ended (``result``), the
redactor every record passes through (``redact``), and the stop scheme (``cancel``).
"""
