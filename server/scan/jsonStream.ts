import type { CommandIo } from "../commands/commandIo";

/** One JSON document written in pieces: `write` each piece as it comes, `end` with the last. */
export interface JsonStream {
  write(text: string): void;
  end(text: string): void;
}

/**
 * Pieces of one JSON document, written as they come (`io.write`), else joined for `io.out`. The
 * scanning commands' streamed `--json` (drift, mismatch, groups): memory holds only what is in
 * flight, however big the input.
 */
export function jsonWriter(io: CommandIo): JsonStream {
  const direct = io.write;
  if (direct) {
    // Small pieces are gathered into writes of about 64 KiB.
    let buffered = "";
    return {
      write(text) {
        buffered += text;
        if (buffered.length >= 1 << 16) {
          direct(buffered);
          buffered = "";
        }
      },
      end(text) {
        direct(`${buffered}${text}\n`);
      },
    };
  }
  const pieces: string[] = [];
  return {
    write: (text) => pieces.push(text),
    end: (text) => io.out(`${pieces.join("")}${text}`),
  };
}

/** `{...head, "files":[` as text: the opening of a report whose files are streamed after it. */
export function openFiles(head: Record<string, unknown>): string {
  const fields = JSON.stringify(head).slice(0, -1);
  return `${fields}${fields === "{" ? "" : ","}"files":[`;
}

/** `value`'s fields after those already written (`,"a":1,"b":2}`), to close a streamed object. */
export function restOf(value: Record<string, unknown>): string {
  const text = JSON.stringify(value);
  return text === "{}" ? "}" : `,${text.slice(1)}`;
}
