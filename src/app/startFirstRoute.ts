// Imported first by main.tsx, for its effect: the data of the URL the tab opened on is asked for
// as this module is evaluated, before the rest of the app's code is (in a cold browser a row's
// file list, workers and read then start that much sooner; startRoute.ts).
import { queryClient } from "./queryClient";
import { startRoute } from "./startRoute";

startRoute(queryClient, window.location.pathname);
