import { create } from "zustand";
import { persist } from "zustand/middleware";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { DEFAULT_HEAT_FLOOR, heatFloorOrDefault } from "../core/layout/heatScale";

export type Theme = "light" | "dark";

interface PrefsState {
  readonly theme: Theme;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  readonly lowConfidenceThreshold: number;
  /** The heatmap's floor probability: one of core/layout/heatScale's HEAT_FLOORS. */
  readonly heatFloor: number;
  /** Column mappings the user applied, by table schema (columnMapping.ts schemaKey). */
  readonly columnMappings: Readonly<Record<string, ColumnMapping>>;
  themeToggled(): void;
  whitespaceToggled(): void;
  heatmapToggled(): void;
  thresholdChanged(logprob: number): void;
  heatFloorChanged(floor: number): void;
  columnMappingApplied(key: string, mapping: ColumnMapping): void;
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
      columnMappings: {},
      themeToggled: () => set((s) => ({ theme: s.theme === "dark" ? "light" : "dark" })),
      whitespaceToggled: () => set((s) => ({ showWhitespace: !s.showWhitespace })),
      heatmapToggled: () => set((s) => ({ isHeatmap: !s.isHeatmap })),
      thresholdChanged: (logprob) => set({ lowConfidenceThreshold: logprob }),
      heatFloorChanged: (floor) => set({ heatFloor: heatFloorOrDefault(floor) }),
      columnMappingApplied: (key, mapping) =>
        set((s) => ({ columnMappings: { ...s.columnMappings, [key]: mapping } })),
    }),
    { name: "rollout-lens-prefs", version: 1 },
  ),
);

export const useTheme = () => usePrefsStore((s) => s.theme);
export const useShowWhitespace = () => usePrefsStore((s) => s.showWhitespace);
export const useIsHeatmap = () => usePrefsStore((s) => s.isHeatmap);
export const useHeatFloor = () => usePrefsStore((s) => heatFloorOrDefault(s.heatFloor));
export const useLowConfidenceThreshold = () => usePrefsStore((s) => s.lowConfidenceThreshold);

/** Actions are stable functions; components call them without subscribing to the store. */
export const prefsActions = {
  themeToggled: () => usePrefsStore.getState().themeToggled(),
  whitespaceToggled: () => usePrefsStore.getState().whitespaceToggled(),
  heatmapToggled: () => usePrefsStore.getState().heatmapToggled(),
  thresholdChanged: (logprob: number) => usePrefsStore.getState().thresholdChanged(logprob),
  heatFloorChanged: (floor: number) => usePrefsStore.getState().heatFloorChanged(floor),
  columnMappingApplied: (key: string, mapping: ColumnMapping) =>
    usePrefsStore.getState().columnMappingApplied(key, mapping),
};

/** The mapping last applied to tables of schema `key` (read once, when such a table opens). */
export const rememberedColumnMapping = (key: string): ColumnMapping | undefined =>
  usePrefsStore.getState().columnMappings?.[key];
