"""Output campaigns' pages: the owner creates and follows one; raters join, rate, resume."""

import pytest

from annotate.models import OutputCampaign, OutputCampaignRater, OutputRating
from annotate.services.human_eval.campaigns import output_campaign_create
from tests.annotate.output_campaign_kit import output_eval_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset_systems(make_dataset, owner):
    return output_eval_dataset(make_dataset, owner)


@pytest.fixture
def pairwise(dataset_systems, owner):
    dataset, systems = dataset_systems
    return output_campaign_create(
        owner=owner,
        dataset=dataset,
        name="AB",
        systems=systems,
        mode="pairwise",
        ratings_per_unit=1,
    )


@pytest.fixture
def likert(dataset_systems, owner):
    dataset, systems = dataset_systems
    return output_campaign_create(
        owner=owner, dataset=dataset, name="Likert", systems=systems[:1], ratings_per_unit=2
    )


def test_the_owner_creates_a_pairwise_campaign_on_the_page(dataset_systems, owner, client_for):
    _, systems = dataset_systems
    client = client_for(owner)
    page = client.get("/datasets/he/output-campaigns/new/")
    assert page.status_code == 200 and "mt" in page.content.decode()
    form = {
        "name": "Pairs",
        "mode": "pairwise",
        "split": "test",
        "systems": [s.pk for s in systems],
        "ratings_per_unit": 2,
    }
    response = client.post("/datasets/he/output-campaigns/new/", form)
    campaign = OutputCampaign.objects.get()
    assert response.url == f"/output-campaigns/{campaign.pk}/"
    dashboard = client.get(response.url).content.decode()
    assert f"/o/{campaign.token}/" in dashboard and "0 of 4 ratings" in dashboard


def test_pairwise_needs_two_systems(dataset_systems, owner, client_for):
    _, systems = dataset_systems
    form = {
        "name": "P",
        "mode": "pairwise",
        "split": "test",
        "systems": [systems[0].pk],
        "ratings_per_unit": 1,
    }
    response = client_for(owner).post("/datasets/he/output-campaigns/new/", form)
    assert response.status_code == 200 and "two or more" in response.content.decode()
    assert not OutputCampaign.objects.exists()


def test_a_rater_joins_by_link_and_rates_pairs_on_the_a_b_scale(
    pairwise, make_rater, client_for, django_capture_on_commit_callbacks
):
    rater = make_rater()
    client = client_for(rater)
    assert client.get(f"/o/{pairwise.token}/").url == f"/output-campaigns/{pairwise.pk}/rate/"
    page = client.get(f"/output-campaigns/{pairwise.pk}/rate/").content.decode()
    assert "A much better" in page and "B much better" in page
    assert 'id="output-a"' in page and 'id="output-b"' in page
    assert 'data-key="5"' in page and 'data-key="s"' in page
    rating = OutputRating.objects.get(rater=rater)
    shown_a = page.split('id="output-a">')[1].split("<")[0]
    outputs = {s.name: s.outputs.get(item=rating.slot.item).text for s in pairwise.systems.all()}
    left = rating.slot.system_a.name if rating.a_on_left else rating.slot.system_b.name
    assert shown_a == outputs[left].replace('"', "&quot;")
    # Resume: the same lease comes back.
    again = client.get(f"/output-campaigns/{pairwise.pk}/rate/").content.decode()
    assert f"/rate/{rating.pk}/" in again
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.post(f"/output-campaigns/{pairwise.pk}/rate/{rating.pk}/", {"score": "1"})
    rating.refresh_from_db()
    assert rating.status == "done" and rating.preference == (2 if rating.a_on_left else -2)
    assert len(callbacks) == 1  # the QC check is queued after the commit
    client.get(f"/output-campaigns/{pairwise.pk}/rate/")
    second = OutputRating.objects.exclude(pk=rating.pk).get(rater=rater)
    client.post(f"/output-campaigns/{pairwise.pk}/rate/{second.pk}/", {"score": ""})  # skip
    done = client.get(f"/output-campaigns/{pairwise.pk}/rate/").content.decode()
    assert 'id="rater-done"' in done and "1 answers" in done


def test_a_likert_page_shows_one_output_and_the_scale(likert, make_rater, client_for):
    rater = make_rater()
    client = client_for(rater)
    client.get(f"/o/{likert.token}/")
    page = client.get(f"/output-campaigns/{likert.pk}/rate/").content.decode()
    assert 'id="output-a"' in page and 'id="output-b"' not in page
    assert "How good is this response" in page
    rating = OutputRating.objects.get(rater=rater)
    response = client.post(f"/output-campaigns/{likert.pk}/rate/{rating.pk}/", {"score": "9"})
    assert response.status_code == 302
    rating.refresh_from_db()
    assert rating.status == "leased"  # out of scale: refused, still theirs


def test_the_dashboard_shows_raters_and_qc_verdicts(likert, owner, make_rater, client_for):
    from annotate.tasks import output_rater_qc_task

    rater = make_rater()
    client_for(rater).get(f"/o/{likert.token}/")
    client_for(rater).get(f"/output-campaigns/{likert.pk}/rate/")
    rating = OutputRating.objects.get(rater=rater)
    client_for(rater).post(f"/output-campaigns/{likert.pk}/rate/{rating.pk}/", {"score": "4"})
    assert output_rater_qc_task(likert.pk, rater.pk) in {"pending", "passed", "failed"}
    page = client_for(owner).get(f"/output-campaigns/{likert.pk}/").content.decode()
    membership = OutputCampaignRater.objects.get(campaign=likert, rater=rater)
    assert f"<td>{rater.username}</td><td>1</td><td>{membership.qc_status}</td>" in page
    assert output_rater_qc_task(likert.pk, 10**6) is None  # a deleted rater: nothing to do


def test_a_closed_campaign_refuses_new_raters(likert, make_rater, client_for):
    OutputCampaign.objects.filter(pk=likert.pk).update(is_open=False)
    response = client_for(make_rater()).get(f"/o/{likert.token}/")
    assert response.status_code == 400 and "closed" in response.content.decode()


def test_who_sees_which_page(likert, owner, other, staff, make_rater, client_for):
    rater = make_rater()
    client_for(rater).get(f"/o/{likert.token}/")
    new, dash = "/datasets/he/output-campaigns/new/", f"/output-campaigns/{likert.pk}/"
    rate = f"/output-campaigns/{likert.pk}/rate/"
    assert client_for(owner).get(new).status_code == 200
    assert client_for(owner).get(dash).status_code == 200
    assert client_for(staff).get(dash).status_code == 200
    for outsider in (other, rater):  # the dataset is private
        assert client_for(outsider).get(new).status_code == 404
        assert client_for(outsider).get(dash).status_code == 404
    assert client_for(rater).get(rate).status_code == 200
    assert client_for(other).get(rate).status_code == 404  # not a member
    assert client_for(owner).get(rate).status_code == 404  # owners do not rate unjoined
    rating = OutputRating.objects.get(rater=rater)
    stolen = client_for(other).post(f"{rate}{rating.pk}/", {"score": "3"})
    assert stolen.status_code == 404
    client_for(other).get(f"/o/{likert.token}/")  # joined now, but the lease is not theirs
    client_for(other).post(f"{rate}{rating.pk}/", {"score": "3"})
    rating.refresh_from_db()
    assert rating.status == "leased"
    for url in (new, dash, rate, f"/o/{likert.token}/"):
        assert client_for(None).get(url).status_code == 302
    assert client_for(other).get("/o/nope/").status_code == 404


def test_a_public_dataset_is_still_the_owners_to_start_campaigns_on(
    make_dataset, owner, other, client_for
):
    output_eval_dataset(make_dataset, owner, slug="open")
    from annotate.models import Dataset

    Dataset.objects.filter(slug="open").update(visibility="public")
    assert client_for(other).get("/datasets/open/output-campaigns/new/").status_code == 403


def test_the_dataset_page_lists_output_campaigns_for_the_owner(likert, owner, client_for):
    page = client_for(owner).get("/datasets/he/").content.decode()
    assert f'href="/output-campaigns/{likert.pk}/"' in page
    assert 'href="/datasets/he/output-campaigns/new/"' in page
    assert 'href="/datasets/he/judgments/import/"' in page
