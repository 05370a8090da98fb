"""The published evaluation's single CSV through the import page: imported in one step when
its columns are recognised, else the mapping page shows its first rows as they will be read
(cells of several values split, the separators explained) and offers every role once."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.datasets.models import Item, Reference
from annotate.judgments.models import Judgment, JudgmentSet
from tests.annotate.test_judgment_mapping import _hidden, _selects
from tests.published_eval import published_eval

pytestmark = pytest.mark.django_db
PAGE = "/datasets/pub/judgments/import/"
COLUMNS_PAGE = "/datasets/pub/judgments/import/columns/"


@pytest.fixture
def dataset(make_dataset):
    return make_dataset(slug="pub", data=None)


def _upload(data: bytes, **extra):
    return {"judgments": SimpleUploadedFile("published.csv", data), "split": "test", **extra}


def test_the_published_file_goes_in_through_the_page_in_one_step(dataset, owner, client_for):
    client = client_for(owner)
    published = published_eval(systems=3, items=4)
    done = client.post(PAGE, _upload(published.data, original="last"))
    imported = JudgmentSet.objects.get()
    assert done.status_code == 302 and done.url == f"/judgments/{imported.pk}/"
    item = Item.objects.get(external_id="i2")
    assert [r.text for r in Reference.objects.filter(item=item)] == published.references["i2"]
    page = client.get(done.url).content.decode()
    assert 'id="judgment-aggregated"' in page and "split at a tab" in page


def test_the_mapping_page_shows_rows_as_read_and_every_role_once(dataset, owner, client_for):
    client = client_for(owner)
    published = published_eval(systems=2, items=3)
    renamed = published.data.replace(b"system,", b"bot,", 1)  # a name nobody can guess
    first = client.post(PAGE, _upload(renamed, original="last", context_separator="||||"))
    page = first.content.decode()
    assert first.status_code == 200 and "no column is the system" in page
    assert not JudgmentSet.objects.exists()
    # The references cell as its values, the original still last as in the file.
    original, *others = published.references["i1"]
    shown = "".join(f"<li>{text}</li>" for text in [*others, original])
    assert f'<ol class="cell-values">{shown}</ol>' in page
    assert "references (references): split at a tab, found in" in page
    assert "context (context): split at &#x27;||||&#x27;, as given" in page
    select = re.search(r'<select name="judgments-1".*?</select>', page, re.S).group(0)
    options = re.findall(r'<option value="([^"]+)"', select)
    assert options.count("criterion") == 1 and len(options) == len(set(options))
    assert {"original", "message", "n_judges", "response", "references"} <= set(options)
    choice = {**_selects(page), "judgments-1": "system"}
    done = client.post(
        COLUMNS_PAGE,
        {**choice, "token": _hidden(page, "token"), "split": "test", "original": "last"},
    )
    assert done.status_code == 302, done.content.decode()[:2000]
    assert Judgment.objects.count() == 6 and JudgmentSet.objects.get().report["aggregated"]
    item = Item.objects.get(external_id="i1")
    assert [r.text for r in Reference.objects.filter(item=item)] == published.references["i1"]
