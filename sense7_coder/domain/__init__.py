"""Pure-Python domain layer: no Qt, no SQL."""
