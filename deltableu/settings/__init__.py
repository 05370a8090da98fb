"""Settings, read from the environment (see docker/.env.example for every variable).

With nothing set, the project runs embedded: SQLite and a file-system Celery broker under var/.
Production sets DATABASE_URL, CELERY_BROKER_URL, SECRET_KEY, DEBUG=False and ALLOWED_HOSTS.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE as CSP_NONCE
from csp.constants import NONE as CSP_NONE
from csp.constants import SELF as CSP_SELF
from django.core.exceptions import ImproperlyConfigured

from deltableu.env import env_bool, env_int, env_list, env_str
from deltableu.settings.paths import BASE_DIR, VAR_DIR

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    key = env_str("SECRET_KEY", "")
    if key:
        return key
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is False.")
    # A development key made once per checkout and kept out of git, so no default key is
    # ever committed and sessions survive restarts of `make run`.
    key_file = VAR_DIR / "dev-secret-key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_results",
    "django_celery_beat",
    "axes",
    "csp",
    "core.runs",
    "core.storage",
    # Annotation, one app per capability, each depending only on those above it.
    "annotate.accounts",
    "annotate.datasets",
    "annotate.mining",
    "annotate.judgments",
    "annotate.rating",
    "annotate.releases",
    # Scoring: leaderboards, then studies (which read leaderboards' submissions).
    "scoring.leaderboards",
    "scoring.study",
    # The demo: a finished story built through every app's services (`load_demo`).
    "scoring.demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.http.RejectMalformedRequestMiddleware",
    "core.http.PageMethodsMiddleware",
    "core.http.CharsetMiddleware",
    "core.http.NotFoundMiddleware",
    "core.database_busy.DatabaseBusyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.http.SlashAppendingMiddleware",  # Django's CommonMiddleware, writes kept
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a lockout into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "deltableu.urls"
WSGI_APPLICATION = "deltableu.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # Charts from core.plots on any page: {% load charts %}{% chart spec %}.
            "libraries": {"charts": "core.chart_tags"},
        },
    },
]

# --- Database ------------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the worker write to one file: WAL lets readers go on during a write,
    # IMMEDIATE transactions take the write lock up front instead of failing on upgrade, and
    # the threads of one process take it in turn rather than by SQLite's polling (core.sqlite).
    DATABASES["default"]["ENGINE"] = "core.sqlite"
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # A file, not memory, so that a Celery worker started by the tests sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"

# Password, token and invitation guessing: django-axes locks a (username, address) pair out
# after LOGIN_FAILURE_LIMIT failures for LOGIN_LOCKOUT_MINUTES. Per pair, so that nobody can
# lock a victim out from elsewhere; attempts are kept in the database (admin: Access attempts).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.throttling.client_address"
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_VERBOSE = False
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Files ---------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Uploads, reference indexes, statistics and releases: on this machine's disk (MEDIA_ROOT) by
# default; on S3-compatible object storage, which every web and worker machine reads, with
# STORAGE_BACKEND=s3 (django-storages). Names are never overwritten on either (a taken name
# gets a suffix), so the code behaves the same on both.
STORAGE_BACKEND = env_str("STORAGE_BACKEND", "local")
if STORAGE_BACKEND not in ("local", "s3"):
    raise ImproperlyConfigured("STORAGE_BACKEND must be local or s3.")
DEFAULT_STORAGE: dict = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
if STORAGE_BACKEND == "s3":
    DEFAULT_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("S3_BUCKET", ""),
            "endpoint_url": env_str("S3_ENDPOINT_URL", "") or None,
            "region_name": env_str("S3_REGION", "") or None,
            "access_key": env_str("S3_ACCESS_KEY_ID", "") or None,
            "secret_key": env_str("S3_SECRET_ACCESS_KEY", "") or None,
            "location": env_str("S3_PREFIX", ""),
            "file_overwrite": False,
            "default_acl": None,
            "querystring_auth": True,
        },
    }
    if not DEFAULT_STORAGE["OPTIONS"]["bucket_name"]:
        raise ImproperlyConfigured("STORAGE_BACKEND=s3 needs S3_BUCKET.")
STORAGES = {
    "default": DEFAULT_STORAGE,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 50 * 1024 * 1024)
# Corpora uploaded through the web; larger ones are added by staff with `manage.py corpus_add`.
CORPUS_MAX_BYTES = env_int("CORPUS_MAX_BYTES", 500 * 1024 * 1024)
# Caps on what compressed input may inflate to (core/bounded.py), checked while streaming: a
# release archive's total and entry count, any zip or gzip stream's inflated/compressed ratio
# (text compresses about 4:1; a bomb of zeros 1000:1), any text line, a gzipped corpus's total.
# An import holds the release in memory while it rebuilds it (about 4 MB of RAM and 0.3 s per
# MiB inflated): 64 MiB is a release of some 20,000 items with 5 references each.
ARCHIVE_MAX_INFLATED_BYTES = env_int("ARCHIVE_MAX_INFLATED_BYTES", 64 * 1024 * 1024)
ARCHIVE_MAX_ENTRIES = env_int("ARCHIVE_MAX_ENTRIES", 1000)
ARCHIVE_MAX_RATIO = env_int("ARCHIVE_MAX_RATIO", 100)
UPLOAD_MAX_LINE_BYTES = env_int("UPLOAD_MAX_LINE_BYTES", 1024 * 1024)
CORPUS_MAX_INFLATED_BYTES = env_int("CORPUS_MAX_INFLATED_BYTES", 32 * 1024 * 1024 * 1024)

# --- Security (check --deploy is clean when DEBUG is False) ----------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
# Preloading is hard to undo (browsers ship the list), so it is an explicit opt-in.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Django's deploy check asks for preload (W021); leaving it off is this project's decision.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
# Probes inside a container speak plain HTTP to /healthz.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# Proxies in front of the application that append the client's address to X-Forwarded-For
# (0: the address the connection comes from is the client's; the header is never believed).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

# --- REST API --------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "core.guessing.GuardedTokenAuthentication",
    ],
    # Closed by default: an endpoint that forgets to say is for signed-in users only. The
    # public reads (visible datasets, releases and boards) say IsAuthenticatedOrReadOnly.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.AnonThrottle", "core.throttling.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "120/minute"),
        "user": env_str("API_THROTTLE_USER", "1200/minute"),
    },
    # Strict JSON bodies (no NaN, NUL, lone surrogates, duplicate keys or deep nesting).
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # An unknown `?format=` is a 406 naming the formats there are (DRF's own is a 404).
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.FormatNamingNegotiation",
    "DEFAULT_SCHEMA_CLASS": "core.api.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
# Content-Security-Policy on every page: our own scripts, styles, images and fonts only (no
# CDN); an inline script or style needs the request's nonce. The API docs pages also allow
# inline styles, which ReDoc and Swagger UI inject at run time (deltableu/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [CSP_SELF],
        "script-src": [CSP_SELF, CSP_NONCE],
        "style-src": [CSP_SELF, CSP_NONCE],
        "img-src": [CSP_SELF, "data:"],
        "font-src": [CSP_SELF],
        "connect-src": [CSP_SELF],
        "worker-src": [CSP_SELF, "blob:"],
        "object-src": [CSP_NONE],
        "base-uri": [CSP_SELF],
        "form-action": [CSP_SELF],
        "frame-ancestors": [CSP_NONE],
    }
}

SPECTACULAR_SETTINGS = {
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "deltableu.openapi.add_error_responses",
    ],
    "TITLE": "DeltaBLEU Studio API",
    "DESCRIPTION": (
        "Datasets of conversations with candidate references rated by people, and the "
        "discriminative BLEU scoring built on them. Authenticate with a session or with "
        "`Authorization: Token <key>` (get a key on your account page or from /api/v1/auth/token/)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # ReDoc's own fonts come from a CDN by default: the system's sans-serif instead.
    "REDOC_UI_SETTINGS": {
        "theme": {
            "typography": {
                "fontFamily": "system-ui, sans-serif",
                "headings": {"fontFamily": "system-ui, sans-serif"},
            }
        }
    },
    # One name per choice set, where fields of the same name hold different choices.
    "ENUM_NAME_OVERRIDES": {
        "SplitEnum": "annotate.datasets.models.SplitName",
        "ImportFormatEnum": ["jsonl", "tsv"],
        "SubmissionFormatEnum": ["", "text", "jsonl"],
        # A campaign's status is in two components (a campaign, a rater's campaign).
        "CampaignStatusEnum": "annotate.rating.models.CampaignStatus",
        # Every run's state (runs, studies, submissions' `state`) is one enum; a submission's
        # deprecated `status` keeps its own, with "finished" for "succeeded".
        "RunStateEnum": "core.runs.models.RunState",
        "SubmissionStatusEnum": "scoring.leaderboards.models.SubmissionStatus",
    },
}

# --- Long work: Celery, the run engine, scoring and studies (deltableu/settings/work.py) ----
from deltableu.settings.work import *  # noqa: E402, F403

CELERY_TIMEZONE = TIME_ZONE

LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}
