import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const apiPort = Number(process.env.ROLLOUT_LENS_API_PORT ?? 5174);

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { "/api": `http://127.0.0.1:${apiPort}` },
  },
  worker: { format: "es" },
});
