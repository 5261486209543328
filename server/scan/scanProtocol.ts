import type { ShardedInput } from "../commands/shardInputs";
import type { GroupsUnitOptions } from "./groupsUnit";
import type { MismatchUnitOptions } from "./mismatchUnit";

/**
 * One unit of a scanning command for a scan worker (scan.worker.ts): a file, or a shard's byte
 * range of it, and what to compute. The worker posts the unit's pieces as they come (`mismatch`:
 * groups of trajectories) and answers with its end, as the in-process run does.
 */
export type ScanRequest =
  | {
      readonly kind: "mismatch";
      readonly unit: ShardedInput;
      readonly options: MismatchUnitOptions;
    }
  | { readonly kind: "groups"; readonly unit: ShardedInput; readonly options: GroupsUnitOptions };
