// A proxy "sink" on 127.0.0.1: point a CLI's HTTP(S)_PROXY here and every
// attempt to reach a host outside loopback (NO_PROXY keeps loopback direct)
// is recorded and refused with 403 — nothing is forwarded. A realcli case
// asserts the list stays empty: the CLI talked to its model stub only
// (the same probe as transcripts/stray-traffic.md).
import http from 'node:http';

export async function startStrayTrafficSink() {
  const sink = { attempts: [], url: '' };
  const server = http.createServer((req, res) => {
    sink.attempts.push(`${req.method} ${req.url} | UA: ${req.headers['user-agent'] ?? '-'}`);
    res.writeHead(403);
    res.end();
  });
  server.on('connect', (req, socket) => {
    sink.attempts.push(`CONNECT ${req.url} | UA: ${req.headers['user-agent'] ?? '-'}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${server.address().port}`;
  sink.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return sink;
}
