/**
 * `keyspread serve --print-k8s`: manifests that Kubernetes' published OpenAPI schema accepts
 * (kubernetes-models), with what a replica needs to keep its log and stop cleanly, and the copy in
 * examples/k8s/ is what the command prints.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadAll } from "js-yaml";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { kubernetesManifests } from "../../serve/deploy/kubernetes-manifests.js";

const printK8s = (...extra: string[]) => {
  const env = { ...process.env };
  delete env.KEYSPREAD_BIGTABLE_PROJECT;
  delete env.KEYSPREAD_BIGTABLE_INSTANCE;
  const run = spawnSync(process.execPath, ["dist/cli/main.js", "serve", "--print-k8s", ...extra], {
    encoding: "utf8",
    env,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return run.stdout;
};

describe("keyspread serve --print-k8s", () => {
  it("prints a StatefulSet, Services and a PodDisruptionBudget that Kubernetes' schema accepts", () => {
    const documents = loadAll(
      printK8s("--table", "fleet", "--k8s-replicas", "5", "--quota", "acme=100000"),
    ) as {
      kind: string;
    }[];
    expect(documents.map((document) => document.kind)).toEqual([
      "Service",
      "Service",
      "StatefulSet",
      "PodDisruptionBudget",
    ]);
    for (const document of documents.filter((document) => document.kind === "Service")) {
      new Service(document as never).validate();
    }
    new PodDisruptionBudget(documents[3] as never).validate();
    const statefulSet = new StatefulSet(documents[2] as never);
    statefulSet.validate();

    const spec = statefulSet.spec!;
    expect(spec.replicas).toBe(5);
    const pod = spec.template.spec!;
    const container = pod.containers[0]!;
    const args = container.args!;
    const flag = (name: string) => args[args.indexOf(name) + 1];
    expect([flag("--store"), flag("--table"), flag("--quota")]).toEqual(["bigtable", "fleet", "acme=100000"]);
    // The log on a volume of each replica's own, mounted where --wal points.
    expect(
      spec.volumeClaimTemplates!.map((claim) => [claim.metadata!.name, claim.spec!.accessModes]),
    ).toEqual([["wal", ["ReadWriteOnce"]]]);
    expect(container.volumeMounts!.find((mount) => mount.name === "wal")!.mountPath).toBe(flag("--wal"));
    // Readiness on the endpoint that is false while replaying (not listening) or draining.
    expect(container.readinessProbe!.httpGet!.path).toBe("/readyz");
    // The preStop sleep and the drain deadline fit the grace period.
    const preStop = container.lifecycle!.preStop!.sleep!.seconds;
    expect(preStop + Number.parseInt(String(flag("--drain-deadline")), 10)).toBeLessThan(
      pod.terminationGracePeriodSeconds!,
    );
    expect(pod.terminationGracePeriodSeconds).toBe(30);
  });

  it("is what examples/k8s/keyspread-ingest.yaml holds (keyspread serve --print-k8s --table metrics)", () => {
    expect(readFileSync("examples/k8s/keyspread-ingest.yaml", "utf8")).toBe(printK8s("--table", "metrics"));
  });

  it("refuses a drain that would not fit the grace period", () => {
    expect(() =>
      kubernetesManifests({
        replicas: 3,
        image: "keyspread",
        bigtable: { project: "p", instance: "i", table: "t" },
        drainDeadlineSeconds: 25,
      }),
    ).toThrow(
      expect.objectContaining({
        name: "ServeOptionError",
        field: "terminationGracePeriodSeconds",
        value: 30,
        allowed: "at least preStop sleep 5 s + drain deadline 25 s + 3 s margin (33 s)",
      }),
    );
  });
});
