/**
 * Splits an SSE byte stream into the payloads of its `data:` fields, one string per event.
 * SGLang sends `data: <json>\n\n` events and ends with `data: [DONE]` (docs/sglang.md); we accept CRLF too
 * and join multi-line data fields with `\n` as the SSE standard says.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    yield* drainEvents();
  }
  buffer += `${decoder.decode()}\n\n`;
  yield* drainEvents();

  function* drainEvents(): Generator<string> {
    buffer = buffer.replace(/\r\n/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
      if (data.length > 0) yield data.join("\n");
      end = buffer.indexOf("\n\n");
    }
  }
}
