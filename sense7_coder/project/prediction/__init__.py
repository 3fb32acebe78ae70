"""Predictors in a project: the predictions stored, imported, learnt (the baseline) or
asked of an LLM judge (:mod:`.predictors`), their evaluation against the users' ratings
(:mod:`.evaluation`), and the baseline as a model that suggests codes
(:mod:`.suggest_baseline`).

Nothing is imported here: a light command that reads :mod:`.predictors` loads no more."""
