import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { startRoute } from "./app/startRoute";
import "./app/global.css";

const queryClient = new QueryClient();
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
startRoute(queryClient, window.location.pathname);

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
