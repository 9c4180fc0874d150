# gpu-advisor: one image for the Slack bot (`gpu-advisor serve`) and the host agent
# (`gpu-advisor agent serve`). Secrets (Slack tokens, agent HMAC keys, the database password)
# come from the environment or compose/Kubernetes secrets at run time; none is in the image.
#
# The tag is the version in pyproject.toml.
#
# A normal (non-editable) install of the wheel: the shipped rules/ and knowledge/ travel inside
# the package (bot/_data/). A team's own folders are mounted and named by GPU_ADVISOR_RULES_DIR /
# GPU_ADVISOR_KNOWLEDGE_DIR.

# Three stages. `build` has a C compiler: durable-rules 2.0.28 is published as source only (its
# rule engine is a C extension), so every dependency is turned into a wheel there. The runtime
# stages install from those wheels only (`--no-index --only-binary=:all:`): no compiler, no
# build tools and no network in them, and a dependency that was not wheeled fails the build
# instead of compiling. tests/deploy/test_dockerfile.py checks these steps without Docker.
#
#   docker build -t gpu-advisor:0.3.0 .                              the bot and the agent (slim)
#   docker build --target agent-bench -t gpu-advisor-bench:0.3.0 .   the agent with torch (CUDA):
#                                                                     `check --bench` on that host

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc g++ libc6-dev \
    && rm -rf /var/lib/apt/lists/*
# Dependencies first (from pyproject.toml alone), so a code change does not rebuild them.
WORKDIR /tmp/deps
COPY pyproject.toml setup.py README.md ./
RUN mkdir bot rules knowledge && touch bot/__init__.py \
    && pip wheel --wheel-dir /wheels/deps . \
    && rm /wheels/deps/gpu_advisor-*.whl
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY bot ./bot
COPY rules ./rules
COPY knowledge ./knowledge
RUN pip wheel --no-deps --wheel-dir /wheels/app .

FROM python:3.11-slim AS runtime
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPU_ADVISOR_LOG_FORMAT=json \
    GPU_ADVISOR_DATABASE_URL=sqlite:////data/gpu-advisor.sqlite3

RUN useradd --create-home --uid 10001 advisor && mkdir -p /data && chown advisor:advisor /data

COPY --from=build /wheels/deps /wheels/deps
RUN pip install --no-index --only-binary=:all: --find-links /wheels/deps /wheels/deps/*.whl && rm -rf /wheels/deps
COPY --from=build /wheels/app /wheels/app
RUN pip install --no-index --only-binary=:all: --no-deps /wheels/app/*.whl && rm -rf /wheels/app \
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

# The agent with the benchmark extra (`pip install 'gpu-advisor[bench]'`: torch with CUDA, from
# PyPI; some 3 GB more than the slim image). Only GPU hosts that run `check --bench` need it.
FROM runtime AS agent-bench
USER root
COPY --from=build /wheels/app /wheels/app
# The local wheel with its extra (never a same-named package from the index); torch from PyPI.
RUN pip install "$(ls /wheels/app/gpu_advisor-*.whl)[bench]" && rm -rf /wheels/app \
    && python -c "import torch; print('torch', torch.__version__)"
USER advisor
CMD ["agent", "serve", "--host", "0.0.0.0", "--port", "8700"]

# The default target (last stage): the slim image of the bot and the agent.
FROM runtime AS bot
