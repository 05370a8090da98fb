"""Database triggers that keep a published release immutable, defined once.

They are (re)installed after every ``migrate`` (a ``post_migrate`` handler, see apps.py): an
SQLite table rebuild, which a later migration of these tables performs, silently drops a
table's triggers, and installing them after the last migration always matches the current
columns. ``missing_frozen_triggers`` lets a check and the tests see that they are in place.
"""

from __future__ import annotations

from typing import Any

# Immutability of published releases, enforced by the database so that no code path (admin,
# shell, a buggy service) can change a citable version. Snapshot rows of a published release
# cannot be inserted, updated or deleted; a published release cannot be deleted, unpublished, or
# have its frozen fields changed. Allowed on a published release: revealing splits
# (public_splits, manifest, manifest_checksum), the archive cache and campaign_id (SET_NULL).
SNAPSHOT_TABLES = ["releases_releaseitem", "releases_releasereference", "releases_releaserating"]
FROZEN_COLUMNS = [
    "dataset_id",
    "version",
    "status",
    "weight_variant",
    "include_ratings",
    "license",
    "citation",
    "description",
    "created_by_id",
    "created_at",
    "published_at",
    "build_info",
    "snapshot_checksum",
    "imported",
]
MESSAGE = "release is published: its snapshot and frozen fields cannot change"


def sqlite_sql() -> list[str]:
    sql = []
    for table in SNAPSHOT_TABLES:
        for op, row in (("INSERT", "NEW"), ("UPDATE", "OLD"), ("DELETE", "OLD")):
            sql.append(
                f"CREATE TRIGGER {table}_frozen_{op.lower()} BEFORE {op} ON {table} "
                f"WHEN (SELECT status FROM releases_release WHERE id = {row}.release_id) "
                f"= 'published' BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
    changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in FROZEN_COLUMNS)
    sql.append(
        "CREATE TRIGGER releases_release_frozen_update BEFORE UPDATE ON releases_release "
        f"WHEN OLD.status = 'published' AND ({changed}) "
        f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
    )
    sql.append(
        "CREATE TRIGGER releases_release_frozen_delete BEFORE DELETE ON releases_release "
        f"WHEN OLD.status = 'published' BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
    )
    return sql


def postgresql_sql() -> list[str]:
    changed = " OR ".join(f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in FROZEN_COLUMNS)
    sql = [
        f"""
        CREATE OR REPLACE FUNCTION releases_release_snapshot_frozen() RETURNS trigger AS $$
        DECLARE rid bigint;
        BEGIN
            IF TG_OP = 'INSERT' THEN rid := NEW.release_id; ELSE rid := OLD.release_id; END IF;
            IF EXISTS (SELECT 1 FROM releases_release WHERE id = rid AND status = 'published')
            THEN RAISE EXCEPTION '{MESSAGE}' USING ERRCODE = '23000';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        f"""
        CREATE OR REPLACE FUNCTION releases_release_frozen() RETURNS trigger AS $$
        BEGIN
            IF TG_OP = 'DELETE' AND OLD.status = 'published' THEN
                RAISE EXCEPTION '{MESSAGE}' USING ERRCODE = '23000';
            END IF;
            IF TG_OP = 'UPDATE' AND OLD.status = 'published' AND ({changed}) THEN
                RAISE EXCEPTION '{MESSAGE}' USING ERRCODE = '23000';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        "CREATE TRIGGER releases_release_frozen BEFORE UPDATE OR DELETE ON releases_release "
        "FOR EACH ROW EXECUTE FUNCTION releases_release_frozen()",
    ]
    for table in SNAPSHOT_TABLES:
        sql.append(
            f"CREATE TRIGGER {table}_frozen BEFORE INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION releases_release_snapshot_frozen()"
        )
    return sql


def drop_sql(vendor: str) -> list[str]:
    if vendor == "postgresql":
        return [
            "DROP TRIGGER IF EXISTS releases_release_frozen ON releases_release",
            *(f"DROP TRIGGER IF EXISTS {t}_frozen ON {t}" for t in SNAPSHOT_TABLES),
            "DROP FUNCTION IF EXISTS releases_release_frozen()",
            "DROP FUNCTION IF EXISTS releases_release_snapshot_frozen()",
        ]
    names = ["releases_release_frozen_update", "releases_release_frozen_delete"]
    names += [f"{t}_frozen_{op}" for t in SNAPSHOT_TABLES for op in ("insert", "update", "delete")]
    return [f"DROP TRIGGER IF EXISTS {name}" for name in names]


def _statements(vendor: str) -> list[str]:
    if vendor == "postgresql":
        return postgresql_sql()
    if vendor == "sqlite":
        return sqlite_sql()
    return []


def install_frozen_triggers(connection: Any) -> None:
    """Drop and create the triggers (idempotent) on ``connection``'s database."""
    with connection.cursor() as cursor:
        for statement in [*drop_sql(connection.vendor), *_statements(connection.vendor)]:
            cursor.execute(statement)


def drop_frozen_triggers(connection: Any) -> None:
    """Remove the triggers (a test that must delete published rows, e.g. SQLite's flush)."""
    with connection.cursor() as cursor:
        for statement in drop_sql(connection.vendor):
            cursor.execute(statement)


def frozen_trigger_names(vendor: str) -> list[str]:
    """The triggers this module installs on a database of ``vendor``."""
    if vendor == "postgresql":
        return ["releases_release_frozen", *(f"{t}_frozen" for t in SNAPSHOT_TABLES)]
    if vendor == "sqlite":
        names = ["releases_release_frozen_update", "releases_release_frozen_delete"]
        ops = ("insert", "update", "delete")
        return names + [f"{t}_frozen_{op}" for t in SNAPSHOT_TABLES for op in ops]
    return []


def missing_frozen_triggers(connection: Any) -> list[str]:
    """Names of the triggers that should be installed and are not."""
    query = {
        "postgresql": "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal",
        "sqlite": "SELECT name FROM sqlite_master WHERE type = 'trigger'",
    }.get(connection.vendor)
    if query is None:
        return []
    with connection.cursor() as cursor:
        cursor.execute(query)
        present = {row[0] for row in cursor.fetchall()}
    return [name for name in frozen_trigger_names(connection.vendor) if name not in present]
