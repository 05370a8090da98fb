"""How many examples a property test draws (hypothesis examples, random event sequences): every
one in `make test` (and CI); a fifth, at least ten, in `make test-fast`, the quick loop while
working (it sets TESTS_FAST=1)."""

import os

FAST = os.environ.get("TESTS_FAST") == "1"


def examples(n: int) -> int:
    return max(10, n // 5) if FAST else n
