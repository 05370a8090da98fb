from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.http import Http404

from annotate.models import Job


def job_get_for_user(*, user: User | AnonymousUser, job_id: int) -> Job:
    """A job is visible to its owner and to staff; to anyone else it does not exist."""
    jobs = Job.objects.select_related("dataset")
    if not (user.is_authenticated and user.is_staff):
        if not user.is_authenticated:
            raise Http404("No such job.")
        jobs = jobs.filter(owner=user)
    try:
        return jobs.get(pk=job_id)
    except Job.DoesNotExist:
        raise Http404("No such job.") from None
