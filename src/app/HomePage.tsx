import { Link } from "react-router";
import { demoNames } from "../core/demo/demoTrajectories";
import { FORMAT_IDS, type FormatId } from "../core/formats/types";
import styles from "./HomePage.module.css";

const DESCRIPTIONS: Readonly<Record<(typeof demoNames)[number], string>> = {
  calculator: "a Qwen3 episode: tool call, tool result, answer",
  cutoff: "an episode cut by the iteration limit",
  huge: "131,072 tokens, ending in a length cut",
  hostile: "rollout text that tries to run script or hide itself, shown inert",
};

/** Where a format's id does not say which tool writes it. */
const PRODUCER: Partial<Record<FormatId, string>> = {
  strands: "strands-sglang",
  prime: "prime-rl / verifiers",
  "nemo-rl": "NeMo-RL",
  art: "ART",
  atif: "ATIF",
};

/** Every format the readers know (FORMAT_IDS, the one registry), as the start page lists them. */
const FORMATS_TEXT = FORMAT_IDS.map((id) => PRODUCER[id] ?? id).join(", ");

/** Start page: what the tool is for, and where to begin. */
export function HomePage() {
  return (
    <section className={styles.home}>
      <p className={styles.intro}>
        Every token an agent episode produced, what it was trained on (loss mask), how sure the
        model was (logprobs), where tools were called and where the episode was cut — and whether
        the tokens a text pipeline would rebuild are the tokens the model actually generated.
      </p>
      <h2>Live episodes</h2>
      <ul>
        <li>
          <Link to="/playground">Playground</Link> — run an agent episode against SGLang (or the
          embedded simulator) and watch its tokens arrive
        </li>
        <li>
          <Link to="/episodes">Episodes</Link> — reopen finished episodes in the trajectory view
        </li>
      </ul>
      <h2>Rollout files</h2>
      <ul>
        <li>
          <Link to="/files">Open a rollout file</Link> — JSONL, JSON or Parquet written by{" "}
          <span data-testid="home-formats">{FORMATS_TEXT}</span>: browse, filter, chart, and check
          retokenization drift
        </li>
      </ul>
      <h2>Demo trajectories</h2>
      <ul>
        {demoNames.map((name) => (
          <li key={name}>
            <Link to={`/demo/${name}`}>{name}</Link> — {DESCRIPTIONS[name]}
          </li>
        ))}
      </ul>
    </section>
  );
}
