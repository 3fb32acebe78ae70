"""The ways out the project's refusals offer, for each front end to word
(:class:`~sense7_coder.domain.errors.Hint`)."""

from __future__ import annotations

from ..domain.errors import Hint

#: a lead's work refused to someone not named: say who you are
AS_LEAD = Hint("as", "NAME", "name who you are")
#: the consensus refused to a plain coder
MAKE_ADJUDICATOR = Hint("role", "adjudicator", "make them adjudicator")
