"""The command line's words for a selection and an agreement's settings: the filter
options (``--codes --coders --model --participant --attribute``) read into a
:class:`~sense7_coder.project.selection.Selection`, the agreement options into an
:class:`~sense7_coder.domain.agreement_settings.AgreementSettings`, with the choices,
defaults and limits of :mod:`sense7_coder.domain.agreement_settings` (the window's spin
boxes read the same), and the export's refusal of an option its kind ignores.

Light at the top: every command builds the parser that these options are part of.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..domain import agreement_settings as limits
from ..domain.errors import ProjectError
from .lists import ListAction

if TYPE_CHECKING:
    from ..domain.agreement_settings import AgreementSettings
    from ..project.selection import Selection


def add_filters(p: argparse.ArgumentParser, coders: bool = True) -> None:
    """The options of a selection's codes, coders and conversations."""
    p.add_argument("--codes", action=ListAction, default=[], metavar="K,...",
                   help="only these codes (keys, comma-separated; default: all)")
    if coders:
        p.add_argument("--coders", action=ListAction, default=[], metavar="A,...",
                       help="only these coders (default: all)")
    p.add_argument("--model", action=ListAction, default=[], metavar="M,...",
                   help="only conversations with these assistants")
    p.add_argument("--participant", action=ListAction, default=[], metavar="P,...",
                   help="only conversations of these participants")
    p.add_argument("--attribute", action="append", default=[], metavar="NAME=VALUE",
                   help="only conversations whose attribute NAME equals VALUE (repeatable)")


def add_agreement_options(p: argparse.ArgumentParser) -> None:
    """The agreement's settings, and the raters and values a selection joins."""
    p.add_argument("--level", choices=limits.LEVELS,
                   help="level of measurement for alpha (default: ordinal for ordinal codes, "
                   "nominal otherwise; interval/ratio apply to numeric codes only)")
    p.add_argument("--bootstrap", type=int, default=limits.DRAWS_DEFAULT, metavar="N",
                   help="bootstrap draws for the 95%% intervals of alpha, kappa and rho "
                   f"(0 = none; default {limits.DRAWS_DEFAULT}, at most "
                   f"{limits.DRAWS_MAX:,})")
    p.add_argument("--seed", type=int, default=limits.SEED_DEFAULT, metavar="S",
                   help=f"bootstrap seed (default {limits.SEED_DEFAULT})")
    p.add_argument("--ci", choices=limits.CI_METHODS, default=limits.CI_DEFAULT,
                   help=f"interval method: auto (default: bca below {limits.BCA_BELOW_UNITS} "
                   "units, where the percentile interval covers too seldom, percentile from "
                   f"{limits.BCA_BELOW_UNITS}; see "
                   "VALIDATION.md), percentile or bca (bias-corrected and accelerated); "
                   "every interval printed names its method")
    p.add_argument("--min-units", type=int, default=None, metavar="N",
                   help="figures from fewer units read 'too few units' instead of a band "
                   f"(default: the project's setting, {limits.MIN_UNITS_DEFAULT})")
    p.add_argument("--include-users", action="store_true",
                   help="compare every coder with the users' own ratings (codes with a "
                   "user_rating key)")
    p.add_argument("--no-consensus", action="store_true",
                   help="leave the adjudicated consensus out of the comparison")
    p.add_argument("--predictor", action=ListAction, default=[], metavar="NAME,...",
                   help="stored predictors whose turn-level scores join as raters "
                   "'model:NAME' of the code matching the users' overall rating")
    p.add_argument("--no-models", action="store_true",
                   help="leave the models' suggestions (raters 'model:NAME', made by "
                   "'suggest') out; by default every model's join")
    p.add_argument("--model-rater", action=ListAction, default=[], metavar="NAME,...",
                   help="only these models' suggestions join as raters")
    p.add_argument("--values", choices=limits.VALUES, default=limits.VALUES_DEFAULT,
                   help="blind (default): each coder's value as set before the turn was "
                   "revealed to them; final: with the values changed after the reveal")


def _attributes(items: Sequence[str]) -> dict[str, str]:
    """``--attribute NAME=VALUE`` items as a mapping."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ProjectError(f"--attribute {item!r}: write NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def selection_of(args: argparse.Namespace) -> Selection:
    """What the filter options chose (codes, coders, conversations, values, raters)."""
    from ..project.selection import Selection

    return Selection(
        codes=args.codes, coders=getattr(args, "coders", []), models=args.model,
        participants=args.participant, attributes=_attributes(args.attribute),
        include_users=getattr(args, "include_users", False),
        include_consensus=not getattr(args, "no_consensus", False),
        predictors=getattr(args, "predictor", []),
        model_raters=getattr(args, "model_rater", []),
        include_models=not getattr(args, "no_models", False),
        values=getattr(args, "values", limits.VALUES_DEFAULT),
        codebook_version=getattr(args, "codebook_version", None),
    )


def settings_of(args: argparse.Namespace) -> AgreementSettings:
    """How the agreement options say to compute; refused in one line, before the project
    is opened, when no run can use them (more draws than :data:`limits.DRAWS_MAX`)."""
    settings = limits.AgreementSettings(
        level=args.level, bootstrap=args.bootstrap, seed=args.seed, ci=args.ci,
        min_units=args.min_units,
        measures=getattr(args, "measures", limits.MEASURES_DEFAULT),
        kappa_weights=getattr(args, "kappa_weights", limits.KAPPA_BASIS_DEFAULT),
    )
    refused = settings.refusal()
    if refused:
        raise ProjectError(refused)
    return settings


#: the export options only the agreement kind reads (dest: its default)
AGREEMENT_ONLY: dict[str, object] = {
    "level": None, "bootstrap": limits.DRAWS_DEFAULT, "seed": limits.SEED_DEFAULT,
    "ci": limits.CI_DEFAULT, "min_units": None, "include_users": False,
    "no_consensus": False, "predictor": [], "no_models": False, "model_rater": [],
    "values": limits.VALUES_DEFAULT}
#: the options of one or a few export kinds: (dest, (kinds, default))
KIND_OPTIONS = (
    ("with_text", (("long",), False)), ("value", (("segments",), None)),
    ("provenance", (("long", "wide", "consensus", "final"), False)),
    ("scope", (("cooccurrence",), "turn")), ("by", (("codes-by-attribute",), "model")),
)


def refuse_ignored(args: argparse.Namespace) -> None:
    """Refuse, in one line, every option given that the export kind would ignore (e.g.
    ``--kind final --values blind``: final always writes the latest values); then put the
    defaults of the options not given in place."""
    kinds: dict[str, tuple[str, ...]] = {dest: ("agreement",) for dest in AGREEMENT_ONLY}
    kinds |= {dest: k for dest, (k, _) in KIND_OPTIONS}
    ignored = [f"--{dest.replace('_', '-')}" for dest, k in kinds.items()
               if getattr(args, dest, None) is not None and args.kind not in k]
    if ignored:
        takers = sorted({kind for dest, some in kinds.items()
                         if f"--{dest.replace('_', '-')}" in ignored for kind in some})
        raise ProjectError(f"export --kind {args.kind} ignores {', '.join(ignored)} (only "
                           f"--kind {', '.join(takers)} read{'s' if len(takers) == 1 else ''} "
                           f"{'it' if len(ignored) == 1 else 'them'}); leave "
                           f"{'it' if len(ignored) == 1 else 'them'} out")
    defaults = AGREEMENT_ONLY | {dest: default for dest, (_, default) in KIND_OPTIONS}
    for dest, default in defaults.items():
        if getattr(args, dest, None) is None:
            setattr(args, dest, default)
