"""Pages for releases: freeze (owner), a release with its files, downloads, and a diff."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.http import AuthenticatedRequest
from annotate.models import Release, SplitName
from annotate.release_forms import ReleaseForm
from annotate.selectors.datasets import dataset_can_edit, dataset_get_visible
from annotate.selectors.release_content import release_content
from annotate.selectors.release_diff import release_diff
from annotate.selectors.releases import (
    release_can_see_hidden,
    release_file_names,
    release_find_visible,
    release_get_visible,
    release_items,
    release_list_others,
    release_list_visible,
)
from annotate.services.releases import (
    release_delete_draft,
    release_freeze,
    release_publish,
)
from annotate.services.releases.archive import release_archive_job, release_archive_ready
from annotate.services.releases.datasheet import datasheet_markdown
from annotate.services.releases.publish import release_meta
from annotate.services.reveal import release_reveal
from core.forms import form_add_service_errors
from core.http import download_content_type

ITEMS_PER_PAGE = 20


def _editable(request: HttpRequest, slug: str, version: str) -> Release:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    if not dataset_can_edit(user=request.user, dataset=release.dataset):
        raise PermissionDenied("Only the dataset's owner can change its releases.")
    return release


@login_required
@require_http_methods(["GET", "POST"])
def release_new(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    if not dataset_can_edit(user=request.user, dataset=dataset):
        raise PermissionDenied("Only the dataset's owner can freeze a release.")
    form = ReleaseForm(request.POST or None, dataset=dataset)
    if request.method == "POST" and form.is_valid():
        try:
            release = release_freeze(dataset=dataset, created_by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form_add_service_errors(form, exc)
        else:
            messages.success(request, f"Release {release.version} frozen as a draft.")
            return redirect("release-detail", slug=slug, version=release.version)
    return render(request, "annotate/releases/new.html", {"dataset": dataset, "form": form})


def release_detail(request: HttpRequest, slug: str, version: str) -> HttpResponse:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    can_edit = dataset_can_edit(user=request.user, dataset=release.dataset)
    public_only = not release_can_see_hidden(user=request.user, release=release)
    if release.is_published:
        datasheet = default_storage.open(release.storage_prefix + "README.md").read().decode()
    else:  # a preview: the published datasheet will carry the publication date
        content = release_content(release=release, public_only=True)
        datasheet = datasheet_markdown(meta=release_meta(release=release), content=content)
    split = request.GET.get("split", "")
    split = split if split in SplitName.values else ""
    page = Paginator(release_items(release=release, split=split or None), ITEMS_PER_PAGE)
    context = {
        "release": release,
        "dataset": release.dataset,
        "can_edit": can_edit,
        "datasheet": datasheet,
        "show_hidden": not public_only,
        "hideable": [s for s in SplitName.values if s not in release.public_splits],
        "page": page.get_page(request.GET.get("page")),
        "split": split,
        "archive_ready": release_archive_ready(release=release),
        "archive_job": release_archive_job(release=release) if can_edit else None,
        "others": release_list_others(user=request.user, release=release),
    }
    return render(request, "annotate/releases/detail.html", context)


@login_required
@require_POST
def release_publish_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = _editable(request, slug, version)
    try:
        release_publish(release=release)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"Release {version} published; its archive is being built.")
    return redirect("release-detail", slug=slug, version=version)


@login_required
@require_POST
def release_reveal_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = _editable(request, slug, version)
    try:
        release_reveal(
            release=release,
            by=request.user,
            split=request.POST.get("split", ""),
            confirm=request.POST.get("confirm", ""),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("release-detail", slug=slug, version=version)


@login_required
@require_POST
def release_delete_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = _editable(request, slug, version)
    try:
        release_delete_draft(release=release)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("release-detail", slug=slug, version=version)
    messages.success(request, f"Draft {version} deleted.")
    return redirect("dataset-detail", slug=slug)


def release_file(request: HttpRequest, slug: str, version: str, name: str) -> FileResponse:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    if name not in release_file_names(release=release):
        raise Http404("No such file in this release.")
    stored = default_storage.open(release.storage_prefix + name, "rb")
    return FileResponse(
        stored,
        as_attachment=name != "README.md",
        filename=name,
        content_type=download_content_type(name),
    )


def release_archive(request: HttpRequest, slug: str, version: str) -> FileResponse:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    if not release_archive_ready(release=release):
        raise Http404("The archive is not built yet; download the files one by one meanwhile.")
    stored = default_storage.open(release.archive_name, "rb")
    name = release.archive_name.rsplit("/")[-1]
    return FileResponse(
        stored, as_attachment=True, filename=name, content_type=download_content_type(name)
    )


def release_diff_view(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    releases = release_list_visible(user=request.user, dataset=dataset)
    old, new = (
        release_find_visible(user=request.user, dataset=dataset, version=request.GET.get(key, ""))
        for key in ("old", "new")
    )
    diff = release_diff(user=request.user, old=old, new=new) if old and new else None
    context = {"dataset": dataset, "releases": releases, "diff": diff, "old": old, "new": new}
    return render(request, "annotate/releases/diff.html", context)
