# One image for every service; SERVICE picks which one runs (all-in-one, ingest-gateway,
# converter, summarizer, read-api). TypeScript runs through tsx here exactly as it does in development.
FROM node:20.20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY libs ./libs
COPY services ./services
# npm ci's postinstall builds the local embedding model into /app/.cache, so the image embeds offline.
COPY scripts/install-model.ts ./scripts/
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production SERVICE=all-in-one PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["sh", "-c", "exec node --import tsx services/${SERVICE}/src/main.ts"]
