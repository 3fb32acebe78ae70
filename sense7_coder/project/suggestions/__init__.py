"""A model's suggestions to coders: running a model over a project's units, its plan and
cost, and its code prompts (:mod:`.asking`); the suggestions as stored, read under blinding
and written as runs (:mod:`.stored`); and what a coder is shown of them where they code
(:mod:`.view`). The LLM client is :mod:`...domain.llm`, the SQL
:mod:`...store.suggestions`."""
