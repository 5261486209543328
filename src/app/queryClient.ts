import { QueryClient } from "@tanstack/react-query";

/** The app's one QueryClient (main.tsx provides it; startFirstRoute.ts fills it before that). */
export const queryClient = new QueryClient();
