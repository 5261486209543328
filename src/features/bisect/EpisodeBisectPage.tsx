import { EpisodeSubpage } from "../episodes/EpisodeSubpage";
import { BisectLab } from "./BisectLab";

/** `/episodes/:id/bisect[?knob=]`: an episode's rescoring bisect lab (docs/bisect.md). */
export function EpisodeBisectPage() {
  return (
    <EpisodeSubpage current="Bisect">
      {(trajectory) => <BisectLab target={{ episodeId: trajectory.id }} />}
    </EpisodeSubpage>
  );
}
