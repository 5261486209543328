import { create } from "zustand";
import type { PlaygroundForm } from "../../core/playground/startRequest";

type TextField = Exclude<keyof PlaygroundForm, "tools" | "isStreaming">;

interface FormState extends PlaygroundForm {
  fieldEdited(field: TextField, value: string): void;
  toolToggled(name: string): void;
  streamingToggled(): void;
  episodeFollowed(fields: Partial<PlaygroundForm>): void;
}

/** What the researcher typed in the playground; kept while they look at other pages. */
const useFormStore = create<FormState>()((set) => ({
  system: "",
  prompt: "What is 12 * 7? Use the calculator.",
  tools: ["calculator"],
  maxIterations: "8",
  maxNewTokens: "1024",
  temperature: "0.7",
  topP: "0.95",
  topK: "",
  topLogprobs: "5",
  policy: "calculator",
  tokenizer: "",
  isStreaming: true,
  fieldEdited: (field, value) => set({ [field]: value }),
  toolToggled: (name) =>
    set((s) => ({
      tools: s.tools.includes(name) ? s.tools.filter((t) => t !== name) : [...s.tools, name],
    })),
  streamingToggled: () => set((s) => ({ isStreaming: !s.isStreaming })),
  episodeFollowed: (fields) => set(fields),
}));

/** The form's values (stable while nothing changes). */
export const usePlaygroundForm = () => useFormStore();
export const formActions = {
  fieldEdited: (field: TextField, value: string) =>
    useFormStore.getState().fieldEdited(field, value),
  toolToggled: (name: string) => useFormStore.getState().toolToggled(name),
  streamingToggled: () => useFormStore.getState().streamingToggled(),
  /** A followed episode (`?episode=ID`) shows what it ran with (core/playground/formOfEpisode). */
  episodeFollowed: (fields: Partial<PlaygroundForm>) =>
    useFormStore.getState().episodeFollowed(fields),
};
