"""A baseline empathy-level predictor trained on the project's own ratings.

Features: TF-IDF of the assistant turn's words and word pairs, and a separate TF-IDF of its
context (the two messages before it); model: ridge regression on the turn's target. Every
score it reports is **out of fold**: grouped K-fold cross-validation (5 folds, fewer when
there are fewer groups) by participant; a conversation without a participant is a group
of its own while the others keep their participant's, so no participant (or such a
conversation) is ever in both the training and the test part of a fold. Each run reshuffles which groups share a fold (seed = run number).

A conversation's score is the mean of its assistant turns' predicted scores, which matches
the paper's target (the mean over turns of each turn's mean of the seven dimensions).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import Cancelled, Sense7Error
from ..progress import CancelFn, ProgressFn

N_SPLITS = 5


@dataclass
class Sample:
    key: Hashable  # (conversation_id, position)
    conversation_id: str
    group: str
    text: str
    context: str
    target: float | None  # None: predicted but not trained on


@dataclass
class BaselineResult:
    #: run -> key -> out-of-fold predicted score
    turn_scores: dict[int, dict[Hashable, float]]
    #: run -> conversation_id -> mean of its turns' scores
    conversation_scores: dict[int, dict[str, float]]
    group_by: str
    #: (run, groups trained on, groups tested on) of every fold
    folds: list[tuple[int, frozenset[str], frozenset[str]]] = field(default_factory=list)


def features() -> Any:
    """TF-IDF of the unit's words and word pairs, and a separate one of its context."""
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer

    return ColumnTransformer([
        ("turn", TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True,
                                 max_features=50_000), "text"),
        ("context", TfidfVectorizer(min_df=2, sublinear_tf=True, max_features=20_000),
         "context"),
    ])


def _pipeline() -> Any:
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import Pipeline

    return Pipeline([("features", features()), ("ridge", Ridge(alpha=1.0))])


def _fit(train: Any) -> Any:
    """The pipeline fitted on ``train``; with very little text, rarer words (and then the
    context) are let in rather than failing on an empty vocabulary."""
    X, y = train[["text", "context"]], train["target"]
    attempts: tuple[dict[str, Any], ...] = (
        {},
        {"features__turn__min_df": 1, "features__context__min_df": 1},
        {"features__turn__min_df": 1, "features__context": "drop"},
    )
    for params in attempts:
        model = _pipeline().set_params(**params)
        try:
            return model.fit(X, y)
        except ValueError as e:
            last = e
    raise Sense7Error(f"the baseline could not be trained: {last}")


def cross_validated(
    samples: Sequence[Sample],
    *,
    runs: int = 1,
    group_by: str = "participant",
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> BaselineResult:
    """Out-of-fold scores of every sample, for ``runs`` reshufflings of the folds."""
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import GroupKFold

    frame = pd.DataFrame({
        "text": [s.text for s in samples],
        "context": [s.context for s in samples],
        "group": [s.group for s in samples],
        "target": [np.nan if s.target is None else float(s.target) for s in samples],
    })
    groups = frame["group"].to_numpy()
    trainable = frame["target"].notna().to_numpy()
    n_groups = len(set(groups[trainable]))
    if n_groups < 2:
        raise Sense7Error(
            f"the baseline needs rated turns of at least two groups to cross-validate "
            f"(grouped by {group_by}; found {n_groups})"
        )
    n_splits = min(N_SPLITS, len(set(groups)), n_groups)
    total = runs * n_splits
    done = 0
    result = BaselineResult({}, {}, group_by)
    for run in range(1, runs + 1):
        scores = np.full(len(frame), np.nan)
        splitter = GroupKFold(n_splits=n_splits, shuffle=True, random_state=run)
        for train_idx, test_idx in splitter.split(frame, groups=groups):
            if cancel is not None and cancel():
                raise Cancelled()
            fit_idx = train_idx[trainable[train_idx]]
            train_groups = frozenset(groups[fit_idx])
            test_groups = frozenset(groups[test_idx])
            result.folds.append((run, train_groups, test_groups))
            if len(fit_idx) == 0:
                continue
            model = _fit(frame.iloc[fit_idx])
            scores[test_idx] = model.predict(frame.iloc[test_idx][["text", "context"]])
            done += 1
            if progress is not None:
                progress(done, total)
        turn_scores = {s.key: float(v) for s, v in zip(samples, scores, strict=True)
                       if np.isfinite(v)}
        by_conv: dict[str, list[float]] = {}
        for s in samples:
            if s.key in turn_scores:
                by_conv.setdefault(s.conversation_id, []).append(turn_scores[s.key])
        result.turn_scores[run] = turn_scores
        result.conversation_scores[run] = {c: sum(v) / len(v) for c, v in by_conv.items()}
    return result
