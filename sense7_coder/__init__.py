"""sense7-coder: offline qualitative coding of human-AI conversations for empathy research."""

__version__ = "0.1.0"
APP_NAME = "sense7-coder"
