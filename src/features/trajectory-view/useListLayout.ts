import { useRef } from "react";
import type { Trajectory } from "../../core/trajectory/types";
import { useElementWidth } from "../../hooks/useElementWidth";
import { useMonospaceCellWidth } from "../../hooks/useMonospaceCellWidth";
import { GUTTER_PX, TOKEN_FONT } from "./rowMetrics";
import { useRowVirtualizer } from "./useRowVirtualizer";
import { type TrajectoryModel, useTokenLayout } from "./useTrajectoryModel";

/** The token list's scroller, its rows laid out to its measured width, and their virtualizer. */
export function useListLayout(trajectory: Trajectory, model: TrajectoryModel) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(scrollRef);
  const cell = useMonospaceCellWidth(TOKEN_FONT);
  // One cell stays free for a hanging newline glyph; nothing is laid out before the width is known.
  const columns = width > 0 ? Math.max(16, Math.floor((width - GUTTER_PX) / cell) - 1) : 0;
  const layout = useTokenLayout(trajectory, model, columns);
  const rows = useRowVirtualizer(scrollRef, layout);
  return { scrollRef, layout, ...rows };
}
