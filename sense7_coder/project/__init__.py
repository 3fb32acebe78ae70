"""The facade the GUI and the command line talk to."""

from ..store import StorageError, sqlite_version
from .project import Project

__all__ = ["Project", "StorageError", "sqlite_version"]
