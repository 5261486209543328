import { create } from "zustand";
import type { DriftMode } from "../../core/drift/types";

interface DriftPrefsState {
  /** undefined: chosen per trajectory (core/tokenizer/chooseTokenizer.ts). */
  readonly tokenizer: string | undefined;
  readonly mode: DriftMode;
  tokenizerPicked(name: string | undefined): void;
  modePicked(mode: DriftMode): void;
}

/**
 * Which tokenizer decodes and retokenizes recorded ids, and which drift check is shown: shared by
 * a file's scan, its trajectories' token view and their drift view.
 */
const useDriftPrefsStore = create<DriftPrefsState>()((set) => ({
  tokenizer: undefined,
  mode: "roundtrip",
  tokenizerPicked: (tokenizer) => set({ tokenizer }),
  modePicked: (mode) => set({ mode }),
}));

export const useDriftTokenizerPick = () => useDriftPrefsStore((s) => s.tokenizer);
export const useDriftMode = () => useDriftPrefsStore((s) => s.mode);
export const driftPrefsActions = {
  /** The tokenizer picked now, read outside React. */
  picked: () => useDriftPrefsStore.getState().tokenizer,
  tokenizerPicked: (name: string | undefined) =>
    useDriftPrefsStore.getState().tokenizerPicked(name),
  modePicked: (mode: DriftMode) => useDriftPrefsStore.getState().modePicked(mode),
};
