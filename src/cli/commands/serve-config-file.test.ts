import { spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAll } from "js-yaml";
import { describe, expect, it } from "vitest";
import { overlayOptions, ServeConfigFileError, serveOptionsOfConfig } from "./serve-config-file.js";

interface StatefulSetArgs {
  kind: string;
  spec: { template: { spec: { containers: { args: string[] }[] } } };
}

describe("keyspread serve --config", () => {
  it("reads the options by their library names and units, checked as their flags check them", () => {
    expect(
      serveOptionsOfConfig(
        {
          intervalMs: 500,
          maxBodyBytes: 1024,
          insecure: true,
          host: "0.0.0.0",
          quotas: "default=100,acme=200:400",
          drain: { deadlineMs: 20_000 },
          replicas: { leaseMs: 8_000 },
        },
        "serve.json",
      ),
    ).toEqual({
      intervalMs: 500,
      maxBodyBytes: 1024,
      insecure: true,
      host: "0.0.0.0",
      quotas: { default: { rate: 100 }, tenants: { acme: { rate: 200, burst: 400 } } },
      drain: { deadlineMs: 20_000 },
      replicas: { leaseMs: 8_000 },
    });
  });

  it("refuses an entry naming its key, the value and what is allowed", () => {
    const refusal = (json: unknown) => {
      try {
        serveOptionsOfConfig(json, "serve.json");
      } catch (error) {
        expect(error).toBeInstanceOf(ServeConfigFileError);
        const { file, key, value } = error as ServeConfigFileError;
        return { file, key, value };
      }
      throw new Error("accepted");
    };
    expect(refusal({ interval: 500 })).toEqual({ file: "serve.json", key: "interval", value: 500 });
    expect(refusal({ intervalMs: "2s" })).toMatchObject({ key: "intervalMs", value: "2s" });
    expect(refusal({ intervalMs: 5 })).toMatchObject({ key: "intervalMs", value: 5 });
    expect(refusal({ drain: { deadline: 1 } })).toMatchObject({ key: "drain.deadline" });
    expect(refusal({ drain: 1000 })).toMatchObject({ key: "drain", value: 1000 });
    expect(refusal({ insecure: "yes" })).toMatchObject({ key: "insecure", value: "yes" });
    expect(refusal({ quotas: "acme=fast" })).toMatchObject({ key: "quotas", value: "acme=fast" });
    expect(refusal([1])).toMatchObject({ key: "(file)" });
  });

  it("lets the flags given win, an option group field by field", () => {
    expect(
      overlayOptions(
        { intervalMs: 500, port: 9000, drain: { delayMs: 1000, deadlineMs: 20_000 } },
        { intervalMs: 3000, drain: { deadlineMs: 10_000 } },
      ),
    ).toEqual({ intervalMs: 3000, port: 9000, drain: { delayMs: 1000, deadlineMs: 10_000 } });
  });

  it("sets the built service's options, under the flags given", async () => {
    const directory = await mkdtemp(join(tmpdir(), "serve-config-"));
    const file = join(directory, "serve.json");
    await writeFile(file, JSON.stringify({ intervalMs: 500, buckets: 8 }));
    // The manifests pass the service's buckets and interval on to each replica's command line.
    const replicaFlags = (...flags: string[]) => {
      const run = spawnSync(
        process.execPath,
        ["dist/cli/main.js", "serve", "--print-k8s", "--config", file, ...flags],
        { encoding: "utf8" },
      );
      const statefulSet = (loadAll(run.stdout) as StatefulSetArgs[]).find(
        (doc) => doc.kind === "StatefulSet",
      );
      const args = statefulSet?.spec.template.spec.containers[0]?.args ?? [];
      const flagValue = (flag: string) => args[args.indexOf(flag) + 1];
      return { status: run.status, buckets: flagValue("--buckets"), interval: flagValue("--interval") };
    };
    expect(replicaFlags()).toEqual({ status: 0, buckets: "8", interval: "500ms" });
    expect(replicaFlags("--interval", "3s")).toEqual({ status: 0, buckets: "8", interval: "3s" });
  });
});
