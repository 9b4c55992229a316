/** What `migrate begin|advance` print of a live re-keying's record: where it stands, and the service's report. */
import type { MigrationRecord } from "./migration-record.js";

export function migrationSummary(file: string, record: MigrationRecord) {
  const service = record.service;
  return {
    migration: file,
    phase: record.phase,
    revision: record.revision,
    old: record.old.address,
    new: record.new.address,
    applied: service?.revision === record.revision && service.applied,
    ...(service
      ? {
          service: {
            pid: service.pid,
            phase: service.phase,
            completeBelow: service.completeBelow,
            ...(service.dualWriteFrom === undefined ? {} : { dualWriteFrom: service.dualWriteFrom }),
          },
        }
      : {}),
  };
}
