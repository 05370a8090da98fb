"""What a rater's browser does on the rating pages, for tests that use Django's test client: a
GET only shows a page; joining a campaign and asking for an item are the POSTs those pages
send (their script sends them at once; without one, the rater presses the button)."""

from django.urls import reverse

from annotate.rating.models import Rating, RatingStatus


def join(client, campaign, crowd_id: str = "", **options):
    """Post the campaign link's form: as the logged-in user, or as a crowd participant."""
    url = reverse("campaign-join", args=[campaign.token])
    if crowd_id:
        return client.post(f"{url}?PROLIFIC_PID={crowd_id}", {"join_as": "crowd"}, **options)
    return client.post(url, **options)


def rate_page(client, campaign, **options):
    """Ask for an item, as the rate page's form does, and land where it leads."""
    return client.post(reverse("campaign-rate", args=[campaign.pk]), follow=True, **options)


def lease(client, campaign) -> Rating:
    """Ask for an item as the client's rater: the rating it leased them."""
    rate_page(client, campaign)
    return Rating.objects.get(status=RatingStatus.LEASED)


def answer(client, rating, data, **options):
    """Post the rate page's form for `rating`."""
    url = reverse("campaign-answer", args=[rating.campaign_id, rating.pk])
    return client.post(url, data, **options)
