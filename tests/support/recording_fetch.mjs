// A fetch that records every answer it receives, for the checks that read a
// test's wire afterwards (the oracle's canary scan, wire_check.mjs). One
// `*.http` file per answer: `METHOD URL`, `STATUS text`, the headers, a blank
// line, the body as received.
import fs from 'node:fs';
import path from 'node:path';

/** A fetch that tees every response into @p dir (none: plain fetch) while
 *  handing the body on chunk by chunk, so SSE keeps streaming. */
export function makeRecordingFetch(dir) {
  let seq = 0;
  const tag = `${process.pid}-${path.basename(process.argv[1] ?? 'node', '.mjs')}`;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!dir) return response;
    // openapi-fetch passes a Request; the SDKs pass a URL and init.
    const method = (init?.method ?? input?.method ?? 'GET').toUpperCase();
    const url = typeof input === 'string' ? input : input.url ?? String(input);
    const file = path.join(dir, `${tag}-${String(++seq).padStart(4, '0')}.http`);
    const fd = fs.openSync(file, 'w', 0o600);
    let head = `${method} ${url}\n${response.status} ${response.statusText}\n`;
    for (const [k, v] of response.headers) head += `${k}: ${v}\n`;
    fs.writeSync(fd, head + '\n');
    if (!response.body || [101, 204, 205, 304].includes(response.status)) {
      fs.closeSync(fd);
      return response;
    }
    let closed = false;
    const close = () => { if (!closed) { closed = true; fs.closeSync(fd); } };
    // Pull-through: each chunk is written synchronously and handed on at once;
    // a caller that breaks out cancels the upstream too.
    const reader = response.body.getReader();
    const passthrough = new ReadableStream({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) { close(); controller.close(); return; }
          fs.writeSync(fd, value);
          controller.enqueue(value);
        } catch (err) { close(); controller.error(err); }
      },
      cancel(reason) { close(); return reader.cancel(reason); },
    });
    const copy = new Response(passthrough, {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
    Object.defineProperty(copy, 'url', { value: response.url });
    return copy;
  };
}
