# The practice target as a container image: `docker build -t api-challenges .`, then
# `docker run --rm -p 3000:3000 api-challenges` (podman: the same commands). What each line is for,
# and the figures: docs/operations.md, "Run it in a container".

# Any image with node (22.12 or later) and npm on PATH, such as the official node:24-* images.
ARG NODE_IMAGE=docker.io/library/node:24-bookworm-slim

# The build: every dependency, the TypeScript compiled to dist/ and the Lua scripts copied beside it.
FROM ${NODE_IMAGE} AS build
# npm's notices of audits, funding and its own new versions are not for a build.
ENV NPM_CONFIG_AUDIT=false NPM_CONFIG_FUND=false NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY plugins plugins
COPY routes routes
COPY bench bench
RUN npm run build

# The production dependencies alone, fastify (a peer dependency) among them; npm's cache left behind.
FROM ${NODE_IMAGE} AS dependencies
ENV NPM_CONFIG_AUDIT=false NPM_CONFIG_FUND=false NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

# What runs: the package's own files (package.json's "files") and its production dependencies.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY package.json ./
COPY --from=dependencies /app/node_modules node_modules
COPY --from=build /app/dist/src dist/src
COPY --from=build /app/dist/plugins dist/plugins
COPY --from=build /app/dist/routes dist/routes
COPY public public
# The official images' `node` user, by number so that Kubernetes' runAsNonRoot can check it. The
# files stay root's: the server writes nothing of its own.
USER 1000:1000
EXPOSE 3000
# Liveness, not readiness: /livez is 200 whenever the process answers, in a Redis outage too.
# Node itself asks, as a slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/livez', { signal: AbortSignal.timeout(4000) }).then(res => process.exit(res.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains for SHUTDOWN_DRAIN_MS (5 s), then closes within 10 s: stop with a timeout above
# both (`docker run --stop-timeout 20`, compose's `stop_grace_period: 20s`); Docker's default is 10 s.
STOPSIGNAL SIGTERM
# Node itself, not npm: the signals reach the server.
CMD ["node", "dist/src/server.js"]
