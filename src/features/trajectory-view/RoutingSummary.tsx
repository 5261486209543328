import type { RoutingView } from "../../core/mismatch/routing";
import styles from "./RoutingSummary.module.css";

const percent = (x: number) => `${(100 * x).toFixed(1)} %`;
const abs = (x: number) => x.toFixed(4);

/** The layers that agree least, worst first (at most `n`). */
function worstLayers(perLayer: readonly number[], n: number): string {
  return perLayer
    .map((f, l) => [l, f] as const)
    .filter(([, f]) => f < 1)
    .sort((x, y) => x[1] - y[1] || x[0] - y[0])
    .slice(0, n)
    .map(([l, f]) => `layer ${l} ${percent(f)}`)
    .join(", ");
}

/**
 * MoE routing in the mismatch panel (docs/mismatch.md "MoE routing"): two routing arrays
 * compared token × layer with |δ| split by agreement, or one shown with what is missing.
 */
export function RoutingSummary({ view }: { readonly view: RoutingView }) {
  if (view.kind === "none" && view.problems.length === 0) return null;
  return (
    <div className={styles.box} data-testid="mismatch-routing">
      {view.kind === "one" && (
        <p>
          MoE routing: <code>{view.array.name}</code> ({view.array.layers} layers, top-
          {view.array.topK}, {view.array.tokens} tokens). {view.missing}.
        </p>
      )}
      {view.kind === "two" && <Comparison view={view} />}
      {view.problems.map((p) => (
        <p key={p} className={styles.muted}>
          {p}
        </p>
      ))}
    </div>
  );
}

function Comparison({ view }: { readonly view: Extract<RoutingView, { kind: "two" }> }) {
  const c = view.comparison;
  const worst = worstLayers(c.perLayer, 5);
  return (
    <p>
      MoE routing <code>{c.names[0]}</code> vs <code>{c.names[1]}</code>:{" "}
      <b data-testid="routing-agree">{percent(c.cells === 0 ? 0 : c.agreeing / c.cells)}</b> of{" "}
      {c.cells} token × layer cells agree ({c.tokens} tokens). Mean |δ| where every layer agrees{" "}
      <span data-testid="routing-delta-agree">{abs(c.allAgree.meanAbsDelta)}</span> (
      {c.allAgree.tokens} tokens), where some layer differs{" "}
      <span data-testid="routing-delta-differ">{abs(c.someDiffer.meanAbsDelta)}</span> (
      {c.someDiffer.tokens} tokens).{worst && ` Least agreeing: ${worst}.`}
    </p>
  );
}
