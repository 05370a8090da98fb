from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.api import (
    campaign_quality,
    campaigns,
    judgments,
    mining,
    output_campaigns,
    releases,
    views,
)
from core.token_view import GuardedObtainAuthToken

urlpatterns = [
    path("auth/token/", GuardedObtainAuthToken.as_view(), name="api-token"),
    path("me/", views.MeApi.as_view(), name="api-me"),
    path("datasets/", views.DatasetListApi.as_view(), name="api-datasets"),
    path("datasets/<slug:slug>/", views.DatasetDetailApi.as_view(), name="api-dataset"),
    path("datasets/<slug:slug>/items/", views.DatasetItemsApi.as_view(), name="api-dataset-items"),
    path(
        "datasets/<slug:slug>/import/", views.DatasetImportApi.as_view(), name="api-dataset-import"
    ),
    path(
        "datasets/<slug:slug>/export/", views.DatasetExportApi.as_view(), name="api-dataset-export"
    ),
    path(
        "datasets/<slug:slug>/reveal/", views.DatasetRevealApi.as_view(), name="api-dataset-reveal"
    ),
    path(
        "datasets/<slug:slug>/judgments/",
        judgments.JudgmentImportApi.as_view(),
        name="api-judgments-import",
    ),
    path(
        "judgments/<id:judgment_set_id>/",
        judgments.JudgmentSetDetailApi.as_view(),
        name="api-judgment-set",
    ),
    path(
        "datasets/<slug:slug>/output-campaigns/",
        output_campaigns.OutputCampaignListApi.as_view(),
        name="api-output-campaigns",
    ),
    path(
        "output-campaigns/join/",
        output_campaigns.OutputCampaignJoinApi.as_view(),
        name="api-output-campaign-join",
    ),
    path(
        "output-campaigns/<id:campaign_id>/next/",
        output_campaigns.OutputCampaignNextApi.as_view(),
        name="api-output-campaign-next",
    ),
    path(
        "output-campaigns/<id:campaign_id>/ratings/<id:rating_id>/",
        output_campaigns.OutputRatingAnswerApi.as_view(),
        name="api-output-rating",
    ),
    path(
        "output-campaigns/<id:campaign_id>/progress/",
        output_campaigns.OutputCampaignProgressApi.as_view(),
        name="api-output-campaign-progress",
    ),
    path(
        "output-campaigns/<id:campaign_id>/my-progress/",
        output_campaigns.OutputRaterProgressApi.as_view(),
        name="api-output-rater-progress",
    ),
    path("datasets/<slug:slug>/releases/", releases.ReleaseListApi.as_view(), name="api-releases"),
    path(
        "datasets/<slug:slug>/releases/diff/",
        releases.ReleaseDiffApi.as_view(),
        name="api-release-diff",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/",
        releases.ReleaseDetailApi.as_view(),
        name="api-release",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/publish/",
        releases.ReleasePublishApi.as_view(),
        name="api-release-publish",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/reveal/",
        releases.ReleaseRevealApi.as_view(),
        name="api-release-reveal",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/manifest/",
        releases.ReleaseManifestApi.as_view(),
        name="api-release-manifest",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/archive/",
        releases.ReleaseArchiveApi.as_view(),
        name="api-release-archive",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/files/<str:name>",
        releases.ReleaseFileApi.as_view(),
        name="api-release-file",
    ),
    path("releases/import/", releases.ReleaseImportApi.as_view(), name="api-release-import"),
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/join/", campaigns.CampaignJoinApi.as_view(), name="api-campaign-join"),
    path("campaigns/<id:campaign_id>/", campaigns.CampaignDetailApi.as_view(), name="api-campaign"),
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
        "campaigns/<id:campaign_id>/weights/",
        campaign_quality.CampaignWeightsApi.as_view(),
        name="api-campaign-weights",
    ),
    path("ratings/<id:rating_id>/", campaigns.RatingAnswerApi.as_view(), name="api-rating"),
    path("datasets/<slug:slug>/mining/", mining.MiningApi.as_view(), name="api-mining"),
    path(
        "datasets/<slug:slug>/mining/candidates/",
        mining.CandidateListApi.as_view(),
        name="api-mined-candidates",
    ),
    path(
        "datasets/<slug:slug>/mining/candidates/<id:reference_id>/",
        mining.CandidateDetailApi.as_view(),
        name="api-mined-candidate",
    ),
    path("corpora/", mining.CorpusListApi.as_view(), name="api-corpora"),
    path("corpora/<id:corpus_id>/", mining.CorpusDetailApi.as_view(), name="api-corpus"),
]
