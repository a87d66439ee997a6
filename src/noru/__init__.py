"""Noru: a trustworthy, person-controlled view of the screen for AI agents."""

__version__ = "0.1.0"

__all__ = ["__version__"]
