import { create } from "zustand";
import type { DriftMode } from "../../core/drift/types";

interface DriftPrefsState {
  /** undefined: the server's default tokenizer. */
  readonly tokenizer: string | undefined;
  readonly mode: DriftMode;
  tokenizerPicked(name: string): void;
  modePicked(mode: DriftMode): void;
}

/** Which tokenizer and check the drift views use (shared by the file scan and the trajectory view). */
const useDriftPrefsStore = create<DriftPrefsState>()((set) => ({
  tokenizer: undefined,
  mode: "roundtrip",
  tokenizerPicked: (tokenizer) => set({ tokenizer }),
  modePicked: (mode) => set({ mode }),
}));

export const useDriftTokenizerPick = () => useDriftPrefsStore((s) => s.tokenizer);
export const useDriftMode = () => useDriftPrefsStore((s) => s.mode);
export const driftPrefsActions = {
  tokenizerPicked: (name: string) => useDriftPrefsStore.getState().tokenizerPicked(name),
  modePicked: (mode: DriftMode) => useDriftPrefsStore.getState().modePicked(mode),
};
