"""The baseline for any code: out-of-fold suggested values learnt from coded units.

An ordinal code is learnt as a number (the features and ridge regression of
:mod:`.baseline`) and each prediction is taken to the nearest level; a nominal or
present/absent code (and "not applicable" as one more class where the code allows it) is
learnt as classes (the same features, logistic regression). Cross-validation is grouped
(by participant, or conversation) exactly as in :mod:`.baseline`, so every value
suggested comes from a model that never saw the unit's group. With more than one run
(each a reshuffling of the folds) the value is the runs' mean (ordinal) or most frequent
class, and ``spread`` the standard deviation of the runs' predictions (ordinal) or the
share of runs that disagree with the value (classes); with one run the spread is the
distance to the nearest level (ordinal) or one minus the class's probability.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ..codebook.codes import Code
from ..errors import Cancelled, Sense7Error
from ..progress import CancelFn, ProgressFn
from .baseline import N_SPLITS, Sample, cross_validated, features

#: the class that stands for "not applicable" while a model learns classes
NA_CLASS = "\0na"


@dataclass
class LabelSample:
    key: Hashable
    conversation_id: str
    group: str
    text: str
    context: str
    target: Any  # a level value, NA_CLASS, or None (predicted, not trained on)


@dataclass
class CodeSuggestion:
    value: int | str | None
    spread: float | None


def nearest_level(score: float, scale: Sequence[int]) -> int:
    return min(scale, key=lambda v: (abs(v - score), v))


def ordinal(code: Code, samples: Sequence[Sample], *, runs: int = 1, group_by: str,
            progress: ProgressFn | None = None,
            cancel: CancelFn | None = None) -> dict[Hashable, CodeSuggestion]:
    import statistics

    scale = [int(v) for v in code.values]
    result = cross_validated(samples, runs=runs, group_by=group_by, progress=progress,
                             cancel=cancel)
    out: dict[Hashable, CodeSuggestion] = {}
    for s in samples:
        scores = [result.turn_scores[r][s.key] for r in result.turn_scores
                  if s.key in result.turn_scores[r]]
        if not scores:
            continue
        mean = sum(scores) / len(scores)
        level = nearest_level(mean, scale)
        spread = statistics.pstdev(scores) if len(scores) > 1 else abs(mean - level)
        out[s.key] = CodeSuggestion(level, round(float(spread), 6))
    return out


def classes(samples: Sequence[LabelSample], *, runs: int = 1, group_by: str,
            progress: ProgressFn | None = None,
            cancel: CancelFn | None = None) -> dict[Hashable, CodeSuggestion]:
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import Pipeline

    frame = pd.DataFrame({"text": [s.text for s in samples],
                          "context": [s.context for s in samples]})
    targets = np.array([s.target for s in samples], dtype=object)
    groups = np.array([s.group for s in samples], dtype=object)
    trainable = np.array([t is not None for t in targets])
    n_groups = len(set(groups[trainable]))
    if n_groups < 2:
        raise Sense7Error(f"the baseline needs coded units of at least two groups to "
                          f"cross-validate (grouped by {group_by}; found {n_groups})")
    n_splits = min(N_SPLITS, len(set(groups)), n_groups)
    votes: dict[int, list[tuple[Any, float]]] = {i: [] for i in range(len(samples))}
    done = 0
    for run in range(1, runs + 1):
        splitter = GroupKFold(n_splits=n_splits, shuffle=True, random_state=run)
        for train_idx, test_idx in splitter.split(frame, groups=groups):
            if cancel is not None and cancel():
                raise Cancelled()
            fit_idx = train_idx[trainable[train_idx]]
            done += 1
            if progress is not None:
                progress(done, runs * n_splits)
            if len(fit_idx) == 0:
                continue
            y = [str(t) if not isinstance(t, str) else t for t in targets[fit_idx]]
            labels = {str(t) if not isinstance(t, str) else t: t for t in targets[fit_idx]}
            if len(set(y)) == 1:  # one class only: it is every prediction
                for i in test_idx:
                    votes[int(i)].append((labels[y[0]], 1.0))
                continue
            model = _fit_classes(frame.iloc[fit_idx], y, Pipeline, LogisticRegression)
            proba = model.predict_proba(frame.iloc[test_idx][["text", "context"]])
            names = list(model.classes_)
            for row, i in zip(proba, test_idx, strict=True):
                best = int(np.argmax(row))
                votes[int(i)].append((labels[names[best]], float(row[best])))
    out: dict[Hashable, CodeSuggestion] = {}
    for i, s in enumerate(samples):
        got = votes[i]
        if not got:
            continue
        counts = Counter(v for v, _ in got)
        value, n = counts.most_common(1)[0]
        spread = (1 - n / len(got)) if len(got) > 1 else 1 - got[0][1]
        out[s.key] = CodeSuggestion(None if value == NA_CLASS else value,
                                    round(float(spread), 6))
    return out


def _fit_classes(train: Any, y: list[str], pipeline: Any, logistic: Any) -> Any:
    attempts: tuple[dict[str, Any], ...] = (
        {}, {"features__turn__min_df": 1, "features__context__min_df": 1},
        {"features__turn__min_df": 1, "features__context": "drop"})
    last: Exception | None = None
    for params in attempts:
        model = pipeline([("features", features()),
                          ("classes", logistic(max_iter=1000))]).set_params(**params)
        try:
            return model.fit(train[["text", "context"]], y)
        except ValueError as e:
            last = e
    raise Sense7Error(f"the baseline could not be trained: {last}")
