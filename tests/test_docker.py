"""docker/ read without a Docker daemon: the compose file parses, names only services, volumes
and images that exist (each image pinned), every process it starts runs a command this project
has, and every variable it reads is in docker/.env.example.

A compose file is only ever tried by someone deploying: a service that depended on a name no
longer defined, or a worker on a queue the settings renamed, would first fail there."""

from __future__ import annotations

import re
import shlex
from importlib import import_module
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import get_commands

DOCKER = Path(__file__).resolve().parents[1] / "docker"
ROOT = DOCKER.parent
COMPOSE = yaml.safe_load((DOCKER / "compose.yaml").read_text())
SERVICES: dict[str, dict] = COMPOSE["services"]
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}
VARIABLE = re.compile(r"\$\{([A-Z0-9_]+)(?:(:?-)([^}]*)|:?\?[^}]*)?\}")
# The first word of a third-party image's command, by image: its own server program.
THIRD_PARTY_PROGRAMS = {
    "postgres": None,  # its image's own command
    "redis": "redis-server",
    "quay.io/minio/minio": "server",
}


def interpolated(text: str) -> str:
    """`text` as compose runs it with no variable set: each ${NAME:-default} its default."""
    return VARIABLE.sub(lambda match: match.group(3) or "", text)


def argv(command: str | list[str]) -> list[str]:
    if isinstance(command, list):
        return [interpolated(word) for word in command]
    return shlex.split(interpolated(command))


def dockerfile() -> str:
    return (DOCKER / "Dockerfile").read_text()


def project_services() -> dict[str, dict]:
    """The services that run this project's image (built from docker/Dockerfile)."""
    return {name: service for name, service in SERVICES.items() if "build" in service}


def test_the_compose_file_parses_into_services():
    assert {"web", "worker", "worker-heavy", "beat", "postgres", "redis", "s3", "s3-bucket"} <= set(
        SERVICES
    )


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_dependency_names_a_service(name):
    depends = SERVICES[name].get("depends_on") or []
    names = list(depends) if isinstance(depends, dict | list) else []
    assert sorted(set(names) - set(SERVICES)) == []
    assert name not in names


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_image_is_pinned(name):
    service = SERVICES[name]
    if "build" in service:
        assert service["build"]["dockerfile"] == "docker/Dockerfile"
        assert (DOCKER / service["build"]["context"]).resolve() == ROOT  # relative to docker/
        return
    image = service["image"]
    repository, _, tag = image.rpartition(":")
    assert repository and "/" not in tag, f"{image} names no tag"
    assert tag != "latest" and re.search(r"\d", tag), f"{image} is not pinned to a version"


def test_the_dockerfile_base_image_is_pinned_and_its_entrypoint_exists():
    base = re.search(r"^FROM (\S+)", dockerfile(), re.M).group(1)
    assert re.fullmatch(r"[\w./-]+:\d[\w.-]*", base), base
    entrypoint = re.search(r"^ENTRYPOINT \[\"/app/(\S+)\"\]", dockerfile(), re.M).group(1)
    assert (ROOT / entrypoint).is_file()
    assert f"chmod +x /app/{entrypoint}" in dockerfile()
    for source in re.findall(r"^COPY (?:--\S+ )*(\S+) ", dockerfile(), re.M):
        assert (ROOT / source).exists(), f"COPY {source}: no such file"


def test_every_named_volume_is_declared_and_every_declared_one_used():
    declared = set(COMPOSE.get("volumes") or {})
    used = {
        volume.split(":")[0]
        for service in SERVICES.values()
        for volume in service.get("volumes", [])
        if not volume.startswith((".", "/", "~"))
    }
    assert used == declared
    # The object store keeps its files on a volume: a restart loses nothing.
    assert any(v.startswith("s3-data:") for v in SERVICES["s3"]["volumes"])


def _check_celery(words: list[str]) -> None:
    assert words[:3] == ["celery", "-A", "deltableu"], words
    module = import_module("deltableu.celery")
    assert module.app.main == "deltableu"
    subcommand = words[3]
    assert subcommand in {"worker", "beat"}, words
    if subcommand == "worker":
        queues = set(words[words.index("-Q") + 1].split(","))
        known = {settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_HEAVY_QUEUE}
        assert queues <= known, f"{words}: no such queue in the settings ({known})"
    if "--scheduler" in words:
        dotted = words[words.index("--scheduler") + 1]
        module_name, _, attribute = dotted.partition(":")
        assert hasattr(import_module(module_name), attribute), dotted
        assert dotted == settings.CELERY_BEAT_SCHEDULER


def _check_gunicorn(words: list[str]) -> None:
    module_name, _, attribute = words[1].partition(":")
    assert callable(getattr(import_module(module_name), attribute)), words[1]


def _check_project_command(words: list[str]) -> None:
    if words[:2] == ["python", "manage.py"]:
        assert words[2] in get_commands(), f"manage.py has no command {words[2]!r}"
        return
    checks = {"celery": _check_celery, "gunicorn": _check_gunicorn}
    assert words[0] in checks, f"not a command this project runs: {words}"
    checks[words[0]](words)


def _image_command() -> list[str]:
    """The Dockerfile's CMD: what a project service without a command of its own runs."""
    return yaml.safe_load(re.search(r"^CMD (\[.*\])$", dockerfile(), re.M).group(1))


@pytest.mark.parametrize("name", sorted(project_services()))
def test_every_project_service_runs_a_command_the_project_has(name):
    command = SERVICES[name].get("command")
    _check_project_command(argv(command) if command else _image_command())


@pytest.mark.parametrize("name", sorted(set(SERVICES) - set(project_services())))
def test_every_third_party_service_runs_its_image_server(name):
    service = SERVICES[name]
    repository = service["image"].rpartition(":")[0]
    assert repository in THIRD_PARTY_PROGRAMS, f"{repository}: which program does it run?"
    program = THIRD_PARTY_PROGRAMS[repository]
    if program is None:
        assert "command" not in service
    else:
        assert argv(service["command"])[0] == program
    assert "healthcheck" in service, "the services that need it wait for it to be healthy"


def test_both_queues_have_a_worker_and_there_is_one_beat():
    consumed, beats = set(), 0
    for service in project_services().values():
        words = argv(service.get("command") or _image_command())
        if words[:4] == ["celery", "-A", "deltableu", "worker"]:
            consumed |= set(words[words.index("-Q") + 1].split(","))
        beats += words[:4] == ["celery", "-A", "deltableu", "beat"]
    assert consumed == {settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_HEAVY_QUEUE}
    assert beats == 1


def test_exactly_the_web_service_migrates_and_the_others_wait_unless_they_need_no_database():
    migrating = {
        name
        for name, service in project_services().items()
        if service["environment"].get("RUN_MIGRATIONS") == "true"
    }
    assert migrating == {"web"}
    not_waiting = {
        name
        for name, service in project_services().items()
        if service["environment"].get("WAIT_FOR_MIGRATIONS") == "false"
    }
    assert not_waiting == {"s3-bucket"}
    # The web service waits for the bucket, so the bucket must not wait for the web service.
    assert SERVICES["web"]["depends_on"]["s3-bucket"]["condition"] == (
        "service_completed_successfully"
    )


def test_the_app_stores_files_on_the_compose_object_store_by_default():
    environment = SERVICES["web"]["environment"]
    assert environment["STORAGE_BACKEND"] == "s3"
    assert interpolated(environment["S3_ENDPOINT_URL"]) == "http://s3:9000"
    assert "9000" not in str(SERVICES["s3"]["command"])  # MinIO's API listens on 9000 itself


def test_every_variable_the_compose_file_reads_is_in_the_env_example():
    text = (DOCKER / "compose.yaml").read_text()
    example = (DOCKER / ".env.example").read_text()
    read = {match.group(1) for match in VARIABLE.finditer(text)}
    assert read, "the pattern still finds them"
    assert sorted(n for n in read if not re.search(rf"^#?\s*{n}=", example, re.M)) == []
    required = {match.group(1) for match in re.finditer(r"\$\{([A-Z0-9_]+):\?", text)}
    # A variable compose refuses to start without is set (uncommented) in the example.
    assert sorted(n for n in required if not re.search(rf"^{n}=", example, re.M)) == []
