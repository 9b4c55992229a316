/** A scenario field holding a duration (`90s`, `30m`, `3h` or seconds), validated into seconds. */
import * as v from "valibot";
import { parseDuration } from "./duration.js";

export const durationField = (field: string) =>
  v.pipe(
    v.union([v.string(), v.number()], `${field} must be a duration such as 90s, 30m or 3h`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return parseDuration(dataset.value, field);
      } catch (error) {
        addIssue({ message: (error as Error).message });
        return NEVER;
      }
    }),
  );
