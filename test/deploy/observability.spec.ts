import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ReplicaSet } from '../../src/platform/database/replicas';
import { MetricsService } from '../../src/platform/metrics/metrics.service';
import type { JobQueue } from '../../src/platform/queue/job-queue';
import { Manifest, render } from './kustomize';

/**
 * The Grafana dashboard (deploy/grafana/order-service.json) and the alert rules (the PrometheusRule of
 * deploy/k8s) query only metrics and labels the service exposes on /metrics, and the dashboard charts what
 * operators need: request rate, latency percentiles by route, 5xx, rate-limit rejections, queue depth and job
 * durations. A metric renamed in src/platform/metrics/metrics.service.ts fails here, not on a blank panel.
 */
const ROOT = path.resolve(__dirname, '../..');
/** Labels Prometheus adds to every scraped series (target labels), and the histogram bucket label. */
const TARGET_LABELS = ['namespace', 'pod', 'job', 'instance', 'service', 'container', 'endpoint', 'le'];
/** Series Prometheus makes itself. */
const PROMETHEUS_SERIES = ['up'];
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);

async function exposed(): Promise<{ series: Set<string>; labels: Set<string> }> {
  const queue = { depth: async () => 0 } as unknown as JobQueue;
  // Replicas configured: their series are exposed too.
  const replicas = { enabled: true, state: () => [], primaryReads: 0 } as unknown as ReplicaSet;
  const metrics = new MetricsService(queue, replicas);
  const series = new Set<string>(PROMETHEUS_SERIES);
  const labels = new Set<string>(TARGET_LABELS);
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    // prom-client's MetricType is a string enum: compare its text.
    const type = String(metric.type);
    const suffixes =
      type === 'histogram'
        ? ['_bucket', '_sum', '_count']
        : type === 'summary'
          ? ['', '_sum', '_count']
          : [''];
    for (const suffix of suffixes) series.add(`${metric.name}${suffix}`);
    const declared = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] })
      .labelNames;
    for (const label of declared ?? []) labels.add(label);
  }
  return { series, labels };
}

/** The metric names and label names a PromQL expression reads. */
function parsePromql(expr: string): { metrics: string[]; labels: string[] } {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const labels = [
    ...[...withoutStrings.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
      [...m[1].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]),
    ),
    ...[...withoutStrings.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) =>
      m[1].split(',').map((l) => l.trim()),
    ),
  ].filter(Boolean);
  const bare = withoutStrings
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const metrics = [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)]
    .map((m) => m[1])
    .filter((name) => !PROMQL_WORDS.has(name));
  return { metrics, labels };
}

interface Panel {
  id: number;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets: { refId: string; expr: string }[];
}

const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'deploy/grafana/order-service.json'), 'utf8')) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string }[] };
};
const alertRules = (
  render(path.join(ROOT, 'deploy/k8s/overlays/prod')).find((r) => r.kind === 'PrometheusRule') as Manifest
).spec as { groups: { rules: { alert: string; expr: string }[] }[] };
const rules = alertRules.groups.flatMap((g) => g.rules);
const panelExprs = dashboard.panels.flatMap((p) =>
  p.targets.map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
);
const ruleExprs = rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }));

describe('the Grafana dashboard and the alert rules', () => {
  it('parse PromQL as intended (the check below relies on it)', () => {
    expect(
      parsePromql('sum by (le, route) (rate(x_bucket{a="b", c=~"5.."}[5m])) / sum(y_total) > 0.01'),
    ).toEqual({
      metrics: ['x_bucket', 'y_total'],
      labels: ['a', 'c', 'le', 'route'],
    });
  });

  it.each([...panelExprs, ...ruleExprs])(
    '$where reads only metrics and labels the service exposes',
    async ({ expr }) => {
      const { series, labels } = await exposed();
      const used = parsePromql(expr);
      expect(used.metrics.length).toBeGreaterThan(0);
      expect(used.metrics.filter((m) => !series.has(m))).toEqual([]);
      expect(used.labels.filter((l) => !labels.has(l))).toEqual([]);
    },
  );

  it('is a dashboard Grafana imports: uid, title, panels with unique ids, places and queries', () => {
    expect(dashboard.uid).toBe('order-service');
    expect(dashboard.title).toBeTruthy();
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.w).toBeGreaterThan(0);
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      expect(panel.targets.length).toBeGreaterThan(0);
      expect(new Set(panel.targets.map((t) => t.refId)).size).toBe(panel.targets.length);
    }
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'namespace']);
  });

  it('charts request rate, latency percentiles by route, 5xx, 429s, queue depth and job durations', () => {
    const exprs = panelExprs.map((e) => e.expr);
    const has = (pattern: RegExp) => exprs.some((e) => pattern.test(e));
    expect(has(/sum by \(route\) \(rate\(http_request_duration_seconds_count/)).toBe(true);
    for (const q of ['0.5', '0.95', '0.99']) {
      expect(
        has(
          new RegExp(
            `histogram_quantile\\(${q}, sum by \\(le, route\\) \\(rate\\(http_request_duration_seconds_bucket`,
          ),
        ),
      ).toBe(true);
    }
    expect(has(/status_code=~"5\.\."/)).toBe(true);
    expect(has(/status_code="429"/)).toBe(true);
    expect(has(/job_queue_depth/)).toBe(true);
    expect(has(/histogram_quantile\(0\.95, sum by \(le, type\) \(rate\(job_duration_seconds_bucket/)).toBe(
      true,
    );
  });

  it('charts webhook attempts by result, final deliveries, delivery latency and the oldest pending delivery', () => {
    const exprs = panelExprs.map((e) => e.expr);
    const has = (pattern: RegExp) => exprs.some((e) => pattern.test(e));
    expect(has(/sum by \(result\) \(rate\(webhook_delivery_attempts_total/)).toBe(true);
    expect(has(/sum by \(status\) \(rate\(webhook_deliveries_total/)).toBe(true);
    expect(
      has(/histogram_quantile\(0\.95, sum by \(le\) \(rate\(webhook_delivery_latency_seconds_bucket/),
    ).toBe(true);
    expect(has(/webhook_oldest_pending_delivery_age_seconds/)).toBe(true);
    expect(rules.some((r) => /webhook_oldest_pending_delivery_age_seconds/.test(r.expr))).toBe(true);
  });

  it('has alerts for errors, readiness, queues, failing jobs and saturation, each documented', () => {
    const operations = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const rule of rules) expect(operations).toContain(rule.alert);
  });
});
