/**
 * The mismatch view's colour scale: δ = logp_a − logp_b shaded on a diverging scale centred on 0
 * (δ = 0, r = 1, reads neutral). Blue where lane a gives the token less probability than lane b
 * (r < 1), red where it gives it more (r > 1); linear in δ up to a choosable extent, where the
 * darkest shade starts. Like the heatmap's scale (`../layout/heatScale.ts`) it is theme-free, so
 * the DOM rows and the canvas fast path paint the same colours in either theme.
 */

/** ColorBrewer RdBu (colour-blind safe), reversed so blue is negative: 11 stops, white-ish centre. */
const RDBU: readonly (readonly [number, number, number])[] = [
  [5, 48, 97],
  [33, 102, 172],
  [67, 147, 195],
  [146, 197, 222],
  [209, 229, 240],
  [247, 247, 247],
  [253, 219, 199],
  [244, 165, 130],
  [214, 96, 77],
  [178, 24, 43],
  [103, 0, 31],
];

/** The extents a user can choose, in nats of |δ|: at or beyond one, the darkest shade. */
export const MISMATCH_EXTENTS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5];

/** Default extent: |δ| = 0.5 (r outside [0.61, 1.65]) is the darkest shade. */
export const DEFAULT_MISMATCH_EXTENT = 0.5;

/** An extent the scale accepts: one of `MISMATCH_EXTENTS`, else the default (a stale pref). */
export function mismatchExtentOrDefault(extent: unknown): number {
  return typeof extent === "number" && MISMATCH_EXTENTS.includes(extent)
    ? extent
    : DEFAULT_MISMATCH_EXTENT;
}

/**
 * Where δ sits on the scale: −1 at −extent and below, 0 at δ = 0, +1 at +extent and above,
 * linear between. NaN (not compared) gives NaN: the view hatches it, never shades it as 0.
 */
export function mismatchPosition(delta: number, extent: number): number {
  if (Number.isNaN(delta)) return Number.NaN;
  const t = delta / extent;
  return t <= -1 ? -1 : t >= 1 ? 1 : t;
}

/** The diverging colour at `t` in [−1, 1], as 0–255 channels. */
export function diverging(t: number): readonly [number, number, number] {
  const x = ((Math.min(1, Math.max(-1, t)) + 1) / 2) * (RDBU.length - 1);
  const i = Math.min(RDBU.length - 2, Math.floor(x));
  const f = x - i;
  const a = RDBU[i] ?? [0, 0, 0];
  const b = RDBU[i + 1] ?? a;
  const mix = (k: 0 | 1 | 2) => Math.round(a[k] + (b[k] - a[k]) * f);
  return [mix(0), mix(1), mix(2)];
}

/** Steps per half of the scale: colours are taken at t rounded to 1/256, indistinguishable by eye. */
const STEPS = 256;

/** The colour of each step, built on first use: a token's colour is then a table read, no strings. */
let table: readonly { readonly background: string; readonly color: string }[] | undefined;

function colorTable() {
  table ??= Array.from({ length: 2 * STEPS + 1 }, (_, i) => {
    const t = i / STEPS - 1;
    const [r, g, b] = diverging(t);
    // Both ends of RdBu are dark: white text beyond ~60 % of the way out, near-black inside.
    return {
      background: `rgb(${r}, ${g}, ${b})`,
      color: Math.abs(t) > 0.6 ? "#ffffff" : "#111111",
    };
  });
  return table;
}

/**
 * Background and text colour of a token with log-ratio `delta` on the scale of `extent` (the
 * same object for the same step: the canvas fast path paints a screen of them per frame).
 */
export function mismatchColor(
  delta: number,
  extent: number,
): { readonly background: string; readonly color: string } {
  const t = mismatchPosition(delta, extent);
  const step = Number.isNaN(t) ? STEPS : Math.round((t + 1) * STEPS);
  return colorTable()[step] ?? { background: "rgb(0, 0, 0)", color: "#ffffff" };
}

/** CSS gradient of the whole scale, −extent (left) to +extent (right), for the legend. */
export const mismatchGradient = `linear-gradient(to right, ${RDBU.map(
  ([r, g, b]) => `rgb(${r}, ${g}, ${b})`,
).join(", ")})`;

/** `0.5` -> "0.5", `0.05` -> "0.05", `2` -> "2": a δ as the legend prints it. */
function shortNumber(x: number): string {
  return String(Number(x.toPrecision(2)));
}

export interface MismatchTick {
  /** Position on the scale, 0 (−extent) to 1 (+extent). */
  readonly at: number;
  /** δ, with "≤"/"≥" at the ends. */
  readonly label: string;
  /** The ratio r = exp(δ) there, as "×0.61". */
  readonly ratio: string;
}

/** Five legend ticks: ∓extent, ∓extent/2 and 0, each with its δ and its ratio r. */
export function mismatchTicks(extent: number): MismatchTick[] {
  return [-1, -0.5, 0, 0.5, 1].map((f) => {
    const delta = f * extent;
    const sign = delta > 0 ? "+" : delta < 0 ? "−" : "";
    const end = f === -1 ? "≤" : f === 1 ? "≥" : "";
    return {
      at: (f + 1) / 2,
      label: `${end}${sign}${shortNumber(Math.abs(delta))}`,
      ratio: `×${Number(Math.exp(delta).toPrecision(2))}`,
    };
  });
}

/** The marks of a replayed correction's verdicts (bars under the token, in either theme). */
export const VERDICT_COLORS = { clipped: "#f08c00", masked: "#7048e8" } as const;
