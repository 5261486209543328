#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so `npx rollout-lens` needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../server/cli.ts");
process.exitCode = await main(process.argv.slice(2));
