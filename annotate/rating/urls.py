from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.rating.views import campaign_dashboard, campaigns, lifecycle, rater, rating

urlpatterns = [
    path("datasets/<slug:slug>/campaigns/new/", campaigns.campaign_new, name="campaign-new"),
    path("r/<str:token>/", campaigns.campaign_join_view, name="campaign-join"),
    path(
        "campaigns/<id:campaign_id>/",
        campaign_dashboard.campaign_dashboard,
        name="campaign-dashboard",
    ),
    path(
        "campaigns/<id:campaign_id>/ratings.csv",
        campaign_dashboard.campaign_ratings_csv,
        name="campaign-ratings-csv",
    ),
    path(
        "campaigns/<id:campaign_id>/ratings.jsonl",
        campaign_dashboard.campaign_ratings_jsonl,
        name="campaign-ratings-jsonl",
    ),
    path(
        "campaigns/<id:campaign_id>/transition/",
        lifecycle.campaign_transition_view,
        name="campaign-transition",
    ),
    path(
        "campaigns/<id:campaign_id>/assignment/",
        lifecycle.campaign_assignment_view,
        name="campaign-assignment",
    ),
    path(
        "campaigns/<id:campaign_id>/delete/",
        lifecycle.campaign_delete_view,
        name="campaign-delete",
    ),
    path("campaigns/<id:campaign_id>/rate/", rating.campaign_rate, name="campaign-rate"),
    path(
        "campaigns/<id:campaign_id>/rate/<id:rating_id>/",
        rating.campaign_answer,
        name="campaign-answer",
    ),
    path(
        "campaigns/<id:campaign_id>/rate/<id:rating_id>/undo/",
        rater.campaign_undo,
        name="campaign-undo",
    ),
    path("campaigns/<id:campaign_id>/done/", rating.campaign_done, name="campaign-done"),
    path("me/campaigns/", rater.my_campaigns, name="my-campaigns"),
]
