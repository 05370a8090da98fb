"""Platform pieces shared by every app: they import no app of this project.

Dependencies point one way: ``core`` ← ``annotate`` ← ``scoring``. What lives here is
mechanism without product knowledge (bounded reading of uploads, safe tabular writing, strict
JSON), so any app can use it and none of it needs to know about datasets or leaderboards.
"""
