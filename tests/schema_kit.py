"""The API's OpenAPI schema, generated once a test process for the tests that read it (each
generation walks every route and serializer: ~0.1 s). Read it; never change it."""

from functools import cache

from drf_spectacular.generators import SchemaGenerator


@cache
def api_schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)
