"""The library version, part of every signature (and the distribution's version)."""

__version__ = "0.2.0"
