// Viridis (perceptually uniform, colour-blind safe), sampled at 9 stops from matplotlib's table.
const VIRIDIS: readonly (readonly [number, number, number])[] = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];

/** Background and text colour for a probability in [0, 1] on the viridis scale. */
export function heatColor(probability: number): { background: string; color: string } {
  const t = Math.min(1, Math.max(0, probability)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(t));
  const f = t - i;
  const a = VIRIDIS[i] ?? [0, 0, 0];
  const b = VIRIDIS[i + 1] ?? a;
  const mix = (k: 0 | 1 | 2) => Math.round(a[k] + (b[k] - a[k]) * f);
  return {
    background: `rgb(${mix(0)}, ${mix(1)}, ${mix(2)})`,
    // The lower half of viridis is dark: white text there, near-black above.
    color: probability < 0.62 ? "#ffffff" : "#111111",
  };
}

/** CSS gradient of the scale from p = 0 (left) to p = 1 (right), for the legend. */
export const heatGradient = `linear-gradient(to right, ${VIRIDIS.map(
  ([r, g, b]) => `rgb(${r}, ${g}, ${b})`,
).join(", ")})`;
