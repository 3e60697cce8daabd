# StyleTwin for self-hosters. Two stages: the build stage installs every dependency and bundles the client
# (esbuild, Tailwind); the runtime stage installs only the server's packages, so no playwright, esbuild,
# tailwind, lighthouse, axe, s3rver or test-photo packages are in the image (node_modules 386 MB instead of
# 672 MB, measured with the same install outside Docker).
#   docker build -t styletwin .
#   docker run -p 8000:8000 -v styletwin-data:/data -e JWT_SECRET=$(openssl rand -hex 32) styletwin
FROM denoland/deno:debian-2.9.6 AS build
WORKDIR /src
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY . .
RUN deno run -A scripts/build-client.ts \
 && mkdir -p /runtime && deno run -A scripts/runtime-deno-json.ts > /runtime/deno.json

FROM denoland/deno:debian-2.9.6
WORKDIR /app
ENV DATA_DIR=/data \
    PORT=8000 \
    DENO_ENV=production \
    DENO_NO_UPDATE_CHECK=1

# Run as the unprivileged `deno` user the official image creates (uid 1993). It owns the
# app (node_modules, the built client) and /data; a named volume mounted on /data starts
# with this ownership, a bind-mounted host folder must be chown'd to 1993 by the operator.
RUN mkdir -p /data && chown deno:deno /app /data
USER deno

# Only the server's sources and the admin task; the client arrives built.
# deno.json without the build- and test-only packages (scripts/runtime-deno-json.ts lists them).
COPY --from=build --chown=deno:deno /runtime/deno.json ./deno.json
COPY --chown=deno:deno deno.lock main.ts ./
COPY --chown=deno:deno db ./db
COPY --chown=deno:deno migrations ./migrations
COPY --chown=deno:deno server ./server
# The operator commands (`deno task admin`, `deno task promo`) and what they share (admin-cli.ts).
COPY --chown=deno:deno scripts/admin-cli.ts scripts/promote-admin.ts scripts/promo.ts scripts/build-db-template.ts ./scripts/
COPY --from=build --chown=deno:deno /src/static/build ./static/build
# Runtime dependencies only, at the versions deno.lock pins (the lock only loses the removed packages);
# then the migrated empty embedded database a fresh /data starts from (a fresh start unpacks it instead
# of running initdb and every migration).
RUN deno install && deno cache main.ts scripts/promote-admin.ts scripts/promo.ts server/imaging/local/worker.ts \
 && deno run -A scripts/build-db-template.ts

VOLUME ["/data"]
EXPOSE 8000
# Shell form, so ${PORT} is the container's at run time (-e PORT=... moves the probe too).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD deno eval "const r = await fetch('http://127.0.0.1:${PORT:-8000}/api/health'); Deno.exit(r.ok ? 0 : 1)"
# V8 flags of server/runtime-memory.ts (smaller young generations, a GC after each model job).
CMD ["deno", "run", "-A", "--v8-flags=--max-semi-space-size=1,--expose-gc", "main.ts"]
