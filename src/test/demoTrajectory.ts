// The demo generator lives in core (the app renders it too); tests import it from here.
export { buildDemo, type Demo, demoNames, huge } from "../core/demo/demoTrajectories";
