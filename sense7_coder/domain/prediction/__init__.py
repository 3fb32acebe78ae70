"""Predictors of empathy levels and codes, and their evaluation (pure Python; pandas,
scikit-learn and scipy imported inside the functions): the baselines learnt from a
project's own ratings (:mod:`.baseline`, :mod:`.code_baseline`), predictions made elsewhere
(:mod:`.csv_file`), the SENSE-7 paper's evaluation protocol (:mod:`.evaluation`), the
same below its grain with intervals (:mod:`.grain`) and its figure (:mod:`.figure`).

Nothing is imported here: a light command that reads :mod:`.evaluation` loads no more."""
