# gpu-advisor: one image for the Slack bot (`gpu-advisor serve`) and the host agent
# (`gpu-advisor agent serve`). Secrets (Slack tokens, agent HMAC keys, the database password)
# come from the environment or compose/Kubernetes secrets at run time; none is in the image.
#
#   docker build -t gpu-advisor:0.1.0 .          (tag = the version in pyproject.toml)
#
# A normal (non-editable) install of the wheel: the shipped rules/ and knowledge/ travel inside
# the package (bot/_data/). A team's own folders are mounted and named by GPU_ADVISOR_RULES_DIR /
# GPU_ADVISOR_KNOWLEDGE_DIR.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY bot ./bot
COPY rules ./rules
COPY knowledge ./knowledge
RUN pip wheel --no-deps -w /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPU_ADVISOR_LOG_FORMAT=json \
    GPU_ADVISOR_DATABASE_URL=sqlite:////data/gpu-advisor.sqlite3

RUN useradd --create-home --uid 10001 advisor && mkdir -p /data && chown advisor:advisor /data

# Dependencies first (from pyproject.toml alone), so a code change does not reinstall them.
WORKDIR /tmp/deps
COPY pyproject.toml setup.py README.md ./
RUN mkdir bot rules knowledge && touch bot/__init__.py \
    && pip install . && pip uninstall -y gpu-advisor && cd / && rm -rf /tmp/deps
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels \
    && gpu-advisor --version && gpu-advisor rules lint >/dev/null

WORKDIR /data
VOLUME ["/data"]
USER advisor
# 9108: the bot's Prometheus /metrics; 8080: the bot's health endpoints (/healthz, /readyz);
# 3000: the bot's HTTP mode; 8700: the agent's API.
EXPOSE 9108 8080 3000 8700
# SIGTERM (docker stop, Kubernetes) stops the bot or agent gracefully; see docs/operations.md.
STOPSIGNAL SIGTERM
ENTRYPOINT ["gpu-advisor"]
CMD ["serve"]
