"""The facade the GUI and the command line talk to."""

from ..store import StorageError, sqlite_version
from ..store.conversations import ConversationFilter
from .project import Project

__all__ = ["ConversationFilter", "Project", "StorageError", "sqlite_version"]
