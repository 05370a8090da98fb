"""The rater's "my campaigns" page and API: every campaign they joined, their progress, the
state, quality control and what comes next (continue, or the completion code)."""

import pytest
from django.urls import reverse

from annotate.rating.models import CampaignRater, QCStatus
from annotate.rating.selectors.completion import completion_code_shown
from annotate.rating.selectors.rater import campaigns_of_rater
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_submit
from tests.annotate.rater_pages_kit import join

pytestmark = pytest.mark.django_db


def rate_all(campaign, rater, score=3) -> int:
    answered = 0
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        rating_submit(rating_id=rating.pk, rater=rater, score=score)
        answered += 1
    return answered


def test_each_joined_campaign_shows_progress_and_the_next_step(
    make_campaign, make_dataset, make_rater
):
    started = make_campaign(name="Started", ratings_per_unit=1)
    finished = make_campaign(name="Finished", dataset=make_dataset(slug="other"))
    make_campaign(name="Not joined", dataset=make_dataset(slug="third"))
    rater = make_rater(started)
    from annotate.rating.services.campaigns import campaign_join

    campaign_join(campaign=finished, rater=rater)
    first = rating_next(campaign=started, rater=rater)
    rating_submit(rating_id=first.pk, rater=rater, score=4)
    total = rate_all(finished, rater)

    rows = {row.campaign.name: row for row in campaigns_of_rater(rater=rater)}
    assert set(rows) == {"Started", "Finished"}
    assert rows["Started"].answered == 1 and rows["Started"].open_now == 5
    assert rows["Started"].next_step == "continue" and rows["Started"].completion_code is None
    assert rows["Finished"].answered == total == 6
    assert rows["Finished"].next_step == "done" and rows["Finished"].open_now == 0


def test_an_account_rater_who_passed_and_is_done_gets_a_code(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    rate_all(campaign, rater)
    membership = CampaignRater.objects.get(campaign=campaign, rater=rater)
    assert campaigns_of_rater(rater=rater)[0].completion_code is None  # pending
    membership.qc_status = QCStatus.PASSED
    membership.save()
    code = campaigns_of_rater(rater=rater)[0].completion_code
    assert code and len(code) == 10
    # Not a crowd participant's code: the salt differs, whatever id they claim.
    membership.crowd_id = str(rater.pk)
    assert completion_code_shown(campaign=campaign, membership=membership, answered=6) != code


def test_a_crowd_participants_share_ends_their_work(make_campaign, client_for):
    campaign = make_campaign(ratings_per_rater=2)
    client = client_for(None)
    join(client, campaign, "p-1")
    membership = CampaignRater.objects.get(campaign=campaign)
    rater = membership.rater
    row = campaigns_of_rater(rater=rater)[0]
    assert row.quota == 2 and row.open_now == 2  # their share, not all six references
    rate_all(campaign, rater)
    CampaignRater.objects.filter(pk=membership.pk).update(qc_status=QCStatus.PASSED)
    row = campaigns_of_rater(rater=rater)[0]
    assert row.answered == 2 and row.next_step == "done" and row.completion_code
    page = client.get(reverse("my-campaigns")).content.decode()
    assert row.completion_code in page and 'data-copy="completion-code-' in page


def test_a_closed_campaign_takes_no_more_answers(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    campaign.status = "closed"
    campaign.save(update_fields=["status"])
    assert campaigns_of_rater(rater=rater)[0].next_step == "closed"


def test_the_page_lists_them_with_a_link_to_continue(make_campaign, make_rater, client_for):
    campaign = make_campaign(name="Round one")
    rater = make_rater(campaign)
    page = client_for(rater).get(reverse("my-campaigns")).content.decode()
    assert "Round one" in page and "Start rating" in page
    assert reverse("campaign-rate", args=[campaign.pk]) in page
    assert "pending" in page  # quality checks


def test_the_navigation_links_to_it_for_signed_in_users(rater, client_for):
    url = reverse("my-campaigns")
    assert url in client_for(rater).get(reverse("home")).content.decode()
    assert url not in client_for(None).get(reverse("home")).content.decode()


def test_someone_who_joined_nothing_is_told_how_to_join(rater, client_for):
    page = client_for(rater).get(reverse("my-campaigns")).content.decode()
    assert "not joined a campaign yet" in page


@pytest.mark.parametrize("who", ["owner", "rater", "other", "anonymous"])
def test_each_user_sees_only_their_own_campaigns(make_campaign, client_for, user_named, who, rater):
    """The owner of a campaign does not see it here (they run it, they do not rate it); another
    user sees nothing; anonymous visitors are sent to log in."""
    from annotate.rating.services.campaigns import campaign_join

    campaign = make_campaign(name="Round one")
    campaign_join(campaign=campaign, rater=rater)
    client = client_for(user_named(who))
    page = client.get(reverse("my-campaigns"))
    api = client.get(reverse("api-my-campaigns"))
    if who == "anonymous":
        assert page.status_code == 302 and page["Location"].startswith(reverse("login"))
        assert api.status_code in (401, 403)
        return
    assert page.status_code == api.status_code == 200
    mine = who == "rater"
    assert ("Round one" in page.content.decode()) == mine
    assert [row["name"] for row in api.json()["results"]] == (["Round one"] if mine else [])


def test_the_api_row(make_campaign, make_rater, client_for):
    campaign = make_campaign(name="Round one")
    rater = make_rater(campaign)
    (row,) = client_for(rater).get(reverse("api-my-campaigns")).json()["results"]
    assert row["id"] == campaign.pk and row["dataset"] == campaign.dataset.slug
    assert row["status"] == campaign.status and row["qc_status"] == "pending"
    assert row["answered"] == 0 and row["quota"] is None and row["open_now"] == 6
    assert row["next_step"] == "continue" and row["completion_code"] is None
    assert row["rate_url"].endswith(reverse("campaign-rate", args=[campaign.pk]))


def test_the_page_takes_a_fixed_number_of_queries(
    make_campaign, make_dataset, make_rater, client_for, django_assert_max_num_queries
):
    rater = make_rater()
    from annotate.rating.services.campaigns import campaign_join

    for n in range(4):
        campaign = make_campaign(name=f"Round {n}", dataset=make_dataset(slug=f"set-{n}"))
        campaign_join(campaign=campaign, rater=rater)
    client = client_for(rater)
    with django_assert_max_num_queries(8):
        assert client.get(reverse("my-campaigns")).status_code == 200


def test_the_done_page_of_an_account_rater(make_campaign, make_rater, client_for):
    """Work left: a link back to it; done and judged: the code and its copy button."""
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    client = client_for(rater)
    done = reverse("campaign-done", args=[campaign.pk])
    assert "Look for more items" in client.get(done).content.decode()
    rate_all(campaign, rater)
    CampaignRater.objects.filter(campaign=campaign).update(qc_status=QCStatus.FAILED)
    page = client.get(done).content.decode()
    assert 'id="account-done"' in page and "completion-code" not in page
    CampaignRater.objects.filter(campaign=campaign).update(qc_status=QCStatus.PASSED)
    page = client.get(done).content.decode()
    code = campaigns_of_rater(rater=rater)[0].completion_code
    assert f'id="completion-code">{code}<' in page and 'data-copy="completion-code"' in page
