import { Link } from "react-router";
import { demoNames } from "../core/demo/demoTrajectories";

const DESCRIPTIONS: Readonly<Record<(typeof demoNames)[number], string>> = {
  calculator: "a Qwen3 episode: tool call, tool result, answer",
  cutoff: "an episode cut by the iteration limit",
  huge: "131,072 tokens, ending in a length cut",
  hostile: "rollout text that tries to run script or hide itself, shown inert",
};

/** Start page: links to the demo trajectories and the live playground. */
export function HomePage() {
  return (
    <section>
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
      <h2>
        <Link to="/files">Open a rollout file</Link>
      </h2>
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
