/**
 * The documented, settable fields of a Cloud Run job, as the tests check a definition against
 * them: every key must be a documented field of its object, of the documented type, and the
 * required ones present. Output-only fields are left out, so setting one fails too.
 *
 * - v1 (the YAML `gcloud run jobs replace` takes): Google Cloud, "REST Resource: namespaces.jobs",
 *   https://cloud.google.com/run/docs/reference/rest/v1/namespaces.jobs (Job, ObjectMeta, JobSpec,
 *   ExecutionTemplateSpec, ExecutionSpec, TaskTemplateSpec, TaskSpec, Container, EnvVar,
 *   ResourceRequirements, VolumeMount, Volume, SecretVolumeSource, KeyToPath).
 * - v2: Google Cloud, "REST Resource: projects.locations.jobs",
 *   https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs, and the API's
 *   discovery document (run/v2/run-api.json in googleapis/google-api-go-client): GoogleCloudRunV2Job,
 *   ExecutionTemplate, TaskTemplate, Container, EnvVar, ResourceRequirements, VolumeMount, Volume,
 *   SecretVolumeSource, VersionToPath.
 */

export type FieldType =
  | "string"
  | "integer"
  | "boolean"
  | "int64-string"
  | "duration"
  | "string-map"
  | { object: string }
  | { array: FieldType };

export interface ObjectSchema {
  fields: Record<string, FieldType>;
  required?: string[];
}

const stringList: FieldType = { array: "string" };

export const CLOUD_RUN_V1: Record<string, ObjectSchema> = {
  Job: {
    fields: {
      apiVersion: "string",
      kind: "string",
      metadata: { object: "ObjectMeta" },
      spec: { object: "JobSpec" },
    },
    required: ["apiVersion", "kind", "metadata", "spec"],
  },
  ObjectMeta: {
    fields: { name: "string", namespace: "string", labels: "string-map", annotations: "string-map" },
  },
  JobSpec: {
    fields: {
      template: { object: "ExecutionTemplateSpec" },
      startExecutionToken: "string",
      runExecutionToken: "string",
    },
  },
  ExecutionTemplateSpec: {
    fields: { metadata: { object: "ObjectMeta" }, spec: { object: "ExecutionSpec" } },
    required: ["spec"],
  },
  ExecutionSpec: {
    fields: { parallelism: "integer", taskCount: "integer", template: { object: "TaskTemplateSpec" } },
    required: ["template"],
  },
  TaskTemplateSpec: { fields: { spec: { object: "TaskSpec" } } },
  TaskSpec: {
    fields: {
      volumes: { array: { object: "Volume" } },
      containers: { array: { object: "Container" } },
      timeoutSeconds: "int64-string",
      serviceAccountName: "string",
      maxRetries: "integer",
      nodeSelector: "string-map",
    },
  },
  Container: {
    fields: {
      name: "string",
      image: "string",
      command: stringList,
      args: stringList,
      env: { array: { object: "EnvVar" } },
      resources: { object: "ResourceRequirements" },
      workingDir: "string",
      volumeMounts: { array: { object: "VolumeMount" } },
      imagePullPolicy: "string",
    },
    required: ["image"],
  },
  EnvVar: { fields: { name: "string", value: "string" }, required: ["name"] },
  ResourceRequirements: { fields: { limits: "string-map", requests: "string-map" } },
  VolumeMount: {
    fields: { name: "string", readOnly: "boolean", mountPath: "string", subPath: "string" },
    required: ["name", "mountPath"],
  },
  Volume: { fields: { name: "string", secret: { object: "SecretVolumeSource" } }, required: ["name"] },
  SecretVolumeSource: {
    fields: {
      secretName: "string",
      items: { array: { object: "KeyToPath" } },
      defaultMode: "integer",
      optional: "boolean",
    },
    required: ["secretName"],
  },
  KeyToPath: { fields: { key: "string", path: "string", mode: "integer" }, required: ["key", "path"] },
};

export const CLOUD_RUN_V2: Record<string, ObjectSchema> = {
  Job: {
    fields: {
      name: "string",
      labels: "string-map",
      annotations: "string-map",
      client: "string",
      clientVersion: "string",
      launchStage: "string",
      template: { object: "ExecutionTemplate" },
    },
    required: ["template"],
  },
  ExecutionTemplate: {
    fields: {
      labels: "string-map",
      annotations: "string-map",
      parallelism: "integer",
      taskCount: "integer",
      template: { object: "TaskTemplate" },
    },
    required: ["template"],
  },
  TaskTemplate: {
    fields: {
      containers: { array: { object: "Container" } },
      volumes: { array: { object: "Volume" } },
      maxRetries: "integer",
      timeout: "duration",
      serviceAccount: "string",
      executionEnvironment: "string",
      encryptionKey: "string",
    },
  },
  Container: {
    fields: {
      name: "string",
      image: "string",
      command: stringList,
      args: stringList,
      env: { array: { object: "EnvVar" } },
      resources: { object: "ResourceRequirements" },
      volumeMounts: { array: { object: "VolumeMount" } },
      workingDir: "string",
    },
    required: ["image"],
  },
  EnvVar: { fields: { name: "string", value: "string" }, required: ["name"] },
  ResourceRequirements: { fields: { limits: "string-map", cpuIdle: "boolean", startupCpuBoost: "boolean" } },
  VolumeMount: { fields: { name: "string", mountPath: "string" }, required: ["name", "mountPath"] },
  Volume: { fields: { name: "string", secret: { object: "SecretVolumeSource" } }, required: ["name"] },
  SecretVolumeSource: {
    fields: { secret: "string", items: { array: { object: "VersionToPath" } }, defaultMode: "integer" },
    required: ["secret"],
  },
  VersionToPath: { fields: { path: "string", version: "string", mode: "integer" }, required: ["path"] },
};

/** Every place `value` departs from `type` in `schemas`, as "path: what" (empty: it conforms). */
export function fieldErrors(
  schemas: Record<string, ObjectSchema>,
  type: FieldType,
  value: unknown,
  path = "",
): string[] {
  if (typeof type === "object" && "array" in type) {
    if (!Array.isArray(value)) return [`${path}: not an array`];
    return value.flatMap((item, index) => fieldErrors(schemas, type.array, item, `${path}[${index}]`));
  }
  if (typeof type === "object") {
    const schema = schemas[type.object]!;
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return [`${path}: not an object`];
    const record = value as Record<string, unknown>;
    return [
      ...(schema.required ?? []).filter((key) => !(key in record)).map((key) => `${path}.${key}: required`),
      ...Object.entries(record).flatMap(([key, child]) => {
        const fieldType = schema.fields[key];
        return fieldType === undefined
          ? [`${path}.${key}: not a documented field of ${type.object}`]
          : fieldErrors(schemas, fieldType, child, `${path}.${key}`);
      }),
    ];
  }
  const ok = {
    string: typeof value === "string",
    integer: Number.isInteger(value),
    boolean: typeof value === "boolean",
    "int64-string": typeof value === "string" && /^\d+$/.test(value),
    duration: typeof value === "string" && /^\d+(\.\d+)?s$/.test(value),
    "string-map":
      typeof value === "object" &&
      value !== null &&
      Object.values(value).every((each) => typeof each === "string"),
  }[type];
  return ok ? [] : [`${path}: not a ${type}`];
}
