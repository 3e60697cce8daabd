# StyleTwin for self-hosters: one container, data in a volume.
#   docker build -t styletwin .
#   docker run -p 8000:8000 -v styletwin-data:/data -e JWT_SECRET=$(openssl rand -hex 32) styletwin
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

# Dependencies first, for layer caching.
COPY --chown=deno:deno deno.json deno.lock ./
RUN deno install --frozen

COPY --chown=deno:deno . .
RUN deno install --frozen && deno run -A scripts/build-client.ts

VOLUME ["/data"]
EXPOSE 8000
# Shell form, so ${PORT} is the container's at run time (-e PORT=... moves the probe too).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD deno eval "const r = await fetch('http://127.0.0.1:${PORT:-8000}/api/health'); Deno.exit(r.ok ? 0 : 1)"
CMD ["deno", "run", "-A", "main.ts"]
