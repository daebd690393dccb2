# The example worker (examples/worker.ts) as docker-compose runs it.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY examples ./examples
USER node
CMD ["npx", "tsx", "examples/worker.ts"]
