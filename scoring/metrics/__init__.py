"""ΔBLEU Studio metric library: plain Python + numpy, no Django (see base.py)."""

__version__ = "0.1.0"
