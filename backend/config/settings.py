"""Django settings for StreamGraph Studio.

Every deployment-specific value comes from the environment; the defaults suit local development.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BACKEND_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = BACKEND_DIR.parent
VAR_DIR = REPO_ROOT / "var"
VAR_DIR.mkdir(exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Production is the default; a developer opts into debug (`make run` does, and says so).
DEBUG = env_bool("DJANGO_DEBUG", default=False)


def _development_secret_key() -> str:
    """A random key of this checkout's own, kept in var/ so sessions survive restarts.

    Never a key written in the source: one that anybody can read signs anybody's cookies.
    """
    path = VAR_DIR / "dev-secret-key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()


SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set in the environment (a long random string, e.g. from "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`). For local "
            "development set DJANGO_DEBUG=true instead, as `make run` does."
        )
    SECRET_KEY = _development_secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")

# Pages of other origins ("https://studio.example.com:8443") a signed-in browser session may
# act from: Django's CSRF check and the websockets' Origin check both accept exactly these
# besides the request's own origin (its scheme, host and port).
CSRF_TRUSTED_ORIGINS = env_list("TRUSTED_ORIGINS", "")


def env_networks(name: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    networks = []
    for item in env_list(name, ""):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as error:
            raise ImproperlyConfigured(f"{name}: {item!r} is not an address or network") from error
    return tuple(networks)


# Reverse proxies in front of the server (addresses or networks, e.g. "10.0.0.0/8"). Only
# their X-Forwarded-For and X-Forwarded-Proto are believed (config/proxies.py); anyone else's
# are dropped, so a client cannot choose the address its sign-in attempts are counted under.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Served over HTTPS (directly or behind a trusted proxy): cookies only travel encrypted, and
# browsers are told to come back over HTTPS only (HSTS).
HTTPS = env_bool("HTTPS", default=False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and env_bool("HTTPS_REDIRECT", default=True)
SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "31536000")) if HTTPS else 0

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
    "channels",
    "config",  # project-wide management commands (`serve`)
    "audit",
    "accounts",
    "pipelines",
    "savepoints",
    "reviews",
    "runs",
]

MIDDLEWARE = [
    # First: everything after it sees the client's address and scheme, not a proxy's.
    "config.proxies.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_health_checks=True,
    ),
}
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # A pool of connections per process. Under ASGI every request's sync code runs on a
    # thread of its own, so a connection kept per thread (CONN_MAX_AGE) is never reused:
    # each request opened one (a fork and an authentication on the database's side), a
    # quarter of an API request's CPU. A pooled connection is checked when it is handed
    # out, so one the database dropped (a restart) is replaced, not served as an error.
    # DATABASE_POOL_SIZE bounds a process's connections; more requests at once wait.
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "pool": {
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "20")),
            "timeout": 30,
        },
    }
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL lets readers work during a write and makes a commit cost no fsync of the
    # main file; IMMEDIATE takes the write lock at BEGIN, so concurrent editors queue
    # instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
    # A file, not memory: tests start real server processes that must see the test data.
    # One per test process, so two test runs in one checkout do not share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
# Prefix of every name this project uses in Redis; empty: derived from the database
# (config/namespacing.py), so servers of different databases can share one Redis.
REDIS_NAMESPACE = os.environ.get("REDIS_NAMESPACE", "")

# Celery queues its tasks through the same Redis.
# Django's cache (used for the sign-in attempt counts) is Redis, so every process
# shares it; its keys are named under the namespace too.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_FUNCTION": "config.namespacing.cache_key",
    },
}

# Registrations, and failed sign-ins, per client address and minute (accounts/attempts.py).
AUTH_ATTEMPTS_PER_MINUTE = int(os.environ.get("AUTH_ATTEMPTS_PER_MINUTE", "20"))

CELERY_BROKER_URL = REDIS_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Runs are long: a worker reserves only what its threads execute (with `acks_late` on the
# task), so several workers sharing a runs queue each take the next run when free.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL]},
    },
}

# Runs (docs/RUNTIME.md). A Celery worker runs them on Spark (`spark`) or, for fast tests
# of everything around Spark, in its own process with the reference executor (`local`).
# Where runs execute is the operator's choice, never a user's (runtime/clusters.py): the
# `default` cluster's master, and more clusters by name, which owners may choose for a run.
SPARK_MASTER = os.environ.get("SPARK_MASTER", "").strip() or "local[*,3]"
try:
    SPARK_CLUSTERS: dict[str, object] = json.loads(os.environ.get("SPARK_CLUSTERS") or "{}")
except ValueError as error:
    raise ImproperlyConfigured(f"SPARK_CLUSTERS is not JSON: {error}") from error
if not isinstance(SPARK_CLUSTERS, dict):
    raise ImproperlyConfigured('SPARK_CLUSTERS must be an object: {"name": {"master": ...}}')
RUN_EVENTS_URL = os.environ.get("RUN_EVENTS_URL", "").strip() or REDIS_URL
"""The Redis that carries each run's channels: subtask events from Spark's driver and
executors to the run's worker, cancel requests from the server to it. `rediss://` is TLS
(`?ssl_ca_certs=/path/ca.pem` for a private CA), `redis://:password@host:6379/0` (or
`user:password@`) authenticates. Every server and worker process uses it; a cluster
profile's `eventsUrl` names the same Redis as that cluster's executors reach it."""
RUN_MAX_PARALLELISM = int(os.environ.get("RUN_MAX_PARALLELISM", "128"))
"""The highest parallelism of any vertex of a run (a cluster may set its own)."""
RUN_MAX_SUBTASKS = int(os.environ.get("RUN_MAX_SUBTASKS", "2048"))
"""The most subtasks of one run, all vertices together (a cluster may set its own)."""
RUN_EXECUTOR = os.environ.get("RUN_EXECUTOR", "spark").strip()
if RUN_EXECUTOR not in {"spark", "local"}:
    raise ImproperlyConfigured(f"RUN_EXECUTOR must be 'spark' or 'local', not {RUN_EXECUTOR!r}.")
RUN_SPARK_SQL = env_bool("RUN_SPARK_SQL", True)
"""Run as Spark SQL the vertices whose chains translate (runtime/spark/sqlpath.py); off,
every vertex runs its Python chain."""
RUNTIME_DATA_DIR = Path(os.environ.get("RUNTIME_DATA_DIR", str(VAR_DIR / "data")))
"""The server's data folder: the data location of runs unless `RUNTIME_DATA_URI` names
another."""
RUNTIME_DATA_URI = os.environ.get("RUNTIME_DATA_URI", "").strip()
"""Where runs read and write files (runtime/storage.py): a base URI, `file:` (a folder of
this host, or a shared mount every host of a cluster sees at the same path) or any scheme
Spark's Hadoop file systems reach (`hdfs://namenode:8020/studio`, `s3a://bucket/studio`),
each workspace in a folder of its own below it, `workspaces/<id>/`, to which the paths of
its documents are relative (runs/data_folders.py). Empty: `file:` and `RUNTIME_DATA_DIR`.
A cluster profile may name its own (`dataUri` in `SPARK_CLUSTERS`)."""
RUNTIME_CACHE_DIR = Path(os.environ.get("RUNTIME_CACHE_DIR", str(VAR_DIR / "cache")))
"""What runs build once and reuse: the zip of the code Spark ships to executors, in
`spark-code/` below it, one file per code version (runtime/shipping.py)."""
RUN_QUEUE = os.environ.get("RUN_QUEUE", "")
"""The Celery queue of the default cluster's runs, and the prefix of the others' (`.<name>`);
empty: `<namespace>.runs` (`runs.tasks.run_queue`), so a worker only takes runs of the
database it serves."""
RUN_WORKER_CONCURRENCY = int(os.environ.get("RUN_WORKER_CONCURRENCY", "2"))
"""Runs one worker process executes at once, sharing its one Spark session (each worker
process serves one cluster)."""
RUN_SOFT_TIME_LIMIT = int(os.environ.get("RUN_SOFT_TIME_LIMIT", "3600"))
"""Seconds a run may take; then it is cancelled and fails."""
RUN_TIME_LIMIT = int(os.environ.get("RUN_TIME_LIMIT", "3660"))
"""Seconds after which a run's worker gives up on it even if Spark did not stop."""
RUN_HEARTBEAT_SECONDS = float(os.environ.get("RUN_HEARTBEAT_SECONDS", "5"))
RUN_HEARTBEAT_TIMEOUT = float(os.environ.get("RUN_HEARTBEAT_TIMEOUT", "15"))
"""A run whose worker has not beaten for this long is FAILED (lost worker)."""
RUN_FAULT_INJECTION = env_bool("RUN_FAULT_INJECTION", default=False)
"""Lets a run's parameters make chosen subtasks fail (tests only)."""

# Request and document limits. A larger request body is refused (Django reads at most
# this much; DRF's JSON parser goes through it) with the API's `document-too-large` error.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MAX_REQUEST_BYTES", str(5 * 1024 * 1024)))
# A stored document stays small enough to be sent back in one request, with room for the
# request's other fields; websocket edits are held to it too (pipelines/editing.py).
PIPELINE_MAX_DOCUMENT_BYTES = int(
    os.environ.get("PIPELINE_MAX_DOCUMENT_BYTES", str(DATA_UPLOAD_MAX_MEMORY_SIZE - 64 * 1024))
)
SAVEPOINT_MAX_BYTES = int(os.environ.get("SAVEPOINT_MAX_BYTES", str(64 * 1024 * 1024)))
"""The largest savepoint `_metadata` file a pipeline takes (an upload is read up to this)."""
RESCALES_PER_MINUTE = int(os.environ.get("RESCALES_PER_MINUTE", "120"))
"""Rescale simulations a user may ask for in a minute (`pipelines.rates`)."""
SOCKET_RESYNCS_PER_MINUTE = int(os.environ.get("SOCKET_RESYNCS_PER_MINUTE", "30"))
"""Fresh snapshots a user may ask their sockets for in a minute (`pipelines.rates`)."""
API_TOKEN_MAX_AGE_SECONDS = int(os.environ.get("API_TOKEN_MAX_AGE_SECONDS", str(30 * 24 * 3600)))
"""An API token's life from signing in; then the client signs in again for a new one."""
SOCKET_TICKET_SECONDS = int(os.environ.get("SOCKET_TICKET_SECONDS", "60"))
"""How long a websocket ticket (`POST /api/auth/socket-ticket/`) may wait to be used."""
SAVEPOINTS_PER_PIPELINE = int(os.environ.get("SAVEPOINTS_PER_PIPELINE", "50"))
"""Savepoints a pipeline keeps at most: an upload past it is refused until one is deleted."""
SAVEPOINT_BYTES_PER_WORKSPACE = int(
    os.environ.get("SAVEPOINT_BYTES_PER_WORKSPACE", str(1024 * 1024 * 1024))
)
"""Bytes of savepoint files all pipelines of a workspace keep together, at most."""
MAX_REQUEST_BODY_BYTES = max(DATA_UPLOAD_MAX_MEMORY_SIZE, SAVEPOINT_MAX_BYTES) + 1024 * 1024
"""No request body is read past this, whatever the endpoint (`config.body_limit`): each
endpoint holds its own body to its own limit below it; this bounds what reaches the disk
before any of them looks."""
PIPELINE_MAX_NODES = int(os.environ.get("PIPELINE_MAX_NODES", "5000"))
PIPELINE_SNAPSHOT_EDITS = int(os.environ.get("PIPELINE_SNAPSHOT_EDITS", "50"))
"""A co-editing edit stores its operation, not the document; every this many edits (more
for a large document, below) the working copy is stored whole again, so that reading it
replays only that many."""
PIPELINE_SNAPSHOT_BYTES_PER_EDIT = int(os.environ.get("PIPELINE_SNAPSHOT_BYTES_PER_EDIT", "4096"))
"""A document of N bytes is stored whole every N / this many edits (within
`PIPELINE_SNAPSHOT_EDITS` and `PIPELINE_SNAPSHOT_MAX_EDITS`): what its snapshots cost each
edit then stays the same whatever its size (a megabyte, 5,000 operators, is written every
256 edits; writing it takes tens of milliseconds)."""
PIPELINE_SNAPSHOT_MAX_EDITS = int(os.environ.get("PIPELINE_SNAPSHOT_MAX_EDITS", "500"))
"""The most edits a working copy's reading replays."""
PIPELINE_EDITS_KEPT = max(1, int(os.environ.get("PIPELINE_EDITS_KEPT", "1000")))
"""When a working copy is stored whole, the operations of more than this many revisions
before it are deleted: reading it no longer needs them, and only a client that far behind
would rebase onto them (it reloads instead)."""
LIVE_MODEL_CACHE_BYTES = int(os.environ.get("LIVE_MODEL_CACHE_BYTES", str(16 * 1024 * 1024)))
"""The documents of the working copies each server process keeps parsed and compiled
(`pipelines.editing`), in JSON bytes, at most (their models take about 20 times that)."""
# A websocket message the consumers read at most (an edit may carry a node or a value as
# large as a document); uvicorn closes the connection only beyond twice this.
WEBSOCKET_MAX_MESSAGE_BYTES = PIPELINE_MAX_DOCUMENT_BYTES + 64 * 1024
PIPELINE_MAX_EDGES = int(os.environ.get("PIPELINE_MAX_EDGES", "20000"))

REST_FRAMEWORK = {
    # Token first: its `WWW-Authenticate` header makes anonymous requests 401, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "StreamGraph Studio API",
    "DESCRIPTION": (
        "Workspaces, pipelines (streamgraph/v1 working copies), immutable versions, "
        "compiled Flink 2.3 plans and plan diffs, runs on Spark. Authenticate with "
        "`Authorization: Token <token>` (from `POST /api/auth/token/`) or a session. "
        'Every error is `{"error": {"code", "message", "diagnostics", "fields"}}`.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH body is the serializer the view reads, required fields included: what the
    # schema says a request needs is what the server needs.
    "COMPONENT_SPLIT_PATCH": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.close_request_bodies",
    ],
    # `<id:...>` (config/converters.py): what a 64-bit database integer holds.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    # Choice sets that bodies and requests share under one field name, named once.
    "ENUM_NAME_OVERRIDES": {
        "AnchorKind": "compiler.anchors.ANCHOR_KINDS",
        "DiagnosticSeverity": "config.openapi.DIAGNOSTIC_SEVERITIES",
        "RescaleProblemSeverity": "compiler.rescale.PROBLEM_SEVERITIES",
    },
}

# Tests' server processes share the test database, and its users' fast test hashes.
if os.environ.get("PASSWORD_HASHERS"):
    PASSWORD_HASHERS = env_list("PASSWORD_HASHERS", "")

# Django's password check with the sign-in attempt limit in front of it (every login page).
AUTHENTICATION_BACKENDS = ["accounts.backends.LimitedModelBackend"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# The built browser app (`npm run build`), served at `/` by `config/frontend.py`.
FRONTEND_DIST_DIR = Path(os.environ.get("FRONTEND_DIST_DIR", str(REPO_ROOT / "frontend" / "dist")))

# The admin's and the browsable API's own CSS and scripts, served by WhiteNoise from
# the apps' folders (its finders), or from STATIC_ROOT after `collectstatic` (the image).
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # empty until collectstatic; WhiteNoise wants it there
WHITENOISE_USE_FINDERS = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
