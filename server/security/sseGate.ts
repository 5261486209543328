/** Why a new SSE stream was refused, with the HTTP status to answer. */
export interface SseRefusal {
  readonly status: 429 | 503;
  readonly error: string;
}

/**
 * Caps open SSE streams, per episode and in total: each open stream holds a socket and a listener,
 * so an unbounded number of EventSources (a buggy tab, a loop) would exhaust the server.
 */
export class SseGate {
  private total = 0;
  private readonly perEpisode = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerEpisode: number,
  ) {}

  get openCount(): number {
    return this.total;
  }

  /** Takes a slot for one stream of `episodeId`; returns its release function or a refusal. */
  enter(episodeId: string): { ok: true; release: () => void } | ({ ok: false } & SseRefusal) {
    if (this.total >= this.maxTotal) {
      return {
        ok: false,
        status: 503,
        error: `${this.maxTotal} event streams are open; close some tabs and retry`,
      };
    }
    const current = this.perEpisode.get(episodeId) ?? 0;
    if (current >= this.maxPerEpisode) {
      return {
        ok: false,
        status: 429,
        error: `episode "${episodeId}" already has ${this.maxPerEpisode} event streams open`,
      };
    }
    this.total++;
    this.perEpisode.set(episodeId, current + 1);
    let isReleased = false;
    return {
      ok: true,
      release: () => {
        if (isReleased) return;
        isReleased = true;
        this.total--;
        const left = (this.perEpisode.get(episodeId) ?? 1) - 1;
        if (left <= 0) this.perEpisode.delete(episodeId);
        else this.perEpisode.set(episodeId, left);
      },
    };
  }
}
