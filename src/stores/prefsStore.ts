import { create } from "zustand";
import { persist } from "zustand/middleware";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { DEFAULT_HEAT_FLOOR, heatFloorOrDefault } from "../core/layout/heatScale";
import { CORRECTION_KINDS, type Correction, correction } from "../core/mismatch/mismatch";
import { DEFAULT_MISMATCH_EXTENT, mismatchExtentOrDefault } from "../core/mismatch/mismatchScale";

export type Theme = "light" | "dark";

interface PrefsState {
  readonly theme: Theme;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  readonly lowConfidenceThreshold: number;
  /** The heatmap's floor probability: one of core/layout/heatScale's HEAT_FLOORS. */
  readonly heatFloor: number;
  /** Mismatch colouring (docs/mismatch.md); it and the heatmap exclude each other. */
  readonly isMismatch: boolean;
  /** |δ| where the mismatch scale reaches its darkest shade: one of MISMATCH_EXTENTS. */
  readonly mismatchExtent: number;
  /** "Next mismatch above": the |δ| threshold. */
  readonly mismatchThreshold: number;
  /** The correction replayed in mismatch mode, with its thresholds. */
  readonly correction: Correction;
  /** Column mappings the user applied, by table schema (columnMapping.ts schemaKey). */
  readonly columnMappings: Readonly<Record<string, ColumnMapping>>;
  themeToggled(): void;
  whitespaceToggled(): void;
  heatmapToggled(): void;
  thresholdChanged(logprob: number): void;
  heatFloorChanged(floor: number): void;
  mismatchToggled(): void;
  mismatchExtentChanged(extent: number): void;
  mismatchThresholdChanged(delta: number): void;
  correctionChanged(change: Partial<Correction>): void;
  columnMappingApplied(key: string, mapping: ColumnMapping): void;
}

const DEFAULT_CORRECTION = correction("token-trunc");

/** Whether a (persisted or edited) correction can be replayed: a known kind, positive thresholds, lo ≤ hi. */
function isValidCorrection(value: unknown): value is Correction {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Partial<Correction>;
  const positive = (x: unknown): x is number =>
    typeof x === "number" && x > 0 && Number.isFinite(x);
  return (
    CORRECTION_KINDS.includes(c.kind as Correction["kind"]) &&
    positive(c.cap) &&
    positive(c.lo) &&
    positive(c.hi) &&
    c.lo <= c.hi
  );
}

/** The persisted correction (the same object, so selectors stay stable), else the default. */
export function correctionOrDefault(value: unknown): Correction {
  return isValidCorrection(value) ? value : DEFAULT_CORRECTION;
}

function systemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches
    ? "dark"
    : "light";
}

/**
 * Display preferences and the column mappings applied per table schema, persisted in localStorage
 * (nothing else in the app is).
 */
const usePrefsStore = create<PrefsState>()(
  persist(
    (set) => ({
      theme: systemTheme(),
      showWhitespace: false,
      isHeatmap: false,
      lowConfidenceThreshold: -2,
      heatFloor: DEFAULT_HEAT_FLOOR,
      isMismatch: false,
      mismatchExtent: DEFAULT_MISMATCH_EXTENT,
      mismatchThreshold: 0.5,
      correction: DEFAULT_CORRECTION,
      columnMappings: {},
      themeToggled: () => set((s) => ({ theme: s.theme === "dark" ? "light" : "dark" })),
      whitespaceToggled: () => set((s) => ({ showWhitespace: !s.showWhitespace })),
      heatmapToggled: () => set((s) => ({ isHeatmap: !s.isHeatmap, isMismatch: false })),
      thresholdChanged: (logprob) => set({ lowConfidenceThreshold: logprob }),
      heatFloorChanged: (floor) => set({ heatFloor: heatFloorOrDefault(floor) }),
      mismatchToggled: () => set((s) => ({ isMismatch: !s.isMismatch, isHeatmap: false })),
      mismatchExtentChanged: (extent) => set({ mismatchExtent: mismatchExtentOrDefault(extent) }),
      mismatchThresholdChanged: (delta) => set({ mismatchThreshold: delta }),
      correctionChanged: (change) =>
        set((s) => {
          // An invalid edit (an empty field, lo above hi) keeps the last valid correction.
          const next = { ...correctionOrDefault(s.correction), ...change };
          return isValidCorrection(next) ? { correction: next } : {};
        }),
      columnMappingApplied: (key, mapping) =>
        set((s) => ({ columnMappings: { ...s.columnMappings, [key]: mapping } })),
    }),
    { name: "rollout-lens-prefs", version: 1 },
  ),
);

/** The store itself, for its unit test only (components use the hooks and actions below). */
export const usePrefsStoreForTests = usePrefsStore;

export const useTheme = () => usePrefsStore((s) => s.theme);
export const useShowWhitespace = () => usePrefsStore((s) => s.showWhitespace);
export const useIsHeatmap = () => usePrefsStore((s) => s.isHeatmap);
export const useHeatFloor = () => usePrefsStore((s) => heatFloorOrDefault(s.heatFloor));
export const useLowConfidenceThreshold = () => usePrefsStore((s) => s.lowConfidenceThreshold);
export const useIsMismatch = () => usePrefsStore((s) => s.isMismatch);
export const useMismatchExtent = () =>
  usePrefsStore((s) => mismatchExtentOrDefault(s.mismatchExtent));
export const useMismatchThreshold = () => usePrefsStore((s) => s.mismatchThreshold);
export const useCorrection = () => usePrefsStore((s) => correctionOrDefault(s.correction));

/** Actions are stable functions; components call them without subscribing to the store. */
export const prefsActions = {
  themeToggled: () => usePrefsStore.getState().themeToggled(),
  whitespaceToggled: () => usePrefsStore.getState().whitespaceToggled(),
  heatmapToggled: () => usePrefsStore.getState().heatmapToggled(),
  thresholdChanged: (logprob: number) => usePrefsStore.getState().thresholdChanged(logprob),
  heatFloorChanged: (floor: number) => usePrefsStore.getState().heatFloorChanged(floor),
  mismatchToggled: () => usePrefsStore.getState().mismatchToggled(),
  /** Mismatch mode on (after a rescore), whatever it was. */
  mismatchShown: () => {
    if (!usePrefsStore.getState().isMismatch) usePrefsStore.getState().mismatchToggled();
  },
  mismatchExtentChanged: (extent: number) => usePrefsStore.getState().mismatchExtentChanged(extent),
  mismatchThresholdChanged: (delta: number) =>
    usePrefsStore.getState().mismatchThresholdChanged(delta),
  correctionChanged: (change: Partial<Correction>) =>
    usePrefsStore.getState().correctionChanged(change),
  columnMappingApplied: (key: string, mapping: ColumnMapping) =>
    usePrefsStore.getState().columnMappingApplied(key, mapping),
};

/** The mapping last applied to tables of schema `key` (read once, when such a table opens). */
export const rememberedColumnMapping = (key: string): ColumnMapping | undefined =>
  usePrefsStore.getState().columnMappings?.[key];
