import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { AppConfig } from '../platform/config/app-config';
import { HealthChecks } from '../platform/health/health-checks.service';
import { useProcessLogger } from '../platform/logging/app-logger';
import { MetricsService } from '../platform/metrics/metrics.service';
import { AppException } from '../platform/problem/app-exception';
import { resolveLanguage } from '../platform/problem/language';
import { PROBLEM_CONTENT_TYPE } from '../platform/problem/problem';
import { ProblemRenderer } from '../platform/problem/problem-renderer';
import { AppModule } from './app.module';

export interface WorkerApp {
  context: INestApplicationContext;
  /** The operational endpoints of the worker: /health, /ready, /info, /metrics. */
  server: FastifyInstance;
}

/**
 * The worker process: a Nest application context (no business routes) whose queue processors take jobs,
 * plus a small HTTP server with the same operational endpoints as the API — liveness, readiness (503 without
 * PostgreSQL or while shutting down; the Redis its queues use reported in the body), info and metrics (job
 * durations and failures) — for Kubernetes probes and Prometheus.
 */
export async function createWorkerApp(config: AppConfig): Promise<WorkerApp> {
  const context = await NestFactory.createApplicationContext(AppModule.forWorker(config), {
    logger: useProcessLogger(config.app.logLevel),
    abortOnError: false,
  });
  const checks = context.get(HealthChecks);
  const metrics = context.get(MetricsService);
  const problems = context.get(ProblemRenderer);
  const server = Fastify({ logger: false });
  const problem = (reply: FastifyReply, exception: AppException, acceptLanguage: string | undefined) => {
    const lang = resolveLanguage(acceptLanguage);
    return reply
      .status(exception.status)
      .headers(exception.options.headers ?? {})
      .header('content-language', lang)
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problems.render(exception, lang)));
  };
  server.get('/health', async () => checks.liveness());
  server.get('/ready', async (request, reply) => {
    try {
      return await checks.readiness();
    } catch (error: unknown) {
      if (error instanceof AppException) return problem(reply, error, request.headers['accept-language']);
      throw error;
    }
  });
  server.get('/info', async () => checks.info());
  server.get('/metrics', async (_request, reply) =>
    reply
      .header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
      .send(await metrics.registry.metrics()),
  );
  server.setNotFoundHandler((request, reply) =>
    problem(reply, new AppException('RESOURCE_NOT_FOUND'), request.headers['accept-language']),
  );
  server.setErrorHandler((_error, request, reply) =>
    problem(reply, new AppException('INTERNAL_ERROR'), request.headers['accept-language']),
  );
  await context.init();
  return { context, server };
}
