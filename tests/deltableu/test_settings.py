"""Settings read from the environment, strictly; the production check; CI's real services."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from deltableu.env import env_bool, env_int, env_list

ROOT = settings.BASE_DIR


@pytest.mark.parametrize("raw, value", [("True", True), ("False", False), ("", False)])
def test_booleans_are_true_or_false(monkeypatch, raw, value):
    monkeypatch.setenv("FLAG", raw)
    assert env_bool("FLAG", False) is value


@pytest.mark.parametrize("raw", ["true", "1", "yes", "flase"])
def test_anything_else_is_refused(monkeypatch, raw):
    monkeypatch.setenv("FLAG", raw)
    with pytest.raises(ImproperlyConfigured, match='FLAG must be "True" or "False"'):
        env_bool("FLAG", False)


def test_integers_and_lists(monkeypatch):
    monkeypatch.setenv("N", "12")
    monkeypatch.setenv("HOSTS", "a.org, b.org,")
    assert env_int("N", 0) == 12
    assert env_list("HOSTS", []) == ["a.org", "b.org"]
    monkeypatch.setenv("N", "twelve")
    with pytest.raises(ImproperlyConfigured, match="N must be an integer"):
        env_int("N", 0)


# Each of these starts manage.py in a process of its own (settings are read once, at start):
# 1-5 s apiece, so `make test` runs them and `make test-fast` leaves them out.
starts_a_process = pytest.mark.slow


def manage(*args, **env):
    unset = ("DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE")
    clean = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@starts_a_process
def test_production_settings_pass_the_deploy_check():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="False",
        SECRET_KEY="k" * 20 + "-Production-Like-Secret-Key-0123456789!",
        ALLOWED_HOSTS="studio.example.org",
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


@starts_a_process
def test_without_debug_a_secret_key_is_required():
    result = manage("check", DEBUG="False")
    assert result.returncode != 0
    assert "SECRET_KEY is required when DEBUG is False" in result.stderr


@starts_a_process
def test_the_openapi_schema_is_valid():
    result = manage(
        "spectacular", "--validate", "--fail-on-warn", "--file", os.devnull, DEBUG="True"
    )
    assert result.returncode == 0, result.stderr


def test_celery_is_configured_the_robust_way():
    from deltableu.celery import app

    conf = app.conf
    assert conf.task_serializer == "json" and conf.accept_content == ["json"]
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.task_time_limit > conf.task_soft_time_limit > 0
    assert conf.task_always_eager is False
    assert conf.result_backend == "django-db"
    assert all("expires" in entry["options"] for entry in conf.beat_schedule.values())


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI alone must use PostgreSQL and Redis")
def test_ci_really_uses_postgresql_and_redis():
    from deltableu.celery import app

    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert app.conf.broker_url.startswith("redis://")


@starts_a_process
def test_hsts_preload_is_an_explicit_opt_in():
    from django.conf import settings

    assert settings.SECURE_HSTS_PRELOAD is False
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.SECURE_HSTS_PRELOAD)",
        DEBUG="False",
        SECRET_KEY="k" * 50,
        ALLOWED_HOSTS="x.org",
        SECURE_HSTS_PRELOAD="True",
    )
    assert result.stdout.strip().splitlines()[-1] == "True"


@starts_a_process
@pytest.mark.parametrize(
    "env, message",
    [
        ({"STORAGE_BACKEND": "ftp"}, "STORAGE_BACKEND must be local or s3"),
        ({"STORAGE_BACKEND": "s3"}, "needs S3_BUCKET"),
    ],
)
def test_file_storage_settings_are_checked_at_start(env, message):
    result = manage("check", DEBUG="True", **env)
    assert result.returncode != 0 and message in result.stderr


@starts_a_process
def test_s3_storage_is_chosen_by_environment():
    result = manage(
        "shell",
        "-c",
        "from django.core.files.storage import storages; "
        "s = storages['default']; print(type(s).__name__, s.bucket_name)",
        DEBUG="True",
        STORAGE_BACKEND="s3",
        S3_BUCKET="files",
        S3_ENDPOINT_URL="http://x:1",
    )
    assert result.stdout.strip().splitlines()[-1] == "S3Storage files"


def test_every_variable_the_settings_read_is_documented_in_both_places():
    # The configuration table (docs/configuration.md) and docker/.env.example fell behind the
    # settings (nine variables).
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    read = set()
    for module in (root / "deltableu" / "settings").glob("*.py"):
        read |= set(re.findall(r'env_\w+\(\s*"([A-Z0-9_]+)"', module.read_text()))
    table = (root / "docs" / "configuration.md").read_text()
    example = (root / "docker" / ".env.example").read_text()
    assert len(read) > 40  # the pattern still finds them
    assert sorted(n for n in read if f"`{n}`" not in table) == []
    assert sorted(n for n in read if not re.search(rf"^#?\s*{n}=", example, re.M)) == []
