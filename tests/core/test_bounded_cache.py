"""BoundedCache keeps the newest `size` entries."""

from core.bounded_cache import BoundedCache


def test_the_oldest_entry_leaves_when_the_cache_is_full():
    cache: BoundedCache[int] = BoundedCache(2)
    assert cache.remember("a", 1) == 1
    cache.remember("b", 2)
    cache.remember("a", 10)  # a key already there replaces its value, nothing leaves
    assert cache == {"a": 10, "b": 2}
    cache.remember("c", 3)
    assert list(cache) == ["b", "c"]
    cache.clear()
    assert cache == {}
