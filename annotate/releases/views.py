"""Pages for releases: freeze (owner), a release with its files, downloads, a diff, and the
reveal of a hidden split (of a release or of its dataset)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotate.datasets.models import SplitName
from annotate.datasets.selectors import (
    dataset_can_edit,
    dataset_get_editable,
    dataset_get_visible,
)
from annotate.releases.forms import ReleaseForm, UnratedChoiceForm
from annotate.releases.selectors.confirmations import (
    dataset_reveal_consequences,
    release_publish_consequences,
    release_reveal_consequences,
    release_unweighted_count,
)
from annotate.releases.selectors.content import release_content
from annotate.releases.selectors.diff import release_diff
from annotate.releases.selectors.releases import (
    release_can_see_hidden,
    release_file_names,
    release_file_sha256,
    release_find_visible,
    release_get_editable,
    release_get_visible,
    release_items,
    release_list_others,
    release_list_visible,
)
from annotate.releases.services import release_delete_draft, release_freeze
from annotate.releases.services.archive import release_archive_job, release_archive_ready
from annotate.releases.services.datasheet import datasheet_markdown
from annotate.releases.services.publish import (
    release_meta,
    release_publish_confirmed,
    release_publish_name,
)
from annotate.releases.services.reveal import dataset_reveal_split, release_reveal
from core.auth_request import AuthenticatedRequest
from core.forms import confirmation_page, confirmation_post, form_call
from core.http import stored_download
from core.refusals import succeeded

ITEMS_PER_PAGE = 20


@login_required
@require_http_methods(["GET", "POST"])
def release_new(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can freeze a release."
    )
    form = ReleaseForm(request.POST or None, dataset=dataset)
    if request.method == "POST" and form.is_valid():
        fields = form.cleaned_data
        release = form_call(
            form, release_freeze, dataset=dataset, created_by=request.user, **fields
        )
        if release is not None:
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
@require_http_methods(["GET", "POST"])
def release_publish_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = release_get_editable(user=request.user, slug=slug, version=version)
    if release.is_published:
        return redirect("release-detail", slug=slug, version=version)
    choice = UnratedChoiceForm(request.POST or None)
    answer = confirmation_post(
        request,
        release_publish_confirmed,
        release=release,
        unrated=request.POST.get("unrated", ""),
        success=f"Release {version} published; its archive is being built.",
    )
    if answer.done:
        return redirect("release-detail", slug=slug, version=version)
    return confirmation_page(
        request,
        answer,
        heading=f"Publish {slug} {version}",
        consequences=release_publish_consequences(release=release),
        expected=release_publish_name(release),
        action=request.path,
        button="Publish this release",
        cancel_url=reverse("release-detail", args=[slug, version]),
        extra_fields=choice.as_div() if release_unweighted_count(release=release) else "",
    )


@login_required
@require_http_methods(["GET", "POST"])
def release_reveal_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = release_get_editable(user=request.user, slug=slug, version=version)
    split = request.POST.get("split") or request.GET.get("split", "")
    answer = confirmation_post(
        request,
        release_reveal,
        release=release,
        by=request.user,
        split=split,
        success=f"The {split} references of {version} are now public.",
    )
    if answer.done:
        return redirect("release-detail", slug=slug, version=version)
    if split not in SplitName.values or split in release.public_splits:
        messages.error(request, answer.error or "Choose a hidden split to reveal.")
        return redirect("release-detail", slug=slug, version=version)
    return confirmation_page(
        request,
        answer,
        heading=f"Reveal the {split} split of {slug} {version}",
        consequences=release_reveal_consequences(release=release, split=split),
        expected=slug,
        action=request.path,
        button=f"Reveal the {split} split",
        cancel_url=reverse("release-detail", args=[slug, version]),
        hidden={"split": split},
    )


@login_required
@require_POST
def release_delete_view(request: AuthenticatedRequest, slug: str, version: str) -> HttpResponse:
    release = release_get_editable(user=request.user, slug=slug, version=version)
    if not succeeded(request, release_delete_draft, release=release):
        return redirect("release-detail", slug=slug, version=version)
    messages.success(request, f"Draft {version} deleted.")
    return redirect("dataset-detail", slug=slug)


def release_file(request: HttpRequest, slug: str, version: str, name: str) -> HttpResponseBase:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    if name not in release_file_names(release=release):
        raise Http404("No such file in this release.")
    sha256 = release_file_sha256(release=release, name=name)
    stored = release.storage_prefix + name
    return stored_download(request, stored, name, sha256=sha256, attachment=name != "README.md")


def release_archive(request: HttpRequest, slug: str, version: str) -> HttpResponseBase:
    release = release_get_visible(user=request.user, slug=slug, version=version)
    if not release_archive_ready(release=release):
        raise Http404("The archive is not built yet; download the files one by one meanwhile.")
    name = release.archive_name.rsplit("/")[-1]
    return stored_download(request, release.archive_name, name, sha256=release.archive_sha256)


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


@login_required
@require_http_methods(["GET", "POST"])
def dataset_reveal_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the owner can reveal a hidden split."
    )
    split = request.POST.get("split") or request.GET.get("split", "")
    answer = confirmation_post(
        request,
        dataset_reveal_split,
        dataset=dataset,
        split=split,
        by=request.user,
        success=f"The {split} references are now visible to everyone.",
    )
    if answer.done:
        return redirect("dataset-detail", slug=dataset.slug)
    if split not in SplitName.values:
        messages.error(request, answer.error or "Choose a hidden split to reveal.")
        return redirect("dataset-detail", slug=dataset.slug)
    # A name typed wrong, or a split that is not hidden: the page again, with the refusal.
    return confirmation_page(
        request,
        answer,
        heading=f"Reveal the {split} split of {dataset.slug}",
        consequences=dataset_reveal_consequences(dataset=dataset, split=split),
        expected=dataset.slug,
        action=request.path,
        button=f"Reveal the {split} split",
        cancel_url=reverse("dataset-detail", args=[dataset.slug]),
        hidden={"split": split},
    )
