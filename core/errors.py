"""Exceptions of the domain, free of HTTP: the interfaces decide what each one answers."""


class NotFound(Exception):
    """What was asked for does not exist, or the user may not know that it does (a private
    object is "not found" to others, not forbidden). Pages and the API answer it with a 404
    whose message is this exception's (see core.http.NotFoundMiddleware, core.api)."""


class Conflict(Exception):
    """The request cannot be done while things stand as they are, and the message says what
    stands in the way (a study keeps the campaign it reads). The API answers a 409."""
