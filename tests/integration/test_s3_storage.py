"""Files on S3: uploads, reference indexes, statistics and releases round-trip through
django-storages' S3 backend against a real S3-protocol server in its own process (moto's
standalone server), as a second worker machine would read them."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db]
BUCKET = "deltableu-test"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def s3_server():
    port = _free_port()
    server = Path(sys.executable).with_name("moto_server")
    process = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("moto_server did not start")
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture
def s3(s3_server, settings, tmp_path):
    """Every file of the test goes to a fresh bucket on the S3 server; MEDIA_ROOT must stay
    empty (nothing may fall back to this machine's disk)."""
    import boto3

    bucket = f"{BUCKET}-{time.monotonic_ns()}"
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    client.create_bucket(Bucket=bucket)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.VAR_DIR = tmp_path / "var"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_server,
                "region_name": "us-east-1",
                "access_key": "test",
                "secret_key": "test",
                "file_overwrite": False,
                "default_acl": None,
            },
        },
    }
    yield lambda: sorted(
        o["Key"] for o in client.list_objects_v2(Bucket=bucket).get("Contents", [])
    )
    assert not Path(settings.MEDIA_ROOT).exists() or not any(Path(settings.MEDIA_ROOT).iterdir())


def test_uploads_indexes_and_statistics_live_on_s3(s3, make_leaderboard, other, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from scoring.leaderboards.models import Submission
    from scoring.leaderboards.services import references as references_service
    from tests.runs_kit import execute

    board = make_leaderboard()
    good = b"the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"
    for method in ("first", "second"):
        response = client_for(other).post(
            f"/api/v1/leaderboards/{board.slug}/submissions/",
            {"file": SimpleUploadedFile("out.txt", good), "method": method},
        )
        assert response.status_code == 201
        # A fresh process on another machine: nothing cached, the index read back from S3.
        references_service._INDEX_CACHE.clear()
        execute(response.json()["run"])
    keys = s3()
    assert [k for k in keys if k.startswith("indexes/")] and [
        k for k in keys if k.startswith("stats/")
    ]
    assert len([k for k in keys if k.startswith("submissions/")]) == 2  # never overwritten
    assert not [k for k in keys if k.startswith("runs/")]  # the runs' own files went
    assert {s.status for s in Submission.objects.all()} == {"finished"}
    rows = client_for(other).get(f"/api/v1/leaderboards/{board.slug}/").json()["rows"]
    assert len(rows) == 1  # the team's latest, scored from the files on S3


def test_a_release_publishes_archives_and_imports_through_s3(
    s3, make_dataset, make_campaign, make_rater, owner, other, client_for
):

    from annotate.releases.services.importing import release_import_archive
    from tests.annotate.release_kit import archive_bytes, published, rated

    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = published(dataset, campaign, owner)
    copy = release_import_archive(source=archive_bytes(release, owner), owner=other, slug="copy")
    assert copy.manifest_checksum == release.manifest_checksum
    items = client_for(other).get(
        f"/api/v1/datasets/copy/releases/{copy.version}/files/items.jsonl"
    )
    assert items.status_code == 200 and b"c1" in b"".join(items.streaming_content)
    keys = s3()
    assert any(k.endswith(".zip") for k in keys)
    assert sum(k.endswith("manifest.json") for k in keys) >= 2  # the original and the copy


def test_a_corpus_index_is_stored_on_s3_and_fetched_once_to_search(s3, owner, settings):
    from annotate.mining.services.corpora import corpus_index_dir
    from tests.mining_fixtures import index_corpus

    corpus = index_corpus(owner)
    assert [k for k in s3() if k.startswith(f"corpora/{corpus.pk}/")]
    local = corpus_index_dir(corpus)  # object storage has no local path: a cached copy
    assert local.is_relative_to(settings.VAR_DIR / "cache") and (local / ".complete").exists()
    assert corpus_index_dir(corpus) == local  # fetched once


def test_the_bucket_command_makes_the_bucket_once_then_finds_it(s3, settings):
    # What docker/compose.yaml's one-shot s3-bucket service runs before the app starts.
    from io import StringIO

    import boto3
    from django.core.management import call_command

    options = settings.STORAGES["default"]["OPTIONS"]
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {**options, "bucket_name": "new"}},
    }
    said = []
    for _ in range(2):
        out = StringIO()
        call_command("storage_bucket", stdout=out)
        said.append(out.getvalue().strip())
    assert said == ["Bucket new created.", "Bucket new exists."]
    client = boto3.client(
        "s3",
        endpoint_url=options["endpoint_url"],
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    assert "new" in [b["Name"] for b in client.list_buckets()["Buckets"]]


def test_the_bucket_command_says_there_is_none_on_local_disk():
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("storage_bucket", stdout=out)
    assert "no bucket to make" in out.getvalue()


def test_the_bucket_command_waits_for_a_store_that_is_not_up_yet_then_says_so(settings):
    # The compose file starts it beside the store; an address where nothing answers is retried
    # until --wait runs out, then the command fails naming the store (never a traceback).
    from django.core.management import call_command
    from django.core.management.base import CommandError

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": "any",
                "endpoint_url": f"http://127.0.0.1:{_free_port()}",
                "region_name": "us-east-1",
                "access_key": "test",
                "secret_key": "test",
            },
        },
    }
    started = time.monotonic()
    with pytest.raises(CommandError, match="The object store refused"):
        call_command("storage_bucket", "--wait", "3")
    assert 2 <= time.monotonic() - started < 30
