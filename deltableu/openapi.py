"""The API schema's generic truths, added once for every operation (a drf-spectacular hook).

Any operation can answer: 400 (a malformed body or query parameter, or invalid fields), 401/403
(not authenticated, not allowed), 404 (an object that does not exist or is not yours), 429
(throttled or locked out after failed attempts), 503 (the database was too busy to take a write
in time; see Retry-After); an upload can also answer 413 (a limit). Their
bodies are DRF's error shapes: `{"detail": "…"}`, `{"<field>": ["…"]}` or a list of messages.
Documenting these here keeps a hundred views free of repeated decorators.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "description": "DRF's error body: a detail, messages by field, or a list of messages.",
    "oneOf": [
        {"type": "object", "additionalProperties": True},
        {"type": "array", "items": {"type": "string"}},
    ],
}
GENERIC = {
    "400": "Malformed or invalid input; the body names the field or the line.",
    "401": "Authentication is needed (a token or a session).",
    "403": "Not allowed to you, or credentials were not provided.",
    "404": "No such object (or not one you may see).",
    "429": "Throttled, or locked out after repeated failed attempts; see Retry-After.",
    "503": "The database was too busy to answer in time; nothing changed. Retry after Retry-After.",
}
UPLOAD = {"413": "The upload is over a limit; the body names the limit."}
ERROR_REF = {"$ref": "#/components/schemas/Error"}


def _with_error(response: dict[str, Any], description: str) -> dict[str, Any]:
    """The documented response of that code, widened to accept DRF's error bodies as well."""
    if not response:
        return {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}
    content = response.setdefault("content", {})
    documented = content.get("application/json", {}).get("schema")
    # anyOf, not oneOf: a documented body may also match the free-form error shape.
    schema = {"anyOf": [documented, ERROR_REF]} if documented else ERROR_REF
    content["application/json"] = {"schema": schema}
    return response


def add_error_responses(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            responses = operation.setdefault("responses", {})
            codes = dict(GENERIC)
            if "multipart/form-data" in operation.get("requestBody", {}).get("content", {}):
                codes.update(UPLOAD)
            for code, description in codes.items():
                responses[code] = _with_error(responses.get(code, {}), description)
            for code, response in responses.items():  # the operation's own 4xx (409, 410, …)
                if code.startswith("4") and code not in codes:
                    responses[code] = _with_error(response, response.get("description", ""))
    return result
