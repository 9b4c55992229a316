/**
 * Kubernetes manifests for `keyspread serve` as N replicas of one Bigtable table
 * (`keyspread serve --print-k8s`): a StatefulSet, so each replica keeps its write-ahead log (and
 * with it its writer id) on a PersistentVolumeClaim of its own across restarts and reschedules; a
 * headless Service naming the pods; a Service the load balancer sends to (ready pods only); and a
 * PodDisruptionBudget letting a node drain take one replica at a time.
 *
 * Stopping fits the grace period: the preStop hook sleeps while the endpoints controller takes the
 * terminating pod out of the Services, then SIGTERM starts the service's drain (readiness false,
 * `--drain-delay`, stop accepting, finish what it read, flush), which exits within
 * `--drain-deadline`. preStop + deadline + a margin must fit `terminationGracePeriodSeconds`.
 * Readiness is GET /readyz: the service listens only once its log is replayed, and answers 503
 * while draining. A startup probe gives a long replay time before liveness counts.
 */
import { ServeOptionError } from "../serve-option-error.js";

export interface KubernetesDeployment {
  /** Name of the StatefulSet, its Services and labels (default keyspread-ingest). */
  name?: string;
  replicas: number;
  image: string;
  /** Bigtable project, instance and table the replicas write. */
  bigtable: { project: string; instance: string; table: string };
  /** More `keyspread serve` flags (buckets, interval, quota…), passed as they are. */
  serveFlags?: string[];
  /** Size of each replica's log volume (default 10Gi). */
  walStorage?: string;
  preStopSleepSeconds?: number;
  drainDelaySeconds?: number;
  drainDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
}

/** Seconds left between the drain deadline (plus the preStop sleep) and the grace period's SIGKILL. */
const STOP_MARGIN_SECONDS = 3;
const PORT = 8080;
const WAL_PATH = "/var/lib/keyspread/wal";
const KEYS_PATH = "/etc/keyspread";

export function kubernetesManifests(deployment: KubernetesDeployment): Record<string, unknown>[] {
  const name = deployment.name ?? "keyspread-ingest";
  const preStop = deployment.preStopSleepSeconds ?? 5;
  const delay = deployment.drainDelaySeconds ?? 2;
  const deadline = deployment.drainDeadlineSeconds ?? 20;
  const grace = deployment.terminationGracePeriodSeconds ?? 30;
  if (!(Number.isInteger(deployment.replicas) && deployment.replicas >= 1)) {
    throw new RangeError(`replicas ${deployment.replicas}: expected a whole number ≥ 1`);
  }
  if (preStop + deadline + STOP_MARGIN_SECONDS > grace) {
    throw new ServeOptionError(
      "terminationGracePeriodSeconds",
      grace,
      `at least preStop sleep ${preStop} s + drain deadline ${deadline} s + ${STOP_MARGIN_SECONDS} s margin (${preStop + deadline + STOP_MARGIN_SECONDS} s)`,
      `preStop sleep ${preStop} s + drain deadline ${deadline} s + ${STOP_MARGIN_SECONDS} s margin exceed terminationGracePeriodSeconds ${grace}: the kubelet would SIGKILL a draining replica`,
    );
  }
  if (delay >= deadline) {
    throw new RangeError(`drain delay ${delay} s: expected less than the drain deadline (${deadline} s)`);
  }
  const labels = { "app.kubernetes.io/name": name };
  const { project, instance, table } = deployment.bigtable;
  const args = [
    "serve",
    "--store",
    "bigtable",
    "--table",
    table,
    "--host",
    "0.0.0.0",
    "--port",
    String(PORT),
    "--wal",
    WAL_PATH,
    "--auth",
    `${KEYS_PATH}/keys.json`,
    "--drain-delay",
    `${delay}s`,
    "--drain-deadline",
    `${deadline}s`,
    ...(deployment.serveFlags ?? []),
  ];
  const probe = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: "http" },
    periodSeconds,
    failureThreshold,
    timeoutSeconds: 2,
  });
  return [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: `${name}-pods`, labels },
      spec: {
        clusterIP: "None",
        selector: labels,
        ports: [{ name: "http", port: PORT, targetPort: "http" }],
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, labels },
      spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] },
    },
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name, labels },
      spec: {
        serviceName: `${name}-pods`,
        replicas: deployment.replicas,
        // Replicas are independent (each its own log and id): start and replace them all at once.
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            terminationGracePeriodSeconds: grace,
            securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 },
            containers: [
              {
                name: "serve",
                image: deployment.image,
                args,
                env: [
                  { name: "KEYSPREAD_BIGTABLE_PROJECT", value: project },
                  { name: "KEYSPREAD_BIGTABLE_INSTANCE", value: instance },
                ],
                ports: [{ name: "http", containerPort: PORT }],
                // The log's replay happens before the service listens: up to 10 minutes of it.
                startupProbe: probe("/healthz", 5, 120),
                livenessProbe: probe("/healthz", 10, 3),
                readinessProbe: probe("/readyz", 2, 1),
                lifecycle: { preStop: { sleep: { seconds: preStop } } },
                resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "2Gi" } },
                volumeMounts: [
                  { name: "wal", mountPath: WAL_PATH },
                  { name: "api-keys", mountPath: KEYS_PATH, readOnly: true },
                ],
              },
            ],
            volumes: [{ name: "api-keys", secret: { secretName: `${name}-api-keys` } }],
          },
        },
        // One log volume per replica, kept when a pod is deleted or rescheduled (ReadWriteOnce: never two pods).
        volumeClaimTemplates: [
          {
            metadata: { name: "wal" },
            spec: {
              accessModes: ["ReadWriteOnce"],
              resources: { requests: { storage: deployment.walStorage ?? "10Gi" } },
            },
          },
        ],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      },
    },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name, labels },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
  ];
}
