"""Words of a merge that the command line offers before any project is open."""

from __future__ import annotations

#: what a merge does where the target and a source hold different values for one cell
ON_CONFLICT = ("refuse", "keep-target", "keep-source", "newest")
