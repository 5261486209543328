import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

/** One line of a text file: 1-based number and text without the line break. */
export interface NumberedLine {
  readonly lineNo: number;
  readonly text: string;
}

/**
 * Streams a file line by line (LF or CRLF) without loading it whole, so multi-GB rollout files
 * stay within memory. Rejects (on the first iteration) when the file cannot be opened.
 */
export async function* readLines(path: string): AsyncGenerator<NumberedLine> {
  const stream = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNo = 0;
  try {
    for await (const text of lines) {
      lineNo += 1;
      yield { lineNo, text };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
