import { readFileSync } from "node:fs";
import { int64Bytes, op, pickle, storedZip, tensorPickle, torchZip } from "./torchZip";

/*
 * Hostile `.pt` files (docs/security.md): each must be refused with a clear error naming what is
 * wrong, without running anything, crashing or allocating what it declares. `expected` is a
 * piece of the error.
 */
export interface HostileTorchFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly expected: string;
}

/** The file `os.system` would create if anything ran the pickle's call. */
export const CANARY_PATH = "/tmp/rollout-lens-pickle-canary";

const sample = (extra: readonly (readonly number[])[]) =>
  pickle(
    op.proto,
    op.emptyDict,
    op.mark,
    op.str("samples"),
    op.emptyList,
    ...extra,
    op.append,
    op.setitems,
    op.stop,
  );

/** A rollout dump whose one sample is a list nested `depth` deep. */
function deepList(depth: number): Uint8Array {
  const opens = Array.from({ length: depth }, () => op.emptyList);
  const closes = Array.from({ length: depth - 1 }, () => op.append);
  return sample([...opens, ...closes]);
}

export function hostileTorchFiles(): HostileTorchFile[] {
  const real = new Uint8Array(
    readFileSync(new URL("../src/test/fixtures/torch/slime-rollout.pt", import.meta.url)),
  );
  const system = (module: string, name: string) =>
    torchZip(
      pickle(
        op.proto,
        op.global(module, name),
        op.str(`touch ${CANARY_PATH}`),
        op.tuple1,
        op.reduce,
        op.stop,
      ),
    );
  return [
    { name: "os-system.pt", bytes: system("os", "system"), expected: "calls os.system" },
    { name: "posix-system.pt", bytes: system("posix", "system"), expected: "calls posix.system" },
    {
      name: "builtins-eval.pt",
      bytes: system("builtins", "eval"),
      expected: "calls builtins.eval",
    },
    {
      name: "subprocess-popen.pt",
      bytes: torchZip(
        pickle(
          op.proto,
          op.global("subprocess", "Popen"),
          op.mark,
          op.str("ls"),
          op.tuple,
          op.newobj,
          op.stop,
        ),
      ),
      expected: "constructs subprocess.Popen",
    },
    {
      name: "unlisted-global.pt",
      bytes: torchZip(sample([op.global("my_lab.hooks", "run_me")])),
      expected: "names my_lab.hooks.run_me",
    },
    { name: "truncated-half.pt", bytes: real.slice(0, real.length >> 1), expected: "truncated" },
    { name: "truncated-tail.pt", bytes: real.slice(0, real.length - 10), expected: "truncated" },
    {
      name: "storage-short.pt",
      bytes: torchZip(sample(tensorPickle("0", 100, [100], [1])), { "0": int64Bytes([1, 2]) }),
      expected: "reaches element 100 of storage data/0, which holds 2",
    },
    {
      name: "lying-entry-size.pt",
      bytes: storedZip([{ name: "archive/data.pkl", data: sample([]), declaredSize: 0x7fff_ffff }]),
      expected: "declares 2147483647 bytes",
    },
    {
      name: "declared-2gb-string.pt",
      bytes: torchZip(pickle(op.proto, op.strDeclaring(0x7fff_ffff), op.stop)),
      expected: "declares 2147483647 bytes but",
    },
    {
      name: "compressed-entry.pt",
      bytes: storedZip([{ name: "archive/data.pkl", data: sample([]), method: 8 }]),
      expected: "compressed (method 8)",
    },
    { name: "deep-10000.pt", bytes: torchZip(deepList(10_000)), expected: "nested deeper than" },
    {
      name: "cycle.pt",
      bytes: torchZip(sample([op.emptyList, op.binput(9), op.binget(9), op.append])),
      expected: "nested deeper than",
    },
    {
      name: "memo-before-put.pt",
      bytes: torchZip(pickle(op.proto, op.binget(7), op.stop)),
      expected: "memo entry 7 read before it was written",
    },
    {
      name: "no-stop.pt",
      bytes: torchZip(pickle(op.proto, op.emptyList)),
      expected: "ends without STOP",
    },
  ];
}
