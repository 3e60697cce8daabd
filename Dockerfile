# StyleTwin for self-hosters: one container, data in a volume.
#   docker build -t styletwin .
#   docker run -p 8000:8000 -v styletwin-data:/data -e JWT_SECRET=$(openssl rand -hex 32) styletwin
FROM denoland/deno:debian-2.9.6

WORKDIR /app
ENV DATA_DIR=/data \
    PORT=8000 \
    DENO_ENV=production \
    DENO_NO_UPDATE_CHECK=1

# Dependencies first, for layer caching.
COPY deno.json deno.lock ./
RUN deno install --frozen

COPY . .
RUN deno install --frozen && deno run -A scripts/build-client.ts

VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD deno eval "const r = await fetch('http://127.0.0.1:8000/api/health'); Deno.exit(r.ok ? 0 : 1)"
CMD ["deno", "run", "-A", "main.ts"]
