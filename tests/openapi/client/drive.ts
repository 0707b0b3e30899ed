// Drives native routes through a client generated from the served document
// (openapi-typescript writes api.d.ts beside this file; openapi-fetch makes
// the calls). tsc type-checks every path, parameter and body against the
// document before this runs, so a fragment that disagrees with these calls
// fails the compile.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export interface Driven {
  written: number;
  readBack: string;
  listed: string[];
  shellOut: string;
  pid: number;
  processState: string;
  cpuCount: number;
  offered: number;
  missingStatus: number;
}

function must<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) {
    throw new Error(`${what}: HTTP ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

// fetchImpl records the answers, for the suite's check of every answer.
export async function drive(
  baseUrl: string,
  token: string,
  fetchImpl: (input: Request) => Promise<Response>,
): Promise<Driven> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Access-Token': token }, fetch: fetchImpl });
  const path = 'typed-client/hello.txt';
  const up = must(
    await client.POST('/upload', { body: { path, content_base64: btoa('hello, typed') } }),
    'upload',
  );
  const down = must(await client.GET('/download', { params: { query: { path } } }), 'download');
  const list = must(
    await client.GET('/files/list', { params: { query: { path: 'typed-client' } } }),
    'files_list',
  );
  const shell = must(
    await client.POST('/shell', { body: { command: ['echo', 'typed shell'], timeout: 10 } }),
    'shell',
  );
  const started = must(
    await client.POST('/process/start', { body: { command: 'sleep 30' } }),
    'process_start',
  );
  const record = must(
    await client.GET('/process/{pid}', { params: { path: { pid: String(started.pid) } } }),
    'process_get',
  );
  must(
    await client.POST('/process/{pid}/signal', {
      params: { path: { pid: String(started.pid) } },
      body: { signal: 15 },
    }),
    'process_signal',
  );
  const info = must(await client.GET('/system/info'), 'system_info');
  const caps = must(await client.GET('/capabilities'), 'capabilities');
  const offered = Object.values(caps.endpoints).filter((e) => e.enabled && e.allowed).length;
  // An error answer is typed too: the native envelope.
  const missing = await client.GET('/download', { params: { query: { path: 'typed-client/no' } } });
  if (missing.error === undefined || typeof missing.error.error !== 'string') {
    throw new Error('download of a missing file: no Error envelope');
  }
  return {
    written: up.bytes,
    readBack: atob(down.content_base64),
    listed: list.entries.map((e) => e.name),
    shellOut: shell.stdout,
    pid: started.pid,
    processState: record.state,
    cpuCount: info.cpu_count,
    offered,
    missingStatus: missing.response.status,
  };
}
