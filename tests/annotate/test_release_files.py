"""The files: round trip through an import, hidden references, the metric CLI, HF datasets."""

import io
import json
import subprocess
import sys
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage

from annotate.releases.models import Release, ReleaseItem
from annotate.releases.selectors.content import release_content, scoring_refs
from annotate.releases.services.importing import release_import_archive
from annotate.releases.services.publish import release_build_files
from scoring.metrics import RefItem, WeightedRef
from scoring.metrics.api import score_corpus
from tests.annotate.release_kit import _media, archive_run, published, rated  # noqa: F401

pytestmark = pytest.mark.django_db
HIDDEN_TEXTS = ("try the one with the blue door, great espresso", "no idea sorry")


def release_ref_items(*, release: Release, split: str) -> list[RefItem]:
    """The metric's references for one split, hidden or not, read as refs.<split>.jsonl holds
    them: items ΔBLEU can score, in order, with the release's weight variant (the oracle the
    leaderboards' own reading is checked against)."""
    out = []
    for item in release_content(release=release, public_only=False):
        refs = scoring_refs(item, release.weight_variant) if item["split"] == split else None
        if refs is not None:
            out.append(
                RefItem(item["id"], tuple(WeightedRef(r["text"], r["weight"]) for r in refs))
            )
    return out


def build_archive(release):
    run = archive_run(release, release.created_by)
    assert run.state == "succeeded", run.reason
    release.refresh_from_db()
    return default_storage.open(release.archive_name).read()


@pytest.fixture
def release(owner, make_dataset, make_campaign, make_rater):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    return published(dataset, campaign, owner, include_ratings=True, weight_variant="z")


def test_freeze_export_import_elsewhere_and_export_again_gives_identical_files(release, other):
    archive = build_archive(release)
    imported = release_import_archive(source=archive, owner=other, slug="chat-copy")
    assert imported.dataset.slug == "chat-copy" and imported.imported
    assert imported.manifest_checksum == release.manifest_checksum
    assert imported.snapshot_checksum == release.snapshot_checksum
    assert release_build_files(release=imported) == release_build_files(release=release)
    assert build_archive(imported) == archive


def test_an_archive_is_built_once_and_cached(release):
    first = build_archive(release)
    name = release.archive_name
    assert build_archive(release) == first and release.archive_name == name
    assert hashlib_of(first) == release.archive_sha256


def hashlib_of(data):
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_a_tampered_archive_is_refused(release, other):
    archive = build_archive(release)
    source = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith("refs.dev.jsonl"):
                data = data.replace(b"0.4", b"0.9")
            target.writestr(name, data)
    with pytest.raises(ValidationError, match="SHA-256"):
        release_import_archive(source=out.getvalue(), owner=other, slug="tampered")
    assert not Release.objects.filter(dataset__slug="tampered").exists()


def test_hidden_test_references_never_appear_in_a_public_download(release):
    archive = build_archive(release)
    files = zipfile.ZipFile(io.BytesIO(archive))
    for name in files.namelist():
        data = files.read(name)
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq

            data = json.dumps(pq.read_table(io.BytesIO(data)).to_pylist()).encode()
        for text in HIDDEN_TEXTS:
            assert text.encode() not in data, name
    items = [json.loads(line) for line in files.read("chat-1.0.0/items.jsonl").splitlines()]
    hidden = [i for i in items if i["split"] == "test"]
    assert hidden and all("refs" not in i for i in hidden)  # the inputs are there, not the refs
    assert ReleaseItem.objects.filter(release=release, split="test").exists()


@pytest.mark.slow  # starts the CLI: make test and CI, not test-fast
def test_the_downloaded_jsonl_reproduces_the_library_score_with_the_cli(release, tmp_path):
    refs = tmp_path / "refs.dev.jsonl"
    refs.write_bytes(default_storage.open(release.storage_prefix + "refs.dev.jsonl").read())
    items = release_ref_items(release=release, split="dev")
    hyps = ["that last goal was unbelievable , yes", "sounds like a perfect weekend"]
    (tmp_path / "hyps.txt").write_text("\n".join(hyps) + "\n")
    expected = score_corpus("dbleu", hyps, items)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring.metrics",
            "score",
            "--metric",
            "dbleu",
            "--refs",
            str(refs),
            "--hyps",
            str(tmp_path / "hyps.txt"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert expected.score > 0 and json.loads(run.stdout)["score"] == expected.score
    assert [i.id for i in items] == ["c1", "c3"]


@pytest.mark.slow  # imports all of `datasets`: make test and CI, not test-fast
def test_hugging_face_datasets_loads_the_parquet_offline(release, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    path = tmp_path / "references.parquet"
    path.write_bytes(default_storage.open(release.storage_prefix + "references.parquet").read())
    loaded = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert loaded.num_rows == 2 and loaded[0]["id"] == "c1"
    assert loaded[0]["references"][0]["weight"] == 0.5
    assert loaded[0]["references"][0]["z_weight"] == 0.4


def test_leaderboards_score_the_same_items_and_weights_as_the_downloaded_file(release):
    from scoring.leaderboards.selectors.leaderboards import release_scoring_items

    mine = release_ref_items(release=release, split="dev")
    theirs = [ref_item for _, ref_item in release_scoring_items(release=release, split="dev")]
    assert theirs == mine


def test_an_import_writes_in_as_many_queries_for_three_times_the_items(owner, other):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotate.datasets.services.datasets import dataset_create, dataset_import_file
    from tests.conftest import DATA

    lines = (DATA / "small.jsonl").read_bytes().splitlines()

    def import_queries(copies: int) -> int:
        dataset = dataset_create(owner=owner, name="Chat", slug=f"of-{copies}", visibility="public")
        renamed = [
            json.dumps({**json.loads(line), "id": f"{json.loads(line)['id']}-{k}"}).encode()
            for k in range(copies)
            for line in lines
        ]
        dataset_import_file(dataset=dataset, lines=renamed, fmt="jsonl")
        archive = build_archive(published(dataset, None, owner, unrated="zero", public_splits=[]))
        with CaptureQueriesContext(connection) as queries:
            imported = release_import_archive(source=archive, owner=other, slug=f"copy-{copies}")
        assert imported.items.count() == len(renamed)
        return len(queries)

    assert import_queries(3) == import_queries(1)
