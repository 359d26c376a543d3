# syntax=docker/dockerfile:1
# Node 24 LTS in production (Node 20 reached its end of life in April 2026); the code also runs on Node 20.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The client package (client/) is a devDependency linked from the lock: its manifest lets the install resolve
# it; its sources stay out of the image (.dockerignore) and the prune below drops the link and its dependencies.
COPY client/package.json client/package.json
RUN npm install --no-audit --no-fund
COPY . .
# The production dependencies' JavaScript without comments and layout (scripts/strip-sources.ts): V8 keeps each
# loaded module's source in the heap, ~9 MB of RSS. Before the prune, which removes the stripper (a dev tool).
RUN npm run build && node dist/scripts/strip-sources.js && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/package.json ./package.json
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
