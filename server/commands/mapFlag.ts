import { type ColumnMapping, parseMapSpec } from "../../src/core/formats/columnMapping";
import type { CommandIo } from "./commandIo";

/**
 * The column mapping of `--map SPEC` (columnMapping.ts parseMapSpec), undefined without the flag,
 * or exit code 2 after an error: a bad spec, or a `--format` other than auto/slime (a mapping
 * reads records as slime samples).
 */
export function mappingOfFlags(
  command: string,
  values: { readonly map?: string; readonly format?: string },
  io: CommandIo,
): ColumnMapping | undefined | number {
  if (values.map === undefined) return undefined;
  const parsed = parseMapSpec(values.map);
  if (!parsed.ok) {
    io.err(`${command}: --map: ${parsed.message}`);
    return 2;
  }
  if (values.format !== undefined && values.format !== "auto" && values.format !== "slime") {
    io.err(
      `${command}: --map reads records as slime samples; it cannot be used with --format ${values.format}`,
    );
    return 2;
  }
  return parsed.mapping;
}
