"""The facade the GUI and the command line talk to."""

from .project import Project

__all__ = ["Project"]
