from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from annotate.views import accounts, datasets, mining
from deltableu.health import healthz

urlpatterns = [
    path("", datasets.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("datasets/new/", datasets.dataset_new, name="dataset-new"),
    path("datasets/<slug:slug>/", datasets.dataset_detail, name="dataset-detail"),
    path("datasets/<slug:slug>/import/", datasets.dataset_import_view, name="dataset-import"),
    path("datasets/<slug:slug>/export.jsonl", datasets.dataset_export, name="dataset-export"),
    path("datasets/<slug:slug>/mining/", mining.dataset_mining, name="dataset-mining"),
    path("datasets/<slug:slug>/mining/candidates/", mining.mined_review, name="mined-review"),
    path("corpora/", mining.corpus_list, name="corpus-list"),
    path("corpora/<int:corpus_id>/", mining.corpus_detail, name="corpus-detail"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", accounts.account, name="account"),
    path("accounts/token/", accounts.account_token, name="account-token"),
    path("accounts/invitations/", accounts.invitation_new, name="invitation-new"),
    path("invite/<str:token>/", accounts.signup, name="signup"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("annotate.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
