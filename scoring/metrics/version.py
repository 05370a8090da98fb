"""The library version, part of every signature."""

__version__ = "0.1.0"
