"""Campaigns on system outputs on the one set of campaign pages: the owner creates and follows
one (results included); raters join by the campaign's link, rate pairs or single outputs, resume."""

import pytest

from annotate.rating.models import Campaign, CampaignRater, CampaignStatus, Rating
from tests.annotate.output_campaign_kit import output_campaign, output_eval_dataset
from tests.annotate.rater_pages_kit import join, rate_page
from tests.conftest import campaign_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset_systems(make_dataset, owner):
    return output_eval_dataset(make_dataset, owner)


@pytest.fixture
def pairwise(dataset_systems, owner):
    dataset, systems = dataset_systems
    return output_campaign(dataset, owner, systems, mode="pairwise", name="AB", control_rate=0)


@pytest.fixture
def likert(dataset_systems, owner):
    dataset, systems = dataset_systems
    return output_campaign(
        dataset,
        owner,
        systems[:1],
        name="Likert",
        ratings_per_unit=2,
        qc_min_seconds=0,
        control_rate=0,
    )


def _form(dataset, systems, **changes):
    form = campaign_form(
        "Pairs",
        subject="outputs",
        mode="pairwise",
        split=dataset.splits.get(name="test").pk,
        systems=[s.pk for s in systems],
        ratings_per_unit=2,
    )
    return {**form, **changes}


def test_the_owner_creates_a_pairwise_campaign_on_the_page(dataset_systems, owner, client_for):
    dataset, systems = dataset_systems
    client = client_for(owner)
    page = client.get("/datasets/he/campaigns/new/")
    assert page.status_code == 200 and "mt" in page.content.decode()
    response = client.post("/datasets/he/campaigns/new/", _form(dataset, systems))
    campaign = Campaign.objects.get()
    assert campaign.subject == "outputs" and campaign.mode == "pairwise"
    assert response.url == f"/campaigns/{campaign.pk}/"
    dashboard = client.get(response.url).content.decode()
    assert f"/r/{campaign.token}/" in dashboard and "0 of 4 ratings" in dashboard
    assert "0 of 2 pairs complete" in dashboard and 'id="results-h"' in dashboard


def test_pairwise_needs_two_systems(dataset_systems, owner, client_for):
    dataset, systems = dataset_systems
    form = _form(dataset, systems[:1])
    response = client_for(owner).post("/datasets/he/campaigns/new/", form)
    assert response.status_code == 200 and "two or more" in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_rater_joins_by_link_and_rates_pairs_on_the_a_b_scale(
    pairwise, make_rater, client_for, django_capture_on_commit_callbacks
):
    rater = make_rater()
    client = client_for(rater)
    assert join(client, pairwise).url == f"/campaigns/{pairwise.pk}/rate/"
    page = rate_page(client, pairwise).content.decode()
    assert "A much better" in page and "B much better" in page
    assert 'id="output-a"' in page and 'id="output-b"' in page
    assert 'data-key="5"' in page and 'data-key="s"' in page
    rating = Rating.objects.get(rater=rater)
    shown_a = page.split('id="output-a">')[1].split("<")[0]
    outputs = {s.name: s.outputs.get(item=rating.slot.item).text for s in pairwise.systems.all()}
    left = rating.slot.system_a.name if rating.a_on_left else rating.slot.system_b.name
    assert shown_a == outputs[left].replace('"', "&quot;")
    # Resume: the same lease comes back.
    again = client.get(f"/campaigns/{pairwise.pk}/rate/").content.decode()
    assert f"/rate/{rating.pk}/" in again
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.post(f"/campaigns/{pairwise.pk}/rate/{rating.pk}/", {"score": "1"})
    rating.refresh_from_db()
    assert rating.status == "done" and rating.preference == (2 if rating.a_on_left else -2)
    assert len(callbacks) == 1  # the QC check is queued after the commit
    second = Rating.objects.exclude(pk=rating.pk).get(rater=rater)  # leased by that answer
    done = client.post(f"/campaigns/{pairwise.pk}/rate/{second.pk}/", {"flag": ""})  # skip
    assert done.url == f"/campaigns/{pairwise.pk}/done/"
    assert "answered 2 items" in client.get(done.url).content.decode()


def test_a_likert_page_shows_one_output_and_the_scale(likert, make_rater, client_for):
    rater = make_rater()
    client = client_for(rater)
    join(client, likert)
    page = rate_page(client, likert).content.decode()
    assert 'id="candidate"' in page and 'id="output-b"' not in page
    assert "How good is this response" in page and "System response" in page
    rating = Rating.objects.get(rater=rater)
    response = client.post(f"/campaigns/{likert.pk}/rate/{rating.pk}/", {"score": "9"})
    assert response.status_code == 302
    rating.refresh_from_db()
    assert rating.status == "leased"  # out of scale: refused, still theirs


def test_the_dashboard_shows_raters_verdicts_and_results(likert, owner, make_rater, client_for):
    from annotate.rating.tasks import rater_qc_task

    rater = make_rater()
    client = client_for(rater)
    join(client, likert)
    for score in ("4", "2"):
        rate_page(client, likert)
        rating = Rating.objects.get(rater=rater, status="leased")
        client.post(f"/campaigns/{likert.pk}/rate/{rating.pk}/", {"score": score})
    assert rater_qc_task(likert.pk, rater.pk) == "passed"
    page = client_for(owner).get(f"/campaigns/{likert.pk}/").content.decode()
    membership = CampaignRater.objects.get(campaign=likert, rater=rater)
    assert membership.qc_status == "passed" and "qc-passed" in page
    assert "<td>mt</td><td>2</td><td>3.00</td>" in page  # results: mt's mean over two items
    assert rater_qc_task(likert.pk, 10**6) is None  # a deleted rater: nothing to do


def test_a_closed_campaign_refuses_new_raters(likert, make_rater, client_for):
    Campaign.objects.filter(pk=likert.pk).update(status=CampaignStatus.CLOSED)
    response = client_for(make_rater()).get(f"/r/{likert.token}/")
    assert response.status_code == 410 and "closed" in response.content.decode()


def test_who_sees_which_page(likert, owner, other, staff, make_rater, client_for):
    rater = make_rater()
    join(client_for(rater), likert)
    new, dash = "/datasets/he/campaigns/new/", f"/campaigns/{likert.pk}/"
    rate = f"/campaigns/{likert.pk}/rate/"
    assert client_for(owner).get(new).status_code == 200
    assert client_for(owner).get(dash).status_code == 200
    assert client_for(staff).get(dash).status_code == 200
    for outsider in (other, rater):  # the dataset is private
        assert client_for(outsider).get(new).status_code == 404
        assert client_for(outsider).get(dash).status_code == 404
    assert rate_page(client_for(rater), likert).status_code == 200
    assert client_for(other).get(rate).status_code == 404  # not a member
    unjoined = client_for(owner).get(rate)  # owners do not rate unjoined: shown the way in
    assert (unjoined.status_code, unjoined["Location"]) == (302, dash)
    rating = Rating.objects.get(rater=rater)
    stolen = client_for(other).post(f"{rate}{rating.pk}/", {"score": "3"})
    assert stolen.status_code == 404
    join(client_for(other), likert)  # joined now, but the lease is not theirs
    client_for(other).post(f"{rate}{rating.pk}/", {"score": "3"})
    rating.refresh_from_db()
    assert rating.status == "leased"
    for url in (new, dash, rate):
        assert client_for(None).get(url).status_code == 302
    assert client_for(other).get("/r/nope/").status_code == 404


def test_the_dataset_page_lists_every_campaign_for_the_owner(likert, owner, client_for):
    page = client_for(owner).get("/datasets/he/").content.decode()
    assert f'href="/campaigns/{likert.pk}/"' in page and "outputs · Absolute" in page
    assert 'href="/datasets/he/campaigns/new/"' in page
    assert 'href="/datasets/he/judgments/import/"' in page


def test_the_form_sets_the_scale_labels_that_only_the_api_offered(
    dataset_systems, owner, client_for
):
    dataset, systems = dataset_systems
    labels = "Awful\nWeak\nFine\nGood\nGreat"
    form = _form(dataset, systems, mode="likert", name="Labelled", anchors=labels)
    response = client_for(owner).post("/datasets/he/campaigns/new/", form)
    assert response.status_code == 302, response.content.decode()[:500]
    assert Campaign.objects.get().anchors == labels.split("\n")
    short = _form(dataset, systems, mode="likert", name="Short", anchors="Bad\nGood")
    refused = client_for(owner).post("/datasets/he/campaigns/new/", short)
    assert refused.status_code == 200 and "one label for each point" in refused.content.decode()
    assert Campaign.objects.count() == 1
