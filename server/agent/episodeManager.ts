import { randomBytes } from "node:crypto";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";
import type {
  EpisodeEvent,
  EpisodeSummary,
  StartEpisodeRequest,
} from "../../src/core/wire/episodes";
import type { EpisodeStore, StoredLine } from "../store/episodeStore";
import type { EpisodeSink, RunEpisode } from "./episodeSink";

export type { EpisodeSink, RunEpisode } from "./episodeSink";

type Listener = (seq: number, event: EpisodeEvent) => void;

interface LiveEpisode {
  readonly id: string;
  readonly request: StartEpisodeRequest;
  readonly createdAt: string;
  readonly events: EpisodeEvent[];
  readonly listeners: Set<Listener>;
  readonly controller: AbortController;
  /** Runs this episode instead of the manager's runner (a branch from a fork prefix). */
  readonly run?: (sink: EpisodeSink) => Promise<Trajectory>;
  snapshot?: () => Trajectory;
  final?: Trajectory;
  /** True once the `end` event is published (after `final` is persisted, not when it is set). */
  hasEnded?: boolean;
  pendingHuman?: { callId: string; resolve: (reply: string) => void };
}

export class TooManyEpisodesError extends Error {
  constructor(
    readonly limit: number,
    wanted = 1,
    running = limit,
  ) {
    super(
      wanted <= 1
        ? `${limit} episodes are already running; wait for one to finish`
        : `${wanted} branches do not fit: ${running} of at most ${limit} episodes are running`,
    );
  }
}

/** Fixed-width random ids: safe in file names and prefix-free for SGLang rids. */
export function newEpisodeId(): string {
  return `ep_${randomBytes(8).toString("hex")}`;
}

/** Summary counts of a trajectory for the episode list. */
export function summarize(trajectory: Trajectory, prompt: string): EpisodeSummary {
  let tokens = 0;
  let trainable = 0;
  let toolCalls = 0;
  for (const segment of trajectory.segments) {
    tokens += segment.tokenIds.length;
    for (const m of segment.lossMask) trainable += m;
    toolCalls += segment.toolCalls?.length ?? 0;
  }
  return {
    id: trajectory.id,
    status: trajectory.status,
    createdAt: trajectory.createdAt ?? "",
    prompt: prompt.slice(0, 200),
    tokens,
    trainableTokens: trainable,
    turns: trajectory.segments.filter((s) => s.kind === "model").length,
    toolCalls,
    ...(trajectory.lineage
      ? { parentId: trajectory.lineage.parentId, forkIndex: trajectory.lineage.forkIndex }
      : {}),
    ...(trajectory.reward === undefined || trajectory.reward === null
      ? {}
      : { reward: trajectory.reward }),
  };
}

/**
 * Holds running episodes and the event log of each (replayable for late subscribers), enforces the
 * cap on concurrent episodes, and persists segments and finished episodes through the store.
 */
export class EpisodeManager {
  private readonly live = new Map<string, LiveEpisode>();
  private readonly finishedOrder: string[] = [];
  /** Settles when each running episode is persisted and its `end` published. */
  private readonly driving = new Set<Promise<void>>();
  private running = 0;

  constructor(
    private readonly options: {
      readonly store: EpisodeStore;
      readonly run: RunEpisode;
      readonly maxRunning: number;
      /** How many finished episodes keep their event log in memory for replay. */
      readonly keepFinished?: number;
      /** Told where each finished episode was stored. */
      readonly onStored?: (trajectory: Trajectory, at: StoredLine) => void;
    },
  ) {}

  get runningCount(): number {
    return this.running;
  }

  /**
   * Starts an episode in the background; throws TooManyEpisodesError beyond the cap. `run` replaces
   * the manager's runner for this one episode (a branch).
   */
  start(request: StartEpisodeRequest, run?: (sink: EpisodeSink) => Promise<Trajectory>): string {
    const [id] = this.startMany([{ request, ...(run ? { run } : {}) }]);
    if (id === undefined) throw new Error("startMany started nothing");
    return id;
  }

  /**
   * Starts all of them or none: throws TooManyEpisodesError when they do not all fit under the cap
   * (each one counts, so k branches take k slots).
   */
  startMany(
    episodes: readonly {
      readonly request: StartEpisodeRequest;
      readonly run?: (sink: EpisodeSink) => Promise<Trajectory>;
    }[],
  ): string[] {
    if (this.running + episodes.length > this.options.maxRunning)
      throw new TooManyEpisodesError(this.options.maxRunning, episodes.length, this.running);
    return episodes.map((e) => this.launch(e.request, e.run));
  }

  private launch(
    request: StartEpisodeRequest,
    run: ((sink: EpisodeSink) => Promise<Trajectory>) | undefined,
  ): string {
    const id = newEpisodeId();
    const episode: LiveEpisode = {
      id,
      request,
      createdAt: new Date().toISOString(),
      events: [],
      listeners: new Set(),
      controller: new AbortController(),
      ...(run ? { run } : {}),
    };
    this.live.set(id, episode);
    this.running++;
    const done = this.drive(episode).finally(() => this.driving.delete(done));
    this.driving.add(done);
    return id;
  }

  /** Runs an episode to its end: journaled as it goes, persisted, then its `end` published. */
  private async drive(episode: LiveEpisode): Promise<void> {
    const journal = new SegmentJournal(this.options.store, episode);
    // The runner's `end` is held back until the episode is persisted, so a client that sees it can
    // fetch the finished trajectory at once.
    let endEvent: EpisodeEvent | undefined;
    const sink: EpisodeSink = {
      id: episode.id,
      signal: episode.controller.signal,
      emit: (event) => {
        if (event.type === "end") {
          endEvent = event;
          return;
        }
        if (event.type === "segment") journal.record(event.segment, event.index);
        this.publish(episode, event);
      },
      askHuman: (callId, question, timeoutMs, signal) =>
        this.askHuman(episode, callId, question, timeoutMs, signal),
      setSnapshot: (snapshot) => {
        episode.snapshot = snapshot;
      },
    };
    const final = await this.runToEnd(episode, sink);
    episode.final = final;
    try {
      const at = await this.options.store.finish(final);
      this.options.onStored?.(final, at);
    } catch (error) {
      console.error(`episode ${episode.id}: could not persist: ${String(error)}`);
    }
    this.running--;
    this.publish(
      episode,
      endEvent ?? {
        type: "end",
        status: final.status,
        ...(final.endReason === undefined ? {} : { reason: final.endReason }),
      },
    );
    this.retire(episode);
  }

  /** The episode's final trajectory from its runner; what was recorded if the runner throws. */
  private async runToEnd(episode: LiveEpisode, sink: EpisodeSink): Promise<Trajectory> {
    try {
      return await (episode.run ? episode.run(sink) : this.options.run(episode.request, sink));
    } catch (error) {
      // The runner should never throw; if it does, keep what was recorded.
      const partial = episode.snapshot?.();
      return {
        ...(partial ?? {
          id: episode.id,
          source: { kind: "live" },
          format: "rollout-lens/v1",
          segments: [],
          metadata: {},
        }),
        status: "aborted",
        endReason: `internal error: ${String(error)}`,
      };
    }
  }

  /**
   * The human tool's question published as `waiting_human`; settles with the reply, or fails on
   * timeout or abort.
   */
  private askHuman(
    episode: LiveEpisode,
    callId: string,
    question: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      // Every way out clears the timer and the abort listener, so nothing outlives the wait.
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        episode.pendingHuman = undefined;
      };
      const onAbort = () => {
        settle();
        reject(new Error("episode aborted while waiting for the human"));
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`no human reply within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      episode.pendingHuman = {
        callId,
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
      };
      const deadline = Date.now() + timeoutMs;
      this.publish(episode, { type: "waiting_human", callId, question, timeoutMs, deadline });
    });
  }

  /** A finished episode's listeners dropped, and the oldest finished beyond keepFinished forgotten. */
  private retire(episode: LiveEpisode): void {
    episode.hasEnded = true;
    episode.listeners.clear();
    this.finishedOrder.push(episode.id);
    const keep = this.options.keepFinished ?? 200;
    while (this.finishedOrder.length > keep) {
      const old = this.finishedOrder.shift();
      if (old) this.live.delete(old);
    }
  }

  private publish(episode: LiveEpisode, event: EpisodeEvent): void {
    const seq = episode.events.length;
    episode.events.push(event);
    for (const listener of episode.listeners) listener(seq, event);
  }

  /** The trajectory of a live or recently finished episode (status `running` while it runs). */
  trajectory(id: string): Trajectory | undefined {
    const episode = this.live.get(id);
    if (!episode) return undefined;
    if (episode.final) return episode.final;
    const snapshot = episode.snapshot?.();
    return snapshot ? { ...snapshot, status: "running" } : undefined;
  }

  summaries(): EpisodeSummary[] {
    const out: EpisodeSummary[] = [];
    for (const episode of this.live.values()) {
      const t = this.trajectory(episode.id);
      if (t) out.push(summarize(t, episode.request.prompt));
    }
    return out;
  }

  /**
   * Replaces the kept trajectory of a finished, persisted episode (a lane added to it and stored
   * again); false while it runs or when it is no longer kept.
   */
  revise(trajectory: Trajectory): boolean {
    const episode = this.live.get(trajectory.id);
    if (!episode?.final || !episode.hasEnded) return false;
    episode.final = trajectory;
    return true;
  }

  isKnown(id: string): boolean {
    return this.live.has(id);
  }

  /**
   * Replays events from `from` and then follows new ones; returns an unsubscribe function, or
   * undefined when the episode is unknown. `end` is the last event a listener gets: it is published
   * once the episode is persisted, and the listener is dropped after it.
   */
  subscribe(id: string, from: number, listener: Listener): (() => void) | undefined {
    const episode = this.live.get(id);
    if (!episode) return undefined;
    for (let seq = Math.max(0, from); seq < episode.events.length; seq++) {
      const event = episode.events[seq];
      if (event) listener(seq, event);
    }
    // Not `final`: it is set before the episode is persisted, and a subscriber arriving in that
    // window must still get the `end` event published after it.
    if (episode.hasEnded) return () => {};
    episode.listeners.add(listener);
    return () => episode.listeners.delete(listener);
  }

  /** Aborts a running episode; false when it is unknown or already finished. */
  abort(id: string): boolean {
    const episode = this.live.get(id);
    if (!episode || episode.final) return false;
    episode.controller.abort(new Error("aborted by the user"));
    return true;
  }

  /** Delivers the researcher's reply to a waiting human tool; false when none is waiting. */
  humanReply(id: string, reply: string): boolean {
    const pending = this.live.get(id)?.pendingHuman;
    if (!pending) return false;
    pending.resolve(reply);
    return true;
  }

  /** Aborts every running episode and waits (at most `timeoutMs`) for them to be persisted. */
  async shutdown(timeoutMs = 5_000): Promise<void> {
    for (const episode of this.live.values()) {
      if (!episode.final) episode.controller.abort(new Error("server shutting down"));
    }
    if (this.driving.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([Promise.allSettled([...this.driving]), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * An episode's segments journaled as they are published: the header on the first one (from the
 * episode's snapshot), then the segments published in one go (a branch's copied prefix) in one
 * write and fsync. A failed write surfaces at the episode's next segment (the runner ends it as a
 * failure).
 */
class SegmentJournal {
  private hasBegun = false;
  private pendingSegments: Segment[] = [];
  private pendingIndices: number[] = [];
  private error: Error | undefined;

  constructor(
    private readonly store: EpisodeStore,
    private readonly episode: LiveEpisode,
  ) {}

  record(segment: Segment, index: number): void {
    if (this.error) throw this.error;
    if (!this.hasBegun && this.episode.snapshot) {
      const { segments: _s, status: _st, ...header } = this.episode.snapshot();
      this.store.begin(header);
      this.hasBegun = true;
    }
    if (!this.hasBegun) return;
    this.pendingSegments.push(segment);
    this.pendingIndices.push(index);
    if (this.pendingSegments.length === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const batch = this.pendingSegments;
    const indices = this.pendingIndices;
    this.pendingSegments = [];
    this.pendingIndices = [];
    try {
      this.store.appendSegments(this.episode.id, batch, indices);
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error));
      console.error(`episode ${this.episode.id}: could not journal: ${this.error.message}`);
    }
  }
}
