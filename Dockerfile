# gpu-advisor: one image for the Slack bot (`gpu-advisor serve`) and the host agent
# (`gpu-advisor agent serve`). Secrets (Slack tokens, agent HMAC keys, the database password)
# come from the environment or compose/Kubernetes secrets at run time; none is in the image.
#
#   docker build -t gpu-advisor:latest .
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPU_ADVISOR_LOG_FORMAT=json \
    GPU_ADVISOR_DATABASE_URL=sqlite:////data/gpu-advisor.sqlite3

RUN useradd --create-home --uid 10001 advisor && mkdir -p /data && chown advisor:advisor /data

WORKDIR /app
# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml README.md* ./
RUN mkdir bot && touch bot/__init__.py && pip install . && pip uninstall -y gpu-advisor && rm -rf bot build *.egg-info
# The project installed in place: rules/ and knowledge/ are data read (and reloaded) at run time
# from beside the package, so they stay in /app rather than inside site-packages.
COPY bot ./bot
COPY rules ./rules
COPY knowledge ./knowledge
RUN pip install --no-deps -e . && python -c "import bot.cli; bot.cli.build_parser()"

VOLUME ["/data"]
USER advisor
# 9108: the bot's Prometheus /metrics; 8700: the agent's API.
EXPOSE 9108 8700
ENTRYPOINT ["gpu-advisor"]
CMD ["serve"]
