// Runs a live episode through the HTTP API as the app does, for server integration tests.

/** What `buildApp(...)` gives: an app that answers requests in process. */
interface InProcessApp {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** The calculator policy asked for two calls (23*19, then 437+1) under a system prompt. */
export const TWO_CALL_CALCULATOR = {
  prompt: "What is 23*19 and then 437+1?",
  system: "Use the calculator for arithmetic.",
  policy: "calculator",
  max_iterations: 4,
} as const;

/**
 * POST /api/episodes with `body`, reads the episode's event stream to its end, and returns the
 * stored episode (GET /api/episodes/:id) as its rollout-lens/v1 JSON text. Throws on a refusal.
 */
export async function runEpisodeThroughApi(
  app: InProcessApp,
  body: Readonly<Record<string, unknown>>,
): Promise<string> {
  const started = await app.request("/api/episodes", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (started.status !== 201) {
    throw new Error(`POST /api/episodes: ${started.status} ${await started.text()}`);
  }
  const { id } = (await started.json()) as { id: string };
  await (await app.request(`/api/episodes/${id}/events`)).text();
  return (await app.request(`/api/episodes/${id}`)).text();
}
