/**
 * JSON Schemas of the Kubernetes objects deploy/k8s renders, for the fields these manifests use, written from
 * the Kubernetes API reference (v1.32) and the Prometheus Operator's ServiceMonitor and PrometheusRule CRDs (monitoring.coreos.com/v1).
 * Every object is closed (`additionalProperties: false`): a misspelt or misplaced field fails, as it would with
 * `kubectl apply --validate=strict`. Types, enums and formats follow the API (`quantity` and `int-or-string`
 * as @kubernetes-models/validate defines them). A field the manifests start using must be added here.
 *
 * Why both these and the generated ones: test/deploy/k8s-manifests.spec.ts also validates every object with the
 * official generated models (`kubernetes-models`, `@kubernetes-models/prometheus-operator`), but those accept
 * unknown fields; these closed schemas are what catches a misspelt or misplaced one.
 */
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const nonEmpty: Schema = { type: 'string', minLength: 1 };
const int: Schema = { type: 'integer' };
const nonNegative: Schema = { type: 'integer', minimum: 0 };
const positive: Schema = { type: 'integer', minimum: 1 };
const bool: Schema = { type: 'boolean' };
const strings: Schema = { type: 'array', items: str };
const intOrString: Schema = { anyOf: [int, { type: 'string', minLength: 1 }] };
const quantity: Schema = { anyOf: [{ type: 'string', format: 'quantity' }, { type: 'number' }] };
const duration: Schema = { type: 'string', pattern: '^([0-9]+(ms|s|m|h))+$' };
/** RFC 1123 label (container, port and volume names): lower case, digits, '-'. */
const dnsLabel: Schema = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };
/** RFC 1123 subdomain (object names). */
const dnsSubdomain: Schema = {
  type: 'string',
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
};
/** IANA service name (named ports): at most 15 characters, a letter in it. */
const portName: Schema = {
  type: 'string',
  pattern: '^(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  maxLength: 15,
};
const labelValue: Schema = {
  type: 'string',
  pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$',
  maxLength: 63,
};
const qualifiedName =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';
const labels: Schema = {
  type: 'object',
  propertyNames: { pattern: qualifiedName, maxLength: 317 },
  additionalProperties: labelValue,
};
const annotations: Schema = {
  type: 'object',
  propertyNames: { pattern: qualifiedName, maxLength: 317 },
  additionalProperties: str,
};
const envName: Schema = { type: 'string', pattern: '^[-._a-zA-Z][-._a-zA-Z0-9]*$' };

function obj(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', additionalProperties: false, properties, required };
}
const arrayOf = (items: Schema, minItems = 0): Schema => ({ type: 'array', items, minItems });
const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });
const oneOfEnum = (...values: string[]): Schema => ({ type: 'string', enum: values });

const objectMeta = obj({ name: dnsSubdomain, namespace: dnsLabel, labels, annotations }, ['name']);
const templateMeta = obj({ labels, annotations });

const labelSelector = obj({
  matchLabels: labels,
  matchExpressions: arrayOf(
    obj(
      {
        key: { type: 'string', pattern: qualifiedName },
        operator: oneOfEnum('In', 'NotIn', 'Exists', 'DoesNotExist'),
        values: strings,
      },
      ['key', 'operator'],
    ),
  ),
});

const httpGet = obj(
  { path: { type: 'string', pattern: '^/' }, port: intOrString, scheme: oneOfEnum('HTTP', 'HTTPS') },
  ['port'],
);
const execAction = obj({ command: arrayOf(nonEmpty, 1) }, ['command']);
const probe = obj({
  httpGet,
  exec: execAction,
  initialDelaySeconds: nonNegative,
  periodSeconds: positive,
  timeoutSeconds: positive,
  successThreshold: positive,
  failureThreshold: positive,
  terminationGracePeriodSeconds: positive,
});
const handler = obj({ exec: execAction, httpGet, sleep: obj({ seconds: nonNegative }, ['seconds']) });

const capabilities = obj({ add: strings, drop: strings });
const seccompProfile = obj(
  { type: oneOfEnum('RuntimeDefault', 'Localhost', 'Unconfined'), localhostProfile: str },
  ['type'],
);
const containerSecurityContext = obj({
  allowPrivilegeEscalation: bool,
  readOnlyRootFilesystem: bool,
  runAsNonRoot: bool,
  runAsUser: nonNegative,
  runAsGroup: nonNegative,
  privileged: bool,
  capabilities,
  seccompProfile,
});
const podSecurityContext = obj({
  runAsNonRoot: bool,
  runAsUser: nonNegative,
  runAsGroup: nonNegative,
  fsGroup: nonNegative,
  seccompProfile,
});

const keyRef = obj({ name: dnsSubdomain, key: nonEmpty, optional: bool }, ['key']);
const envVar = obj(
  {
    name: envName,
    value: str,
    valueFrom: obj({
      configMapKeyRef: keyRef,
      secretKeyRef: keyRef,
      fieldRef: obj({ fieldPath: nonEmpty, apiVersion: str }, ['fieldPath']),
    }),
  },
  ['name'],
);
const envFrom = obj({
  prefix: str,
  configMapRef: obj({ name: dnsSubdomain, optional: bool }, ['name']),
  secretRef: obj({ name: dnsSubdomain, optional: bool }, ['name']),
});
const resources = obj({ requests: mapOf(quantity), limits: mapOf(quantity) });

const container = obj(
  {
    name: dnsLabel,
    image: nonEmpty,
    imagePullPolicy: oneOfEnum('Always', 'IfNotPresent', 'Never'),
    command: arrayOf(str),
    args: arrayOf(str),
    workingDir: str,
    env: arrayOf(envVar),
    envFrom: arrayOf(envFrom),
    ports: arrayOf(
      obj(
        {
          name: portName,
          containerPort: { type: 'integer', minimum: 1, maximum: 65535 },
          protocol: oneOfEnum('TCP', 'UDP', 'SCTP'),
        },
        ['containerPort'],
      ),
    ),
    resources,
    startupProbe: probe,
    livenessProbe: probe,
    readinessProbe: probe,
    lifecycle: obj({ preStop: handler, postStart: handler }),
    securityContext: containerSecurityContext,
    volumeMounts: arrayOf(
      obj({ name: dnsLabel, mountPath: { type: 'string', pattern: '^/' }, readOnly: bool }, [
        'name',
        'mountPath',
      ]),
    ),
    terminationMessagePolicy: oneOfEnum('File', 'FallbackToLogsOnError'),
  },
  ['name'],
);

const podSpec = obj(
  {
    containers: arrayOf(container, 1),
    initContainers: arrayOf(container),
    restartPolicy: oneOfEnum('Always', 'OnFailure', 'Never'),
    terminationGracePeriodSeconds: nonNegative,
    activeDeadlineSeconds: positive,
    serviceAccountName: dnsSubdomain,
    automountServiceAccountToken: bool,
    enableServiceLinks: bool,
    securityContext: podSecurityContext,
    volumes: arrayOf(
      obj({ name: dnsLabel, emptyDir: obj({ medium: oneOfEnum('', 'Memory'), sizeLimit: quantity }) }, [
        'name',
      ]),
    ),
    topologySpreadConstraints: arrayOf(
      obj(
        {
          maxSkew: positive,
          topologyKey: nonEmpty,
          whenUnsatisfiable: oneOfEnum('DoNotSchedule', 'ScheduleAnyway'),
          labelSelector,
        },
        ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
      ),
    ),
  },
  ['containers'],
);
const podTemplate = obj({ metadata: templateMeta, spec: podSpec }, ['spec']);

function kind(
  apiVersion: string,
  kindName: string,
  spec: Schema | undefined,
  extra: Record<string, Schema> = {},
  required: string[] = [],
): Schema {
  const properties: Record<string, Schema> = {
    apiVersion: { const: apiVersion },
    kind: { const: kindName },
    metadata: objectMeta,
    ...extra,
  };
  if (spec) properties.spec = spec;
  return obj(properties, ['apiVersion', 'kind', 'metadata', ...(spec ? ['spec'] : []), ...required]);
}

const deployment = kind(
  'apps/v1',
  'Deployment',
  obj(
    {
      replicas: nonNegative,
      selector: labelSelector,
      template: podTemplate,
      strategy: obj({
        type: oneOfEnum('RollingUpdate', 'Recreate'),
        rollingUpdate: obj({ maxSurge: intOrString, maxUnavailable: intOrString }),
      }),
      minReadySeconds: nonNegative,
      revisionHistoryLimit: nonNegative,
      progressDeadlineSeconds: positive,
    },
    ['selector', 'template'],
  ),
);

const job = kind(
  'batch/v1',
  'Job',
  obj(
    {
      template: podTemplate,
      backoffLimit: nonNegative,
      activeDeadlineSeconds: positive,
      ttlSecondsAfterFinished: nonNegative,
      completions: nonNegative,
      parallelism: nonNegative,
    },
    ['template'],
  ),
);

const service = kind(
  'v1',
  'Service',
  obj(
    {
      type: oneOfEnum('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'),
      clusterIP: str,
      selector: labels,
      ports: arrayOf(
        obj(
          {
            name: portName,
            port: { type: 'integer', minimum: 1, maximum: 65535 },
            targetPort: intOrString,
            protocol: oneOfEnum('TCP', 'UDP', 'SCTP'),
          },
          ['port'],
        ),
        1,
      ),
    },
    ['ports'],
  ),
);

const scalingRules = obj({
  stabilizationWindowSeconds: { type: 'integer', minimum: 0, maximum: 3600 },
  selectPolicy: oneOfEnum('Max', 'Min', 'Disabled'),
  policies: arrayOf(
    obj(
      {
        type: oneOfEnum('Pods', 'Percent'),
        value: positive,
        periodSeconds: { type: 'integer', minimum: 1, maximum: 1800 },
      },
      ['type', 'value', 'periodSeconds'],
    ),
  ),
});
const hpa = kind(
  'autoscaling/v2',
  'HorizontalPodAutoscaler',
  obj(
    {
      scaleTargetRef: obj({ apiVersion: str, kind: nonEmpty, name: dnsSubdomain }, ['kind', 'name']),
      minReplicas: positive,
      maxReplicas: positive,
      metrics: arrayOf(
        obj(
          {
            type: { const: 'Resource' },
            resource: obj(
              {
                name: oneOfEnum('cpu', 'memory'),
                target: obj(
                  {
                    type: oneOfEnum('Utilization', 'AverageValue'),
                    averageUtilization: positive,
                    averageValue: quantity,
                  },
                  ['type'],
                ),
              },
              ['name', 'target'],
            ),
          },
          ['type', 'resource'],
        ),
      ),
      behavior: obj({ scaleUp: scalingRules, scaleDown: scalingRules }),
    },
    ['scaleTargetRef', 'maxReplicas'],
  ),
);

// minAvailable or maxUnavailable, not both (the API server refuses both).
const pdbFields = { minAvailable: intOrString, maxUnavailable: intOrString, selector: labelSelector };
const pdb = kind('policy/v1', 'PodDisruptionBudget', {
  oneOf: [obj(pdbFields, ['selector', 'minAvailable']), obj(pdbFields, ['selector', 'maxUnavailable'])],
});

const configMap = kind('v1', 'ConfigMap', undefined, {
  data: { type: 'object', propertyNames: envName, additionalProperties: str },
  immutable: bool,
});
const secret = kind('v1', 'Secret', undefined, {
  type: str,
  data: { type: 'object', propertyNames: envName, additionalProperties: { type: 'string', format: 'byte' } },
  stringData: { type: 'object', propertyNames: envName, additionalProperties: str },
  immutable: bool,
});

const peer = obj({
  podSelector: labelSelector,
  namespaceSelector: labelSelector,
  ipBlock: obj(
    { cidr: { type: 'string', format: 'cidr' }, except: arrayOf({ type: 'string', format: 'cidr' }) },
    ['cidr'],
  ),
});
const policyPort = obj({ protocol: oneOfEnum('TCP', 'UDP', 'SCTP'), port: intOrString, endPort: int });
const networkPolicy = kind(
  'networking.k8s.io/v1',
  'NetworkPolicy',
  obj(
    {
      podSelector: labelSelector,
      policyTypes: arrayOf(oneOfEnum('Ingress', 'Egress')),
      ingress: arrayOf(obj({ from: arrayOf(peer), ports: arrayOf(policyPort) })),
      egress: arrayOf(obj({ to: arrayOf(peer), ports: arrayOf(policyPort) })),
    },
    ['podSelector'],
  ),
);

const serviceMonitor = kind(
  'monitoring.coreos.com/v1',
  'ServiceMonitor',
  obj(
    {
      selector: labelSelector,
      namespaceSelector: obj({ any: bool, matchNames: strings }),
      jobLabel: str,
      endpoints: arrayOf(
        obj({
          port: str,
          targetPort: intOrString,
          path: { type: 'string', pattern: '^/' },
          scheme: oneOfEnum('http', 'https'),
          interval: duration,
          scrapeTimeout: duration,
        }),
        1,
      ),
    },
    ['selector', 'endpoints'],
  ),
);

const prometheusRule = kind(
  'monitoring.coreos.com/v1',
  'PrometheusRule',
  obj(
    {
      groups: arrayOf(
        obj(
          {
            name: nonEmpty,
            interval: duration,
            rules: arrayOf(
              obj(
                {
                  alert: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
                  record: str,
                  expr: nonEmpty,
                  for: duration,
                  labels: mapOf(str),
                  annotations: mapOf(str),
                },
                ['expr'],
              ),
              1,
            ),
          },
          ['name', 'rules'],
        ),
        1,
      ),
    },
    ['groups'],
  ),
);

/** Schemas by `apiVersion/kind`; a rendered kind missing here fails validation as unknown. */
export const KUBERNETES_SCHEMAS: Record<string, Schema> = {
  'apps/v1/Deployment': deployment,
  'batch/v1/Job': job,
  'v1/Service': service,
  'autoscaling/v2/HorizontalPodAutoscaler': hpa,
  'policy/v1/PodDisruptionBudget': pdb,
  'v1/ConfigMap': configMap,
  'v1/Secret': secret,
  'networking.k8s.io/v1/NetworkPolicy': networkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': serviceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': prometheusRule,
};
