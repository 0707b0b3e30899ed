// Where the examples find the server: the three variables every example reads.
//   ABX_URL    the server's base URL (default http://127.0.0.1:9000)
//   ABX_TOKEN  the server's token (ABX_SERVER_TOKEN); empty when auth is off
//   ABX_MODEL  an agent: a definition's name or a runtime (default codex)
export const url = (process.env.ABX_URL ?? 'http://127.0.0.1:9000').replace(/\/$/, '');
export const token = process.env.ABX_TOKEN ?? '';
export const model = process.env.ABX_MODEL ?? 'codex';

// Fails the example (exit 1) with a message: each example checks what it got.
export function expect(ok, what) {
  if (!ok) {
    console.error(`unexpected: ${what}`);
    process.exit(1);
  }
}
