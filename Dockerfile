# The aw-harness container action. Published by .github/workflows/release.yml as ghcr.io/org/aw-harness:<version>
# (action.yml); built by the runner from this file when a workflow uses from-source/action.yml (forks).
#
# Runner facts it is shaped by (actions/runner ContainerActionHandler; docs "Dockerfile support"):
# - no USER: the action runs as the image's default user (root) so it can write the mounted
#   workspace; no WORKDIR in the final stage: the runner sets --workdir /github/workspace;
# - HOME is /github/home at run time, so git settings go to the system config, not ~/.gitconfig;
# - on cancel PID 1 gets SIGINT, then SIGTERM 7.5 s later: tini is PID 1 and forwards both to
#   Python, which handles them; the exec-form ENTRYPOINT never goes through /bin/sh (dash would
#   drop the INPUT_* variables whose names contain hyphens).
# Security (docs/security.md): the harness stays root, but the agent's tools run as the workspace's owner
# (uid 1001 on GitHub's runners), or as the unprivileged aw-agent user when the workspace is root's; no sudo.
# PYTHONSAFEPATH keeps the checked-out workspace (the working directory) off sys.path.

# ---- build: a virtual environment from the hash-locked requirements, then the package's wheel, built with
# hash-locked build dependencies (hatchling) and no build isolation, so nothing unpinned is fetched
FROM python:3.11.13-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /build
COPY requirements.lock requirements-build.lock /build/
RUN python -m venv /opt/aw \
    && /opt/aw/bin/pip install --no-cache-dir --require-hashes --only-binary=:all: -r /build/requirements.lock \
    && python -m venv /opt/build \
    && /opt/build/bin/pip install --no-cache-dir --require-hashes --only-binary=:all: -r /build/requirements-build.lock
COPY pyproject.toml README.md action.yml /build/src/
COPY aw_action /build/src/aw_action
RUN /opt/build/bin/pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /build/dist /build/src \
    && /opt/aw/bin/pip install --no-cache-dir --no-deps --no-index /build/dist/aw_harness-*.whl \
    && /opt/aw/bin/python -m compileall -q -j 0 /opt/aw/lib

# ---- runtime: Python plus the tools the agent's shell may use (git, gh, jq, ripgrep)
FROM python:3.11.13-slim-bookworm
LABEL org.opencontainers.image.title="aw-harness" \
      org.opencontainers.image.description="Runs one LLM agent session with hard token budgets, steering and observability."
# Debian's security updates replace package versions, so exact pins would break rebuilds.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git gh jq ripgrep tini \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*' \
    && useradd --system --no-log-init --create-home --home-dir /home/aw-agent --shell /bin/bash aw-agent
COPY --from=build /opt/aw /opt/aw
ENV PATH=/opt/aw/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONSAFEPATH=1 \
    AW_OUTPUT_DIR=/tmp/gh-aw
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/aw/bin/python", "-m", "aw_action", "action"]
