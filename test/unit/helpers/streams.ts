/** Bytes as a ReadableStream cut into chunks of `chunk` bytes (what a network or File.stream() hands the reader). */
export function streamOf(bytes: Uint8Array, chunk = 7): ReadableStream<Uint8Array> {
  let o = 0;
  return new ReadableStream({
    pull(c) {
      if (o >= bytes.length) return c.close();
      c.enqueue(bytes.slice(o, o + chunk));
      o += chunk;
    },
  });
}
