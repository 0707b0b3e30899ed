#!/usr/bin/env node
// Checks what a server really answered against the OpenAPI document that
// same server serves, and lints a plugin's fragment for the rules the server
// does not check itself. The document is never rebuilt here: it is the
// server's own, so this file holds no second copy of the kernel's merge.
//
//   wire_check.mjs (--document FILE | --server BIN [--groups G] [--plugins M]
//                   [--plugin-dir D] [--policy F] [--preset P] [--scopes S])
//                  [--wire DIR] [--fragment FILE --prefix NAME] [--validator DIR]
//
// --document reads a saved GET /openapi.json; --server runs `BIN openapi`
// with the given flags in this environment (--groups sets
// ABX_SERVER_ENABLED_GROUPS for it), so a caller that recorded a server
// passes that server's configuration and gets its document.
//
// --wire checks recorded answers (the oracle's recording: one `*.http` file
// per answer, `METHOD URL`, `STATUS text`, headers, a blank line, the body):
// each must be an operation of the document, with a status it lists (an
// error status may fall back on `default`), a media type and SSE event names
// it lists, and a body (each event's data) its schema accepts with no member
// the schema does not describe.
//
// --fragment lints one plugin fragment against the document for what
// `check-config` does not warn about: no top-level key the server ignores,
// component names start with --prefix, every operation of a group the
// fragment describes has an entry, a path parameter it lists is in the
// route's template, and SSE media types have the `x-sse-events` shape. (Unknown ids, foreign keys, clashes and dangling
// `$ref`s are the server's warnings.)
//
// The openapi cases import checkWire and lintFragment instead of spawning
// this file: one checker for every recorded answer.
//
// --validator is a node_modules directory that holds ajv (default
// tests/openapi/node_modules). Exit codes: 0 valid, 1 a check failed, 2 bad
// usage or no document, 77 no validator installed.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SERVER_FLAGS = ["plugins", "plugin-dir", "policy", "preset", "scopes"];
const OPTIONS = new Set([
  "document",
  "server",
  "groups",
  "wire",
  "fragment",
  "prefix",
  "validator",
  ...SERVER_FLAGS,
]);

function parseArgs(argv) {
  // This folder's own node_modules is where tests/openapi's package.json installs ajv.
  const args = { validator: join(dirname(fileURLToPath(import.meta.url)), "node_modules") };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!OPTIONS.has(key)) usage(`unknown option ${argv[i]}`);
    if (argv[i + 1] === undefined) usage(`--${key} needs a value`);
    args[key] = argv[i + 1];
  }
  if (!args.server === !args.document) usage("give one of --server or --document");
  if (!args.fragment !== !args.prefix) usage("--fragment and --prefix go together");
  if (!args.wire && !args.fragment) usage("nothing to check: give --wire and/or --fragment");
  return args;
}

function usage(message) {
  console.error(`wire_check: ${message}`);
  process.exit(2);
}

// The document `BIN openapi` prints for the caller's configuration.
function serverDocument(args) {
  const flags = SERVER_FLAGS.filter((f) => args[f]).flatMap((f) => [`--${f}`, args[f]]);
  const env = { ...process.env };
  if (args.groups) env.ABX_SERVER_ENABLED_GROUPS = args.groups;
  const run = spawnSync(args.server, ["openapi", ...flags], {
    env,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: 60000,
  });
  if (run.status !== 0)
    usage(`${args.server} openapi failed (${run.error?.message ?? `exit ${run.status}`}): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function walk(node, where, visit) {
  visit(node, where);
  if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`, visit);
}

// operationId -> {path, method, op} of every operation of @p doc.
function operationsOf(doc) {
  const out = new Map();
  for (const [path, item] of Object.entries(doc.paths || {}))
    for (const [method, op] of Object.entries(item)) out.set(op.operationId, { path, method, op });
  return out;
}

// The fragment's rules the server does not warn about (see the header).
export function lintFragment(fragment, doc, prefix, errors) {
  const ops = operationsOf(doc);
  for (const key of Object.keys(fragment))
    if (!["abx_openapi_fragment", "operations", "components"].includes(key))
      errors.push(`unknown top-level key '${key}' (the server reads no other)`);
  for (const [kind, entries] of Object.entries(fragment.components || {}))
    for (const name of Object.keys(entries))
      if (!name.startsWith(prefix)) errors.push(`components.${kind}.${name}: name must start with ${prefix}`);
  const described = fragment.operations || {};
  const groups = new Set();
  for (const [id, entry] of Object.entries(described)) {
    const found = ops.get(id);
    if (!found) continue;  // not offered here, or not this plugin's: check-config says which
    groups.add(found.op["x-group"]);
    const templated = [...found.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const p of entry.parameters || [])
      if (p.in === "path" && !templated.includes(p.name))
        errors.push(`operations.${id}: path parameter '${p.name}' is not in ${found.path}`);
  }
  for (const [id, { op }] of ops)
    if (groups.has(op["x-group"]) && !described[id])
      errors.push(`operation ${id} (group ${op["x-group"]}) has no entry in the fragment`);
  walk(fragment, "", (node, where) => {
    if (!node || typeof node !== "object" || !("x-sse-events" in node)) return;
    if (!where.endsWith("/text/event-stream"))
      errors.push(`${where}: x-sse-events outside a text/event-stream media type`);
    if (node.schema?.type !== "string") errors.push(`${where}: an SSE schema must be {"type":"string"}`);
    const events = node["x-sse-events"];
    if (!events || typeof events !== "object" || !Object.keys(events).length)
      errors.push(`${where}: x-sse-events must name at least one event`);
  });
}

function loadAjv(validatorDir) {
  if (!existsSync(join(validatorDir, "ajv"))) {
    console.error(`wire_check: no ajv in ${validatorDir} (tests/openapi/install.sh, or --validator DIR)`);
    process.exit(77);
  }
  return createRequire(join(validatorDir, "x.js"))("ajv/dist/2020").default;
}

// @p schema with every object that lists properties closed to others, so a
// member the handler sends and the fragment forgot is an error rather than
// passing unseen (allOf parents close through unevaluatedProperties; their
// members stay open, or each would refuse the others' members).
function closed(schema, open = false) {
  if (Array.isArray(schema)) return schema.map((s) => closed(s));
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema))
    out[key] = key === "allOf" ? value.map((s) => closed(s, true)) : closed(value);
  if (schema.allOf && !("unevaluatedProperties" in schema)) out.unevaluatedProperties = false;
  if (schema.properties && !open && !("additionalProperties" in schema))
    out.additionalProperties = false;
  return out;
}

// The recorded exchanges of @p dir: {file, method, path, status, type, body}.
function readWire(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".http"))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8");
      const headEnd = text.indexOf("\n\n");
      const [request, status, ...headers] = text.slice(0, headEnd).split("\n");
      const [method, url] = request.split(" ");
      const type = headers.find((h) => /^content-type:/i.test(h))?.replace(/^[^:]*:\s*/, "") ?? "";
      return {
        file: name,
        method: method.toLowerCase(),
        path: new URL(url).pathname,
        status: status.split(" ")[0],
        type,
        body: text.slice(headEnd + 2),
      };
    });
}

// The operation that answered @p method @p path: the matching template with the fewest parameters.
function operationFor(doc, method, path) {
  const params = (p) => (p.match(/\{/g) || []).length;
  const template = Object.keys(doc.paths)
    .filter((p) => doc.paths[p][method] && new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
    .sort((a, b) => params(a) - params(b))[0];
  return template && doc.paths[template][method];
}

const parsed = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;  // a non-JSON data line (`[DONE]`) meets its schema as a string
  }
};

// One recorded answer against its operation.
function checkExchange(op, x, compile, errors) {
  const where = `${x.file} (${x.method.toUpperCase()} ${x.path} ${x.status}, ${op.operationId})`;
  const success = /^[123]/.test(x.status);
  const response = op.responses[x.status] ?? (success ? undefined : op.responses.default);
  if (!response) return errors.push(`${where}: status ${x.status} is not listed`);
  const mediaType = x.type.split(";")[0].trim();
  // An empty body fits a response without content, and a stream the client left early.
  if (!x.body) {
    if (response.content && mediaType !== "text/event-stream")
      errors.push(`${where}: an empty body, the document lists ${Object.keys(response.content).join(", ")}`);
    return;
  }
  const media = response.content?.[mediaType];
  if (!media) return errors.push(`${where}: ${mediaType || "no content type"} is not listed`);
  const checkData = (schema, data, what) => {
    let valid;
    try {
      valid = compile(schema ?? {});
    } catch (e) {
      return errors.push(`${where}${what}: the schema does not compile: ${e.message}`);
    }
    if (!valid(data))
      for (const e of valid.errors.slice(0, 5))
        errors.push(`${where}${what}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  };
  if (mediaType !== "text/event-stream") return checkData(media.schema, parsed(x.body), "");
  const frames = x.body.split("\n\n");
  frames.pop();  // what follows the last blank line: nothing, or a frame the stream cut short
  for (const frame of frames) {
    const lines = frame.split("\n").filter((l) => l && !l.startsWith(":"));
    if (!lines.length) continue;
    const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
    const data = lines
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    const schema = media["x-sse-events"]?.[event];
    if (!schema) errors.push(`${where}: event ${event} is not listed`);
    else if (data) checkData(schema, parsed(data), ` event ${event}`);
  }
}

// A compiler of closed schemas that resolve the document's local $refs.
function closedCompiler(doc, Ajv2020) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const base = "https://wire.check/doc";
  const rebase = (s) => JSON.parse(JSON.stringify(s).replaceAll('"#/components/', `"${base}#/components/`));
  const allOfMembers = new Set();
  walk(doc, "", (node) => {
    for (const member of node?.allOf ?? []) if (member.$ref) allOfMembers.add(member.$ref.split("/").pop());
  });
  const schemas = Object.entries(doc.components?.schemas || {}).map(([name, schema]) => [
    name,
    allOfMembers.has(name) ? schema : closed(schema),
  ]);
  ajv.addSchema({ $id: base, components: { schemas: rebase(Object.fromEntries(schemas)) } });
  const compiled = new Map();
  return (schema) => {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.compile(rebase(closed(schema))));
    return compiled.get(key);
  };
}

// Checks every answer recorded in @p dir against @p doc, pushing problems
// onto @p errors; returns the operationIds that answered.
export function checkWire(doc, dir, Ajv2020, errors) {
  const compile = closedCompiler(doc, Ajv2020);
  const exchanges = readWire(dir);
  // An empty recording would pass without proving anything.
  if (!exchanges.length) errors.push(`${dir}: no recorded answer (*.http) to check`);
  const seen = new Set();
  for (const x of exchanges) {
    const op = operationFor(doc, x.method, x.path);
    if (!op) {
      errors.push(`${x.file}: ${x.method.toUpperCase()} ${x.path} is no operation of the document`);
      continue;
    }
    seen.add(op.operationId);
    checkExchange(op, x, compile, errors);
  }
  console.log(`wire_check: ${exchanges.length} recorded answer(s) of ${seen.size} operation(s) checked`);
  return seen;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const doc = args.document ? JSON.parse(readFileSync(args.document, "utf8")) : serverDocument(args);
  if (!doc.paths || !Object.keys(doc.paths).length) usage("the document has no operation");
  const errors = [];
  if (args.fragment) {
    lintFragment(JSON.parse(readFileSync(args.fragment, "utf8")), doc, args.prefix, errors);
    if (!errors.length) console.log(`wire_check: ${args.fragment}: lint clean`);
  }
  if (args.wire) checkWire(doc, args.wire, loadAjv(args.validator), errors);
  if (errors.length) {
    for (const e of errors) console.log(`not ok - wire check: ${e}`);
    console.log(`wire_check: ${errors.length} problem(s)`);
    process.exit(1);
  }
  const checked = [args.fragment && "the fragment lint", args.wire && "the recorded answers"];
  console.log(`ok - wire check: ${checked.filter(Boolean).join(" and ")} pass`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
