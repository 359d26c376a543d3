import { formats, runValidateFunc, type ValidateFunc } from '@kubernetes-models/validate';
import Ajv from 'ajv';
import * as path from 'node:path';
import { KUBERNETES_SCHEMAS } from './k8s-schemas';
import {
  kubectlPath,
  Manifest,
  render,
  renderKustomization,
  renderWithKubectl,
  resourceId,
} from './kustomize';

/**
 * Every object both overlays render is valid against its Kubernetes schema, and the references between
 * objects hold (what the API server or the controllers would refuse or silently ignore). Rendering is
 * `kubectl kustomize` where kubectl is installed, else test/deploy/kustomize.ts; where both exist they must
 * render the same objects.
 */
const ROOT = path.resolve(__dirname, '../..');
const OVERLAYS = ['dev', 'prod'].map((name) => ({ name, dir: path.join(ROOT, 'deploy/k8s/overlays', name) }));

const ajv = new Ajv({ allErrors: true, strict: true });
for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
const validators = new Map<string, ValidateFunc<unknown>>(
  Object.entries(KUBERNETES_SCHEMAS).map(([key, schema]) => [
    key,
    ajv.compile(schema) as ValidateFunc<unknown>,
  ]),
);

/** Throws the schema's errors for one object (the runtime of @kubernetes-models/validate words them). */
function validate(resource: Manifest): void {
  const validator = validators.get(`${resource.apiVersion}/${resource.kind}`);
  if (!validator) throw new Error(`no schema for ${resource.apiVersion} ${resource.kind}`);
  runValidateFunc(validator, resource);
}

/** The official generated models (kubernetes-models, @kubernetes-models/prometheus-operator) for each kind. */
function officialModel(resource: Manifest): { validate(): void } {
  const [group, version] = resource.apiVersion.includes('/')
    ? resource.apiVersion.split('/')
    : ['', resource.apiVersion];
  const modulePath =
    group === 'monitoring.coreos.com'
      ? `@kubernetes-models/prometheus-operator/${group}/${version}/${resource.kind}`
      : `kubernetes-models/${group ? `${group}/` : ''}${version}/${resource.kind}`;
  // The generated modules export one class per kind; require keeps the lookup data-driven.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(modulePath) as Record<string, new (data: unknown) => { validate(): void }>;
  return new loaded[resource.kind](resource);
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: {
    containers: {
      name: string;
      env?: { name: string }[];
      envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
      ports?: { name?: string; containerPort: number }[];
      startupProbe?: { httpGet?: { port: string | number } };
      livenessProbe?: { httpGet?: { port: string | number } };
      readinessProbe?: { httpGet?: { port: string | number } };
    }[];
  };
}
interface Selector {
  matchLabels?: Record<string, string>;
}

const templateOf = (r: Manifest) => (r.spec as { template: PodTemplate }).template;
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe.each(OVERLAYS)('deploy/k8s/overlays/$name', ({ dir }) => {
  const resources = render(dir);
  const byKind = (kind: string) => resources.filter((r) => r.kind === kind);
  const workloads = resources.filter((r) => r.kind === 'Deployment' || r.kind === 'Job');

  it('renders every kind the service needs, each object valid against its schema', () => {
    expect(new Set(resources.map((r) => r.kind))).toEqual(
      new Set([
        'ConfigMap',
        'Secret',
        'Job',
        'Deployment',
        'Service',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'NetworkPolicy',
        'ServiceMonitor',
        'PrometheusRule',
      ]),
    );
    const failures = resources.flatMap((r) => {
      try {
        validate(r);
        return [];
      } catch (error) {
        return [`${resourceId(r)}: ${(error as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  });

  it('has each object valid against the official generated schema of its kind too', () => {
    // The official schemas are open (unknown fields pass), the closed ones above are strict: together they
    // catch both a wrong type or enum the hand-written schema missed and a misspelt field.
    const failures = resources.flatMap((r) => {
      try {
        officialModel(r).validate();
        return [];
      } catch (error) {
        return [`${resourceId(r)}: ${(error as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  });

  it('puts everything in one namespace', () => {
    expect(new Set(resources.map((r) => r.metadata.namespace)).size).toBe(1);
    expect(resources[0].metadata.namespace).toBeTruthy();
  });

  it('has each Deployment select its own pods, and each container reference what exists', () => {
    const names = new Set(resources.map((r) => `${r.kind}/${r.metadata.name}`));
    for (const workload of workloads) {
      const template = templateOf(workload);
      if (workload.kind === 'Deployment') {
        expect(
          matches((workload.spec as { selector: Selector }).selector.matchLabels, template.metadata?.labels),
        ).toBe(true);
      }
      for (const container of template.spec.containers) {
        for (const source of container.envFrom ?? []) {
          if (source.configMapRef) expect(names).toContain(`ConfigMap/${source.configMapRef.name}`);
          if (source.secretRef) expect(names).toContain(`Secret/${source.secretRef.name}`);
        }
        const envNames = (container.env ?? []).map((e) => e.name);
        expect(new Set(envNames).size).toBe(envNames.length);
        const ports = new Set((container.ports ?? []).flatMap((p) => [p.name, p.containerPort]));
        for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
          if (probe?.httpGet) expect(ports).toContain(probe.httpGet.port);
        }
      }
    }
  });

  it('has every Service, PodDisruptionBudget and autoscaler find its pods or target', () => {
    const podLabels = byKind('Deployment').map((d) => templateOf(d).metadata?.labels);
    for (const svc of byKind('Service')) {
      const { selector, ports } = svc.spec as {
        selector: Record<string, string>;
        ports: { targetPort: string }[];
      };
      const targets = byKind('Deployment').filter((d) => matches(selector, templateOf(d).metadata?.labels));
      expect(targets).toHaveLength(1);
      const containerPorts = templateOf(targets[0]).spec.containers.flatMap((c) =>
        (c.ports ?? []).map((p) => p.name),
      );
      for (const port of ports) expect(containerPorts).toContain(port.targetPort);
    }
    for (const budget of byKind('PodDisruptionBudget')) {
      const selector = (budget.spec as { selector: Selector }).selector.matchLabels;
      expect(podLabels.filter((labels) => matches(selector, labels))).toHaveLength(1);
    }
    for (const hpa of byKind('HorizontalPodAutoscaler')) {
      const target = (hpa.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef;
      expect(resources.some((r) => r.kind === target.kind && r.metadata.name === target.name)).toBe(true);
      const { minReplicas, maxReplicas } = hpa.spec as { minReplicas: number; maxReplicas: number };
      expect(maxReplicas).toBeGreaterThanOrEqual(minReplicas);
    }
  });

  it('has the ServiceMonitor scrape a named port of each Service it selects', () => {
    for (const monitor of byKind('ServiceMonitor')) {
      const spec = monitor.spec as { selector: Selector; endpoints: { port: string }[] };
      const services = byKind('Service').filter((s) => matches(spec.selector.matchLabels, s.metadata.labels));
      expect(services.length).toBeGreaterThan(0);
      for (const svc of services) {
        const names = (svc.spec as { ports: { name: string }[] }).ports.map((p) => p.name);
        for (const endpoint of spec.endpoints) expect(names).toContain(endpoint.port);
      }
    }
  });
});

describe('schema validation', () => {
  const rendered = render(OVERLAYS[0].dir);
  const deployment = rendered.find((r) => r.kind === 'Deployment') as Manifest;
  const configMap = rendered.find((r) => r.kind === 'ConfigMap') as Manifest;
  const container = (d: Manifest) => templateOf(d).spec.containers[0] as unknown as Record<string, unknown>;

  it.each<[string, (d: Manifest) => void]>([
    ['a misspelt probe field', (d) => (container(d).readinesProbe = container(d).readinessProbe)],
    [
      'a memory limit that is no quantity',
      (d) => ((container(d).resources as { limits: Record<string, string> }).limits.memory = '512 megs'),
    ],
    ['an upper-case container name', (d) => (container(d).name = 'API')],
    [
      'a probe port given as a list',
      (d) => ((container(d).livenessProbe as { httpGet: { port: unknown } }).httpGet.port = [3000]),
    ],
  ])('refuses a Deployment with %s', (_what, mutate) => {
    expect(() => validate(deployment)).not.toThrow();
    const broken = structuredClone(deployment);
    mutate(broken);
    expect(() => validate(broken)).toThrow();
  });

  it('refuses a ConfigMap value that is not a string', () => {
    const broken = structuredClone(configMap);
    (broken.data as Record<string, unknown>).PORT = 3000;
    expect(() => validate(broken)).toThrow(/PORT/);
  });
});

describe('test/deploy/kustomize.ts', () => {
  const kubectl = kubectlPath();

  (kubectl ? it.each(OVERLAYS) : it.skip.each(OVERLAYS))(
    'renders overlay $name exactly as kubectl kustomize does',
    ({ dir }) => {
      const byId = (list: Manifest[]) => new Map(list.map((r) => [resourceId(r), r]));
      const ours = byId(renderKustomization(dir));
      const theirs = byId(renderWithKubectl(kubectl as string, dir));
      expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
      for (const [id, resource] of theirs) expect({ id, resource: ours.get(id) }).toEqual({ id, resource });
    },
  );

  it('refuses kustomize features it does not implement, by name', () => {
    const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
    const os = jest.requireActual<typeof import('node:os')>('node:os');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kustomize-'));
    fs.writeFileSync(path.join(tmp, 'kustomization.yaml'), 'resources: []\nnamePrefix: x-\n');
    expect(() => renderKustomization(tmp)).toThrow(/namePrefix is not implemented/);
    fs.writeFileSync(
      path.join(tmp, 'kustomization.yaml'),
      `resources: ['${path.join(ROOT, 'deploy/k8s/base')}']\npatches:\n  - target: {kind: Deployment}\n    patch: |-\n      spec:\n        replicas: 3\n`,
    );
    expect(() => renderKustomization(tmp)).toThrow(/strategic merge patches are not implemented/);
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});
