import { createReadStream } from "node:fs";
import { parseJsonLine } from "../../src/core/formats/jsonLine";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { EpisodeSummary } from "../../src/core/wire/episodes";
import { summarize } from "../agent/episodeManager";
import type { EpisodeStore, StoredLine } from "./episodeStore";

interface Entry {
  readonly at: StoredLine;
  readonly summary: EpisodeSummary;
}

function promptOf(trajectory: Trajectory): string {
  return trajectory.messages?.find((m) => m.role === "user")?.content ?? "";
}

/** Finished episodes of the data file by id: summaries for the list, byte positions to reload. */
export class EpisodeIndex {
  private readonly entries = new Map<string, Entry>();
  /** Lines of the data file that did not load, reported instead of dropped. */
  readonly problems: string[] = [];

  constructor(private readonly store: EpisodeStore) {}

  /** Scans the data file once at startup (streamed, line by line). */
  async load(): Promise<void> {
    let offset = 0;
    let lineNo = 0;
    let pending = Buffer.alloc(0);
    const stream = createReadStream(this.store.episodesPath);
    try {
      for await (const chunk of stream) {
        let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
        let nl = data.indexOf(10);
        while (nl >= 0) {
          lineNo++;
          this.addLine(data.subarray(0, nl).toString("utf8"), lineNo, { offset, length: nl });
          offset += nl + 1;
          data = data.subarray(nl + 1);
          nl = data.indexOf(10);
        }
        pending = Buffer.from(data);
      }
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return;
      throw error;
    }
  }

  private addLine(text: string, lineNo: number, at: StoredLine): void {
    const result = readRolloutLine(text, lineNo, "rollout-lens/v1", this.store.episodesPath);
    if (result.kind === "blank") return;
    if (result.kind === "error") {
      this.problems.push(`${this.store.episodesPath}:${lineNo}: ${result.error.message}`);
      return;
    }
    for (const trajectory of result.trajectories) this.add(trajectory, at);
  }

  /** Records a just-finished episode. */
  add(trajectory: Trajectory, at: StoredLine): void {
    this.entries.set(trajectory.id, { at, summary: summarize(trajectory, promptOf(trajectory)) });
  }

  summaries(): EpisodeSummary[] {
    return [...this.entries.values()].map((e) => e.summary);
  }

  /** The stored rollout-lens/v1 object of an episode, or undefined. */
  async find(id: string): Promise<unknown | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const parsed = parseJsonLine(await this.store.readLine(entry.at));
    if (!parsed.ok) throw new Error(`${this.store.episodesPath}: episode ${id}: ${parsed.message}`);
    return parsed.value;
  }
}
