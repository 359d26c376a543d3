import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { HARD_STOP_MS } from '../../src/bootstrap/runtime';
import { Manifest, render } from './kustomize';

/**
 * The operational policy of deploy/k8s, per overlay, so that a later edit cannot quietly drop it: probes,
 * non-root and read-only containers without capabilities, resource limits, a grace period longer than the
 * shutdown (preStop, SHUTDOWN_DELAY_MS and the drain all end within the process's hard stop), at least two api
 * replicas, disruption budgets, migrations as a Job and never at pod start, PostgreSQL and Redis reachable
 * from the service only, and every setting of the README's table in the ConfigMap or the Secret.
 */
const ROOT = path.resolve(__dirname, '../..');

interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  volumes?: unknown[];
}

const podSpec = (r: Manifest) => (r.spec as { template: { spec: PodSpec } }).template.spec;
const labelsOf = (r: Manifest) =>
  (r.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;

/** The settings of the README's configuration table (`NAME`, `A`, `B` in its first column). */
function readmeSettings(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const settings = table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
  return [...new Set(settings)];
}

/** Seconds a preStop hook holds the container before SIGTERM (`sleep N` or the sleep action). */
function preStopSeconds(container: Container): number {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  return command[0] === 'sleep' ? Number(command[1]) : 0;
}

describe.each(['dev', 'prod'])('deploy/k8s/overlays/%s policy', (overlay) => {
  const resources = render(path.join(ROOT, 'deploy/k8s/overlays', overlay));
  const find = (kind: string, name: string) => {
    const found = resources.find((r) => r.kind === kind && r.metadata.name === name);
    if (!found) throw new Error(`${kind} ${name} is missing`);
    return found;
  };
  const api = find('Deployment', 'order-service-api');
  const worker = find('Deployment', 'order-service-worker');
  const migrate = find('Job', 'order-service-migrate');
  const config = find('ConfigMap', 'order-service-config').data as Record<string, string>;
  const secret = find('Secret', 'order-service-secrets');
  const workloads = [api, worker, migrate];
  const envOf = (container: Container, name: string) =>
    container.env?.find((e) => e.name === name)?.value ?? config[name];

  it('probes the api on /health (startup, liveness) and /ready (readiness), and the worker on its own server', () => {
    for (const deployment of [api, worker]) {
      const [container] = podSpec(deployment).containers;
      expect(container.startupProbe?.httpGet?.path).toBe('/health');
      expect(container.livenessProbe?.httpGet?.path).toBe('/health');
      expect(container.readinessProbe?.httpGet?.path).toBe('/ready');
    }
    expect(podSpec(worker).containers[0].command).toEqual(['node', 'dist/src/worker.js']);
    expect(envOf(podSpec(worker).containers[0], 'APP_ROLE')).toBe('worker');
    expect(envOf(podSpec(api).containers[0], 'APP_ROLE')).toBe('api');
  });

  it('runs every container as non-root, on a read-only root filesystem, with all capabilities dropped', () => {
    for (const workload of workloads) {
      const spec = podSpec(workload);
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const context = container.securityContext ?? {};
        const where = `${workload.metadata.name}/${container.name}`;
        expect({ where, nonRoot: context.runAsNonRoot ?? spec.securityContext?.runAsNonRoot }).toEqual({
          where,
          nonRoot: true,
        });
        expect((context.runAsUser ?? spec.securityContext?.runAsUser ?? 0) > 0).toBe(true);
        expect({ where, readOnly: context.readOnlyRootFilesystem }).toEqual({ where, readOnly: true });
        expect({ where, escalation: context.allowPrivilegeEscalation }).toEqual({ where, escalation: false });
        expect({ where, drop: context.capabilities?.drop }).toEqual({ where, drop: ['ALL'] });
        expect(context.capabilities?.add ?? []).toEqual([]);
      }
    }
  });

  it('sets CPU and memory requests and limits on every container, limits at or above requests', () => {
    const bytes = (q: string) =>
      Number(q.replace(/Mi$/, '')) * 2 ** 20 || Number(q.replace(/Gi$/, '')) * 2 ** 30;
    const cores = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q));
    for (const workload of workloads) {
      for (const container of podSpec(workload).containers) {
        const { requests = {}, limits = {} } = container.resources ?? {};
        for (const resource of ['cpu', 'memory']) {
          expect({
            container: container.name,
            resource,
            set: !!requests[resource] && !!limits[resource],
          }).toEqual({
            container: container.name,
            resource,
            set: true,
          });
        }
        expect(cores(limits.cpu)).toBeGreaterThanOrEqual(cores(requests.cpu));
        expect(bytes(limits.memory)).toBeGreaterThanOrEqual(bytes(requests.memory));
      }
    }
  });

  it('gives the api and the worker a grace period longer than their whole shutdown', () => {
    const hardStopSeconds = HARD_STOP_MS / 1000;
    const [apiContainer] = podSpec(api).containers;
    const delaySeconds = Number(envOf(apiContainer, 'SHUTDOWN_DELAY_MS')) / 1000;
    // The endpoints drop the pod while preStop runs; then readiness turns 503 and the listener stays open
    // SHUTDOWN_DELAY_MS; the drain follows; the process exits HARD_STOP_MS after SIGTERM at the latest.
    expect(preStopSeconds(apiContainer)).toBeGreaterThan(0);
    expect(delaySeconds).toBeGreaterThan(0);
    expect(delaySeconds).toBeLessThan(hardStopSeconds);
    expect(podSpec(api).terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds(apiContainer) + hardStopSeconds,
    );
    expect(podSpec(worker).terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds(podSpec(worker).containers[0]) + hardStopSeconds,
    );
  });

  it('keeps at least two api replicas (the autoscaler owns the count) and budgets disruptions of both', () => {
    const hpa = find('HorizontalPodAutoscaler', 'order-service-api').spec as {
      scaleTargetRef: { name: string };
      minReplicas: number;
      metrics: { resource: { name: string } }[];
    };
    expect(hpa.scaleTargetRef.name).toBe('order-service-api');
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.metrics.map((m) => m.resource.name)).toEqual(['cpu']);
    // An apply that set replicas would undo the autoscaler's scale-up each time.
    const replicas = (api.spec as { replicas?: number }).replicas;
    expect(replicas === undefined || replicas >= 2).toBe(true);
    for (const deployment of [api, worker]) {
      const budget = resources.find(
        (r) =>
          r.kind === 'PodDisruptionBudget' &&
          (r.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels[
            'app.kubernetes.io/component'
          ] === labelsOf(deployment)['app.kubernetes.io/component'],
      );
      expect(budget).toBeDefined();
    }
  });

  it('migrates in the Job only: the migrate script there (JSON lines), MIGRATIONS_RUN=false for the pods', () => {
    const [container] = podSpec(migrate).containers;
    expect(container.command).toEqual(['node', 'dist/scripts/migrate.js']);
    expect(
      (migrate.spec as { template: { spec: { restartPolicy: string } } }).template.spec.restartPolicy,
    ).toBe('Never');
    for (const deployment of [api, worker])
      expect(envOf(podSpec(deployment).containers[0], 'MIGRATIONS_RUN')).toBe('false');
    // The same image everywhere, so the Job migrates to exactly the schema the rollout expects.
    const images = new Set(workloads.flatMap((w) => podSpec(w).containers.map((c) => c.image)));
    expect(images.size).toBe(1);
  });

  it('lets only the service reach PostgreSQL and Redis', () => {
    const policies = resources.filter((r) => r.kind === 'NetworkPolicy');
    const policyFor = (name: string) =>
      policies.find(
        (p) =>
          (p.spec as { podSelector: { matchLabels?: Record<string, string> } }).podSelector.matchLabels?.[
            'app.kubernetes.io/name'
          ] === name,
      )?.spec as {
        policyTypes: string[];
        ingress: {
          from: { podSelector: { matchExpressions: { key: string; values: string[] }[] } }[];
          ports: { port: number }[];
        }[];
      };
    for (const [name, port, clients] of [
      ['postgresql', 5432, ['api', 'worker', 'migrations']],
      ['redis', 6379, ['api', 'worker']],
    ] as const) {
      const policy = policyFor(name);
      expect(policy.policyTypes).toContain('Ingress');
      expect(policy.ingress).toHaveLength(1);
      const [rule] = policy.ingress;
      expect(rule.ports.map((p) => p.port)).toEqual([port]);
      expect(rule.from).toHaveLength(1);
      const expressions = Object.fromEntries(
        rule.from[0].podSelector.matchExpressions.map((e) => [e.key, e.values]),
      );
      expect(expressions).toEqual({
        'app.kubernetes.io/name': ['order-service'],
        'app.kubernetes.io/component': clients,
      });
    }
  });

  it('has every setting of the README in the ConfigMap or the Secret', () => {
    const secretKeys = [
      ...(secret.metadata.annotations?.['order-service/keys']?.split(',') ?? []),
      ...Object.keys((secret.stringData as Record<string, string> | undefined) ?? {}),
    ];
    // Set per Deployment (asserted above), or meaningless here: DATA_DIR is the embedded PostgreSQL's, which
    // never runs in Kubernetes (NODE_ENV=production requires DATABASE_URL).
    const elsewhere = new Set(['APP_ROLE', 'DATA_DIR']);
    const settings = readmeSettings();
    expect(settings.length).toBeGreaterThan(15);
    const missing = settings.filter((s) => !elsewhere.has(s) && !(s in config) && !secretKeys.includes(s));
    expect(missing).toEqual([]);
    expect(config.NODE_ENV).toBe('production');
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET']) {
      expect(secretKeys).toContain(key);
      expect(key in config).toBe(false);
    }
    for (const workload of workloads) {
      const sources = podSpec(workload).containers[0].envFrom ?? [];
      expect(sources.map((s) => s.configMapRef?.name ?? s.secretRef?.name)).toEqual([
        'order-service-config',
        'order-service-secrets',
      ]);
    }
  });
});

describe('deploy/k8s/deploy.sh', () => {
  const script = readFileSync(path.join(ROOT, 'deploy/k8s/deploy.sh'), 'utf8');
  const resources = render(path.join(ROOT, 'deploy/k8s/overlays/prod'));
  const component = (r: Manifest) => r.metadata.labels?.['app.kubernetes.io/component'];

  it('is valid bash', () => {
    expect(() => execFileSync('bash', ['-n', path.join(ROOT, 'deploy/k8s/deploy.sh')])).not.toThrow();
  });

  it('applies the configuration, then the migrations Job and waits for it, then the rest', () => {
    const steps = [
      'kubectl apply -f "$rendered" -l app.kubernetes.io/component=config',
      'kubectl apply -f "$rendered" -l app.kubernetes.io/component=migrations',
      '{.status.succeeded}',
      'kubectl apply -f "$rendered"\n',
      'kubectl rollout status',
    ].map((step) => script.indexOf(step));
    expect(steps.every((at) => at >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    // The selectors it applies by pick exactly the configuration and the Job.
    expect(
      resources
        .filter((r) => component(r) === 'config')
        .map((r) => r.kind)
        .sort(),
    ).toEqual(['ConfigMap', 'Secret']);
    expect(
      resources.filter((r) => component(r) === 'migrations').map((r) => `${r.kind}/${r.metadata.name}`),
    ).toEqual(['Job/order-service-migrate']);
    expect(script).toContain('job=job/order-service-migrate');
  });
});

describe('the production image', () => {
  it('is built on Node 24 LTS in every stage', () => {
    const stages = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').match(/^FROM\s+\S+/gm) ?? [];
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) expect(stage).toMatch(/^FROM\s+node:24[.-]/);
  });
});
