import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const apiPort = Number(process.env.ROLLOUT_LENS_API_PORT ?? 5174);

// hyparquet-compressors has no "sideEffects": false, so its index would pull every decoder into the
// rollout-file worker, and its Snappy decoder compiles WebAssembly on load, which the app's CSP
// refuses (the worker would then read no file at all). Its modules are pure: let the bundler
// drop the ones not imported (src/core/formats/parquet.ts imports the ZSTD decoder only).
function pureParquetDecoders(): Plugin {
  return {
    name: "pure-parquet-decoders",
    transform(code, id) {
      return id.includes("/hyparquet-compressors/") ? { code, moduleSideEffects: false } : null;
    },
  };
}

export default defineConfig({
  plugins: [react(), pureParquetDecoders()],
  server: {
    proxy: { "/api": `http://127.0.0.1:${apiPort}` },
  },
  worker: { format: "es", plugins: () => [pureParquetDecoders()] },
  // The two largest libraries in chunks of their own, loaded in parallel with the app's code and
  // cached across its releases: React with its router, and the charts (recharts and its d3 parts).
  // No catch-all vendor chunk: it would pull the lazily loaded tokenizer libraries into first load.
  build: {
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              name: "react",
              test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
              priority: 3,
            },
            {
              name: "charts",
              test: /node_modules[\\/](recharts|d3-[^\\/]+|victory-vendor|decimal\.js-light|es-toolkit|@reduxjs|immer|reselect|react-redux|eventemitter3|internmap|tiny-invariant|clsx|use-sync-external-store)[\\/]/,
              priority: 2,
            },
          ],
        },
      },
    },
  },
});
