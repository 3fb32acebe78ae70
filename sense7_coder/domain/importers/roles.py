"""Speaker and role names as written in files, mapped onto the roles of a turn."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import Hint

#: Speaker or role names understood without ``--roles`` (compared case-insensitively).
DEFAULT_ROLE_NAMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "user", "human", "seeker", "help-seeker", "helpseeker", "speaker", "usr",
            "client", "customer", "patient", "prompter",
        ),
        "user",
    ),
    **dict.fromkeys(
        (
            "assistant", "bot", "chatbot", "gpt", "chatgpt", "ai", "llm", "model", "supporter",
            "listener", "agent", "helper", "counselor", "counsellor", "therapist",
        ),
        "assistant",
    ),
    **dict.fromkeys(("system", "developer"), "system"),
}



class RoleResolver:
    """Maps speaker/role names onto ROLES: the user's ``--roles`` first, then defaults."""

    def __init__(self, roles: Mapping[str, str], defaults: Mapping[str, str] | None = None):
        base = DEFAULT_ROLE_NAMES if defaults is None else defaults
        self.table: dict[str, str] = {k.casefold(): v for k, v in base.items()}
        self.table.update({k.strip().casefold(): v for k, v in roles.items()})

    def knows(self, name: str) -> bool:
        return name.strip().casefold() in self.table

    def role(self, name: str) -> str | None:
        return self.table.get(name.strip().casefold())

    @staticmethod
    def unknown_message(name: str, what: str = "role") -> str:
        shown = name.strip() or "(empty)"
        return f"unknown {what} '{shown}'"

    @staticmethod
    def unknown_hint(name: str) -> Hint:
        """The way out of an unknown speaker: say which role it has."""
        shown = name.strip() or "(empty)"
        return Hint("roles", f"{shown}=user",
                    f"say which role '{shown}' has (user, assistant or system)")

