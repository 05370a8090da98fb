from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.rating.api import campaign_lifecycle, campaign_quality, campaigns, rater

urlpatterns = [
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/join/", campaigns.CampaignJoinApi.as_view(), name="api-campaign-join"),
    path("campaigns/<id:campaign_id>/", campaigns.CampaignDetailApi.as_view(), name="api-campaign"),
    path(
        "campaigns/<id:campaign_id>/transition/",
        campaign_lifecycle.CampaignTransitionApi.as_view(),
        name="api-campaign-transition",
    ),
    path(
        "campaigns/<id:campaign_id>/delete/",
        campaign_lifecycle.CampaignDeleteApi.as_view(),
        name="api-campaign-delete",
    ),
    path(
        "campaigns/<id:campaign_id>/next/",
        campaigns.CampaignNextApi.as_view(),
        name="api-campaign-next",
    ),
    path(
        "campaigns/<id:campaign_id>/progress/",
        campaigns.CampaignProgressApi.as_view(),
        name="api-campaign-progress",
    ),
    path(
        "campaigns/<id:campaign_id>/ratings/",
        campaign_quality.CampaignRatingsExportApi.as_view(),
        name="api-campaign-ratings",
    ),
    path(
        "campaigns/<id:campaign_id>/quality/",
        campaign_quality.CampaignQualityApi.as_view(),
        name="api-campaign-quality",
    ),
    path(
        "campaigns/<id:campaign_id>/results/",
        campaign_quality.CampaignResultsApi.as_view(),
        name="api-campaign-results",
    ),
    path(
        "campaigns/<id:campaign_id>/weights/",
        campaign_quality.CampaignWeightsApi.as_view(),
        name="api-campaign-weights",
    ),
    path("ratings/<id:rating_id>/", campaigns.RatingAnswerApi.as_view(), name="api-rating"),
    path("ratings/<id:rating_id>/undo/", rater.RatingUndoApi.as_view(), name="api-rating-undo"),
    path("me/campaigns/", rater.MyCampaignsApi.as_view(), name="api-my-campaigns"),
]
