import { EpisodeSubpage } from "../episodes/EpisodeSubpage";
import { DriftPanel } from "./DriftPanel";
import { useDriftModeParam } from "./useDriftModeParam";

/** `/episodes/:id/drift[?mode=]`: a stored episode's retokenization drift. */
export function EpisodeDriftPage() {
  const [mode, setMode] = useDriftModeParam();
  return (
    <EpisodeSubpage current="Drift">
      {(trajectory, base) => (
        <DriftPanel
          trajectory={trajectory}
          mode={mode}
          onModeChange={setMode}
          tokenHref={(token) => `${base}?token=${token}`}
        />
      )}
    </EpisodeSubpage>
  );
}
