"""The object store's one write of its own: its bucket, made once when a deployment starts."""

from __future__ import annotations

from botocore.exceptions import ClientError
from django.conf import settings
from django.core.files.storage import storages
from storages.backends.s3 import S3Storage

# What S3-protocol servers answer HEAD of a bucket that does not exist (AWS: "404").
MISSING_BUCKET = ("404", "NoSuchBucket")


def storage_bucket_ensure() -> str:
    """Create the S3 bucket of STORAGE_BACKEND=s3 unless it exists; say what was done. The
    compose file's one-shot `s3-bucket` service calls it before any process writes a file;
    against a store whose bucket an operator made (AWS S3, say) it only checks the bucket."""
    storage = storages["default"]
    if not isinstance(storage, S3Storage):
        return f"Files are kept on this machine's disk ({settings.MEDIA_ROOT}): no bucket to make."
    bucket = storage.bucket
    try:
        bucket.meta.client.head_bucket(Bucket=bucket.name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in MISSING_BUCKET:
            raise  # a wrong key or a forbidden bucket: said as the store says it
        bucket.create()
        return f"Bucket {bucket.name} created."
    return f"Bucket {bucket.name} exists."
