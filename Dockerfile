# Cardroom: one `cardroom serve` process. docker-compose.yml runs two of them on one Redis.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app

# Dependencies first, from the lock (pinned, hashed, wheels only; the build's setuptools and mypy
# among them), so editing the code does not reinstall them.
COPY requirements/run.txt requirements/run.txt
RUN pip install --no-cache-dir --require-hashes --no-deps --only-binary :all: -r requirements/run.txt
COPY pyproject.toml setup.py mypyc.ini README.md ./
COPY protocol protocol
COPY server server
COPY clients clients
# Editable: the server finds the web client's files beside its own code (clients/web).
# Compiled once here: PYTHONDONTWRITEBYTECODE keeps the image read-only, so without this every
# start compiled the code again (0.15-0.3 s of a start's 0.6-0.9 s of CPU on the two-core test
# machine), while a rolling restart's other process takes every client.
# The rules core is compiled by mypyc (setup.py), so the build needs a C compiler: the slim
# image has none, so gcc comes in for this one step and leaves with its C sources (build/),
# keeping the image's size; CARDROOM_PURE=1 as a build arg would build the pure package.
ARG CARDROOM_PURE=0
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && CARDROOM_PURE=$CARDROOM_PURE pip install --no-cache-dir --no-deps --no-build-isolation -e . \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/* build \
    && python -m compileall -q protocol server clients \
    && useradd --system --no-create-home cardroom
USER cardroom

EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"
CMD ["cardroom", "serve", "--host", "0.0.0.0", "--port", "8765"]
