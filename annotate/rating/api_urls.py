from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.rating.api import campaign_lifecycle, campaign_quality, campaigns, rater
from annotate.rating.api.completion_codes import CampaignCompletionCodesApi

# What the owner does with one campaign (and its raters' next item and progress).
campaign = [
    path("", campaigns.CampaignDetailApi.as_view(), name="api-campaign"),
    path(
        "transition/",
        campaign_lifecycle.CampaignTransitionApi.as_view(),
        name="api-campaign-transition",
    ),
    path("delete/", campaign_lifecycle.CampaignDeleteApi.as_view(), name="api-campaign-delete"),
    path("next/", campaigns.CampaignNextApi.as_view(), name="api-campaign-next"),
    path("progress/", campaigns.CampaignProgressApi.as_view(), name="api-campaign-progress"),
    path(
        "ratings/", campaign_quality.CampaignRatingsExportApi.as_view(), name="api-campaign-ratings"
    ),
    path("quality/", campaign_quality.CampaignQualityApi.as_view(), name="api-campaign-quality"),
    path("results/", campaign_quality.CampaignResultsApi.as_view(), name="api-campaign-results"),
    path("weights/", campaign_quality.CampaignWeightsApi.as_view(), name="api-campaign-weights"),
    path("completion-codes/", CampaignCompletionCodesApi.as_view(), name="api-campaign-codes"),
]

urlpatterns = [
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/join/", campaigns.CampaignJoinApi.as_view(), name="api-campaign-join"),
    path("campaigns/<id:campaign_id>/", include(campaign)),
    path("ratings/<id:rating_id>/", campaigns.RatingAnswerApi.as_view(), name="api-rating"),
    path("ratings/<id:rating_id>/undo/", rater.RatingUndoApi.as_view(), name="api-rating-undo"),
    path("me/campaigns/", rater.MyCampaignsApi.as_view(), name="api-my-campaigns"),
]
