import type { RowDrift } from "../../src/core/drift/rowDrift";
import { rowDriftOf } from "../../src/core/drift/rowDrift";
import type { DriftMode } from "../../src/core/drift/types";
import type { DriftByRow, MismatchByRow } from "../../src/core/files/rowQuery";
import { DEFAULT_NEAR_K } from "../../src/core/forest/groupForest";
import type { CorrectionChoice } from "../../src/core/mismatch/corrections/registry";
import type { RowMismatch } from "../../src/core/mismatch/fileMismatch";
import { type Correction, correction } from "../../src/core/mismatch/mismatch";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { type FileGroupsReport, groupsOfFile } from "../commands/groups";
import { type FileMismatchReport, mismatchFile } from "../commands/mismatch";
import { driftFile, type FileDrift } from "../drift/driftFile";
import { mappingOf } from "../files/fileRegistry";
import type { LoadedFile, McpFiles } from "./mcpFiles";

/** The checks the tools run: the `drift` and `mismatch` commands' own code, cached per read. */
export interface McpChecks {
  /** The tokenizer the file's ids are read with; undefined when the file has no rows. */
  tokenizerOf(loaded: LoadedFile): Promise<Tokenizer | undefined>;
  drift(loaded: LoadedFile, modes: readonly DriftMode[]): Promise<FileDrift>;
  /** `choices` are replayed over the file as one batch (the report's `replays`), as the CLI does. */
  mismatch(
    loaded: LoadedFile,
    c: Correction,
    lanes: readonly [string, string] | undefined,
    choices?: readonly CorrectionChoice[],
  ): Promise<FileMismatchReport>;
  /** The `groups` command's forests and forensics of the file. */
  groups(loaded: LoadedFile): Promise<FileGroupsReport>;
  /** Round-trip drift by row index, for find_rows. */
  rowDrift(loaded: LoadedFile): Promise<DriftByRow>;
  /** Mismatch (default lanes, token-trunc) by row index, for find_rows. */
  rowMismatch(loaded: LoadedFile): Promise<MismatchByRow>;
}

/** Row index of each `line:row` place of the file. */
function rowIndexOf(loaded: LoadedFile): Map<string, number> {
  return new Map(loaded.rows.map((r) => [`${r.line}:${r.row}`, r.index]));
}

export function createMcpChecks(files: McpFiles): McpChecks {
  const memo = new WeakMap<LoadedFile, Map<string, Promise<unknown>>>();
  /** One computation per loaded file and key (a file read again gets new results). */
  function once<T>(loaded: LoadedFile, key: string, compute: () => Promise<T>): Promise<T> {
    let cache = memo.get(loaded);
    if (!cache) {
      cache = new Map();
      memo.set(loaded, cache);
    }
    let hit = cache.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = compute();
      cache.set(key, hit);
      hit.catch(() => cache?.delete(key));
    }
    return hit;
  }
  const checks: McpChecks = {
    async tokenizerOf(loaded) {
      if (loaded.tokenizer === null) return undefined;
      return (await files.tokenizers.load(loaded.tokenizer.name)).tokenizer;
    },
    drift(loaded, modes) {
      return once(loaded, `drift:${modes.join(",")}`, () =>
        driftFile(loaded.file.path, {
          tokenizers: files.tokenizers,
          ...(files.picked === undefined ? {} : { picked: files.picked }),
          modes,
          ...(mappingOf(loaded.file) ? { mapping: mappingOf(loaded.file) } : {}),
        }),
      );
    },
    mismatch(loaded, c, lanes, choices = []) {
      const key = `mismatch:${JSON.stringify([c, lanes ?? null, choices])}`;
      return once(loaded, key, () =>
        mismatchFile(loaded.file.path, c, lanes, mappingOf(loaded.file), choices),
      );
    },
    groups(loaded) {
      return once(loaded, "groups", () => groupsOfFile(loaded.file.path, DEFAULT_NEAR_K));
    },
    async rowDrift(loaded) {
      const found = await checks.drift(loaded, ["roundtrip"]);
      const index = rowIndexOf(loaded);
      const out: (RowDrift | undefined)[] = [];
      for (const t of found.trajectories) {
        const i = index.get(`${t.line}:${t.row}`);
        const result = t.results.find((r) => r.mode === "roundtrip");
        if (i !== undefined && result) out[i] = rowDriftOf(result);
      }
      return out;
    },
    async rowMismatch(loaded) {
      const report = await checks.mismatch(
        loaded,
        correction("token-trunc", { cap: 2 }),
        undefined,
      );
      const index = rowIndexOf(loaded);
      const out: (RowMismatch | undefined)[] = [];
      for (const t of report.trajectories) {
        const i = index.get(`${t.line}:${t.row}`);
        if (i === undefined) continue;
        const s = t.stats;
        out[i] = {
          compared: s.compared,
          maxAbsDelta: s.maxAbsDelta,
          meanAbsDelta: s.meanAbsDelta,
          fractionCorrected: s.fractionCorrected,
        };
      }
      return out;
    },
  };
  return checks;
}
