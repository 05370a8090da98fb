"""Writes of human evaluation of outputs: systems and outputs, judgment imports, campaigns."""
