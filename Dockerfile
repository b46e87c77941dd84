# One container = the whole product, on either store:
# - SQLite (default): the database, uploads, outbox and generated JWT secret live in /data (mount a volume);
# - DATABASE_URL=postgres://…: the database is PostgreSQL's (Bun's built-in driver, nothing to add here),
#   JWT_SECRET must be given, and /data keeps only files — optional, or UPLOADS_DIR on shared storage.
FROM oven/bun:1 AS build
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
RUN bun run build

FROM oven/bun:1 AS runtime
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data PORT=3000 HOST=0.0.0.0
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production && rm -rf /root/.bun/install/cache
COPY --from=build /app/dist ./dist
COPY src ./src
# The server renders page metadata and text for crawlers from the SPA's shared, DOM-free modules.
COPY web ./web
COPY drizzle ./drizzle
RUN mkdir -p /data && chown bun:bun /data
USER bun
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# Exec form: bun is PID 1, so the SIGTERM of `docker stop` reaches the graceful shutdown.
CMD ["bun", "src/index.ts"]
