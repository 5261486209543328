import { useMutation } from "@tanstack/react-query";
import { useMemo } from "react";
import { useSearchParams } from "react-router";
import { type BisectTarget, runBisect } from "../../api/bisect";
import { KNOB_NAMES, type RowName } from "../../core/bisect/knobs";
import { bisectTable } from "../../core/bisect/table";
import styles from "./BisectLab.module.css";
import { BisectTable } from "./BisectTable";
import { downloadBundle } from "./downloadBundle";
import { KnobLanes } from "./KnobLanes";

const ROW_NAMES: readonly RowName[] = ["reference", ...KNOB_NAMES];

/**
 * The rescoring bisect lab of one trajectory (docs/bisect.md): runs every knob through the
 * server, shows the table, the per-token lanes of a knob (`?knob=`) and exports the bundle.
 */
export function BisectLab({ target }: { readonly target: BisectTarget }) {
  const [params, setParams] = useSearchParams();
  const knobParam = params.get("knob");
  const selected = ROW_NAMES.find((k) => k === knobParam);
  const run = useMutation({ mutationFn: () => runBisect(target) });
  const bundle = run.data;
  const rows = useMemo(() => (bundle ? bisectTable(bundle) : undefined), [bundle]);
  const handleSelect = (knob: RowName) =>
    setParams(
      (p) => {
        p.set("knob", knob);
        return p;
      },
      { replace: true },
    );
  return (
    <section className={styles.lab} aria-label="bisect lab">
      <p className={styles.intro}>
        Rescore these exact ids with SGLang, one knob changed at a time (temperature, top_p/top_k
        renormalisation, batch co-tenants, token-by-token decode, a second upstream), and compare
        each lane with the {bundle?.baseline.name ?? "sampled"} logprobs.
      </p>
      <div className={styles.actions}>
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
          {run.isPending ? "Rescoring every knob…" : bundle ? "Run again" : "Run bisect"}
        </button>
        {bundle && (
          <button type="button" onClick={() => downloadBundle(bundle)}>
            Export bundle
          </button>
        )}
        {bundle && (
          <span className={styles.muted} data-testid="bisect-summary">
            {bundle.ids.length} ids, {bundle.mask.filter((m) => m === 1).length} trained · baseline{" "}
            {bundle.baseline.name} · {bundle.server.url}
          </span>
        )}
      </div>
      {run.isError && (
        <p className={styles.error} role="alert">
          {run.error.message}
        </p>
      )}
      {rows && <BisectTable rows={rows} selected={selected} onSelect={handleSelect} />}
      {bundle && selected && <KnobLanes bundle={bundle} knob={selected} />}
    </section>
  );
}
