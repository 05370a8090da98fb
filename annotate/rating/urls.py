from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.rating.views import campaign_dashboard, campaigns, lifecycle, rater, rating

# The owner's pages of one campaign.
manage = [
    path("", campaign_dashboard.campaign_dashboard, name="campaign-dashboard"),
    path("ratings.csv", campaign_dashboard.campaign_ratings_csv, name="campaign-ratings-csv"),
    path("ratings.jsonl", campaign_dashboard.campaign_ratings_jsonl, name="campaign-ratings-jsonl"),
    path("codes/", campaign_dashboard.campaign_codes, name="campaign-codes"),
    path("transition/", lifecycle.campaign_transition_view, name="campaign-transition"),
    path("assignment/", lifecycle.campaign_assignment_view, name="campaign-assignment"),
    path("delete/", lifecycle.campaign_delete_view, name="campaign-delete"),
]

# A rater's pages of one campaign.
rate = [
    path("rate/", rating.campaign_rate, name="campaign-rate"),
    path("rate/<id:rating_id>/", rating.campaign_answer, name="campaign-answer"),
    path("rate/<id:rating_id>/undo/", rater.campaign_undo, name="campaign-undo"),
    path("done/", rating.campaign_done, name="campaign-done"),
]

urlpatterns = [
    path("datasets/<slug:slug>/campaigns/new/", campaigns.campaign_new, name="campaign-new"),
    path("r/<str:token>/", campaigns.campaign_join_view, name="campaign-join"),
    path("campaigns/<id:campaign_id>/", include(manage + rate)),
    path("me/campaigns/", rater.my_campaigns, name="my-campaigns"),
]
