import { parse, YAMLParseError } from "yaml";
import { isRecord } from "../isRecord";

/*
 * OpenPipe ART's trajectories YAML (docs/format.md "ART"): what `LocalBackend._log` writes to
 * `{art_path}/{model}/trajectories/{split}/{step:04d}.yaml` with `serialize_trajectory_groups`
 * (`OpenPipe/ART:src/art/utils/trajectory_logging.py`, 779559f): `yaml.dump` of a list of groups
 * `{metadata, trajectories}`, each trajectory `{reward, metrics, metadata, messages_and_choices,
 * logs}` with its Choices' logprobs removed. Read whole (like a JSON document) into one record per
 * trajectory for the ART reader (textRecords.ts), its group's index and metadata beside it.
 */

/** The records of an ART trajectories YAML file, or an error naming the line that does not parse. */
export function artYamlRecords(text: string): unknown[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    const at = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    const where = at ? `line ${at.line}, column ${at.col}: ` : "";
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(`the ART trajectories YAML does not parse: ${where}${message}`);
  }
  if (!Array.isArray(doc)) {
    throw new Error(
      "an ART trajectories YAML file holds a list of trajectory groups; this one does not",
    );
  }
  return doc.flatMap((group, g) => groupRecords(group, g));
}

/**
 * Group `g`'s trajectories as records (`group_index`, `trajectory_index`, `group_metadata`, then
 * the trajectory's own keys); a group of another shape stays one record, which the reader
 * refuses with the field it lacks, so no group is dropped unsaid.
 */
function groupRecords(group: unknown, g: number): unknown[] {
  if (!isRecord(group) || !Array.isArray(group.trajectories)) {
    return [{ group_index: g, trajectory_index: 0, messages_and_choices: null, group }];
  }
  return group.trajectories.map((t, i) => ({
    group_index: g,
    trajectory_index: i,
    group_metadata: group.metadata ?? null,
    ...(isRecord(t) ? t : { messages_and_choices: null, trajectory: t }),
  }));
}
