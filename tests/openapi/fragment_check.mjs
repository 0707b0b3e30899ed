#!/usr/bin/env node
// Checks one plugin's OpenAPI fragment (plugins/<folder>/openapi.json)
// against the live route table: wraps it into a full OpenAPI 3.1 document
// the way the kernel merges fragments (operationId, summary, tags, path
// parameters, security and error responses from the route table) and
// validates that document.
//
//   fragment_check.mjs --fragment FILE --plugin ID --prefix NAME
//                      (--server BIN [--groups a,b] | --capabilities FILE)
//                      [--validator DIR] [--out FILE] [--wire DIR]
//
// --plugin is the plugin id the endpoints carry in GET /capabilities
// (abx.agents); --prefix the component name prefix (Agents). --server starts
// that binary on 127.0.0.1 (port 0, a random token in its environment, the
// given opt-in groups on) and reads GET /capabilities; --capabilities reads a
// saved answer instead. --validator is a node_modules directory that holds
// @apidevtools/swagger-parser (default $OAS_VALIDATOR_DIR, else
// tests/openapi/node_modules). --out writes the wrapped document. --wire
// checks recorded answers against it: every `*.http` file of DIR (the
// oracle's recording: `METHOD URL`, `STATUS text`, headers, a blank line,
// the body) that one of the plugin's routes answered must have a listed
// status, media type and event names, and a body (each event's data) the
// schema accepts with no member it does not describe.
//
// Exit codes: 0 valid, 1 a check failed, 2 bad usage or the server did not
// start, 77 no validator installed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OPERATION_KEYS = new Set([
  "description",
  "parameters",
  "requestBody",
  "responses",
  "deprecated",
  "externalDocs",
]);
const KERNEL_KEYS = new Set(["operationId", "summary", "tags", "security"]);

function parseArgs(argv) {
  // This folder's own node_modules is where tests/openapi's package.json installs the validator.
  const here = join(dirname(fileURLToPath(import.meta.url)), "node_modules");
  const args = { groups: "agents,browser", validator: process.env.OAS_VALIDATOR_DIR || here };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (argv[i + 1] === undefined) usage(`--${key} needs a value`);
    args[key] = argv[i + 1];
  }
  for (const need of ["fragment", "plugin", "prefix"]) if (!args[need]) usage(`--${need} is required`);
  if (!args.server === !args.capabilities) usage("give one of --server or --capabilities");
  return args;
}

function usage(message) {
  console.error(`fragment_check: ${message}`);
  process.exit(2);
}

// Starts the server, reads GET /capabilities, stops it.
async function liveCapabilities(server, groups) {
  const work = mkdtempSync(join(tmpdir(), "abx-openapi-"));
  const token = randomBytes(16).toString("hex");
  const env = {
    ...process.env,
    ABX_SERVER_TOKEN: token,
    ABX_SERVER_ENABLED_GROUPS: groups,
    ABX_SERVER_BASE_DIR: work,
    ABX_SERVER_STATE_DIR: join(work, "state"),
    HOME: work,
  };
  const child = spawn(server, ["serve", "--host", "127.0.0.1", "--port", "0", "--pty-port", "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  try {
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no 'listening on' line in 30 s")), 30000);
      const read = (chunk) => {
        log += chunk;
        const m = /^listening on 127\.0\.0\.1:(\d+)/m.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
      child.on("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
    });
    const answer = await fetch(`http://127.0.0.1:${port}/capabilities`, {
      headers: { "X-Access-Token": token },
    });
    if (!answer.ok) throw new Error(`GET /capabilities answered ${answer.status}`);
    return await answer.json();
  } catch (e) {
    console.error(`fragment_check: ${e.message}\n${log}`);
    process.exit(2);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
    rmSync(work, { recursive: true, force: true });
  }
}

// The envelope a route's errors use: OpenAI's under /v1/, else the native one.
const envelopeOf = (path) =>
  path.startsWith("/v1/") ? "#/components/schemas/OpenAIError" : "#/components/schemas/Error";
const envelopeResponse = (description, path) => ({
  description,
  content: { "application/json": { schema: { $ref: envelopeOf(path) } } },
});

// The components the kernel provides to every fragment.
function kernelComponents() {
  return {
    schemas: {
      Error: {
        type: "object",
        properties: { error: { type: "string" }, type: { type: "string" }, code: { type: "string" } },
        required: ["error", "type"],
        additionalProperties: true,
      },
      OpenAIError: {
        type: "object",
        properties: {
          error: {
            type: "object",
            properties: {
              message: { type: "string" },
              type: { type: "string" },
              param: { type: ["string", "null"] },
              code: { type: ["string", "null"] },
            },
            required: ["message", "type", "param", "code"],
          },
        },
        required: ["error"],
      },
    },
    securitySchemes: {
      accessToken: { type: "apiKey", in: "header", name: "X-Access-Token" },
      bearerAuth: { type: "http", scheme: "bearer" },
    },
  };
}

// One operation as the kernel builds it: the route's facts around the fragment's entry.
function wrapOperation(id, endpoint, entry, errors) {
  const op = { operationId: id, summary: endpoint.summary, tags: [endpoint.group] };
  if (entry.description) op.description = entry.description;
  const templated = [...endpoint.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const given = entry.parameters || [];
  for (const p of given)
    if (p.in === "path" && !templated.includes(p.name))
      errors.push(`${id}: path parameter '${p.name}' is not in ${endpoint.path}`);
  op.parameters = [
    ...templated.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      ...given.find((p) => p.in === "path" && p.name === name),
    })),
    ...given.filter((p) => p.in !== "path"),
  ];
  if (entry.requestBody) op.requestBody = entry.requestBody;
  const responses = {};
  for (const [status, response] of Object.entries(entry.responses || {}))
    responses[status] =
      Number(status) >= 400 && !response.content
        ? envelopeResponse(response.description, endpoint.path)
        : response;
  // A route the fragment gives no success answer gets the kernel's generic one.
  if (!Object.keys(responses).some((code) => /^[123]/.test(code)))
    responses["200"] = endpoint.streaming
      ? {
          description: "A stream of server-sent events",
          content: { "text/event-stream": { schema: { type: "string" } } },
        }
      : { description: "Success" };
  if (endpoint.auth_required) {
    for (const [status, text] of [
      ["401", "No or a wrong token"],
      ["403", "Not allowed"],
      ["404", "Not found"],
      ["429", "Too many requests"],
    ])
      responses[status] ??= envelopeResponse(text, endpoint.path);
    op.security = [{ accessToken: [] }, { bearerAuth: [] }];
  } else {
    op.security = [];
  }
  responses.default = envelopeResponse("Error", endpoint.path);
  op.responses = responses;
  op["x-scopes"] = endpoint.scopes;
  op["x-group"] = endpoint.group;
  for (const [key, value] of Object.entries(entry))
    if (key === "deprecated" || key === "externalDocs" || key.startsWith("x-")) op[key] = value;
  return op;
}

// The fragment's own rules: known ids, every id described, allowed keys, prefixed names, SSE shape.
function checkFragment(fragment, endpoints, prefix, errors) {
  if (fragment.abx_openapi_fragment !== 1) errors.push("abx_openapi_fragment must be 1");
  for (const key of Object.keys(fragment))
    if (!["abx_openapi_fragment", "operations", "components"].includes(key))
      errors.push(`unknown top-level key '${key}'`);
  const operations = fragment.operations || {};
  for (const id of Object.keys(operations)) {
    if (!endpoints[id]) errors.push(`operations.${id}: not an endpoint id of this plugin`);
    for (const key of Object.keys(operations[id]))
      if (KERNEL_KEYS.has(key)) errors.push(`operations.${id}.${key}: the kernel supplies it`);
      else if (!OPERATION_KEYS.has(key) && !key.startsWith("x-"))
        errors.push(`operations.${id}.${key}: not a fragment operation key`);
  }
  for (const id of Object.keys(endpoints))
    if (!operations[id]) errors.push(`endpoint ${id} has no entry in the fragment`);
  for (const [kind, entries] of Object.entries(fragment.components || {}))
    for (const name of Object.keys(entries))
      if (!name.startsWith(prefix)) errors.push(`components.${kind}.${name}: name must start with ${prefix}`);
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

function walk(node, where, visit) {
  visit(node, where);
  if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`, visit);
}

// Every local $ref points at something in the document.
function checkRefs(doc, errors) {
  walk(doc, "", (node, where) => {
    if (!node || typeof node !== "object" || typeof node.$ref !== "string") return;
    if (!node.$ref.startsWith("#/")) return errors.push(`${where}: only local $refs (${node.$ref})`);
    let target = doc;
    for (const part of node.$ref.slice(2).split("/"))
      target = target?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined) errors.push(`${where}: $ref ${node.$ref} does not resolve`);
  });
}

// The OpenAPI document, then every Schema Object in it against JSON Schema
// 2020-12 (the OpenAPI meta-schema leaves schemas unchecked).
function loadValidator(validatorDir) {
  if (!validatorDir || !existsSync(join(validatorDir, "@apidevtools/swagger-parser"))) {
    console.error("fragment_check: no @apidevtools/swagger-parser (give --validator DIR)");
    process.exit(77);
  }
  const load = createRequire(join(validatorDir, "x.js"));
  const SwaggerParser = load("@apidevtools/swagger-parser");
  const Ajv2020 = createRequire(load.resolve("@apidevtools/swagger-parser"))("ajv/dist/2020").default;
  return { SwaggerParser, Ajv2020 };
}

async function validate(doc, { SwaggerParser, Ajv2020 }) {
  const problems = [];
  try {
    await SwaggerParser.validate(structuredClone(doc));
  } catch (e) {
    for (const d of e.details || [e]) problems.push(`validator: ${d.instancePath ?? ""} ${d.message}`);
  }
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const check = (schema, where) => {
    if (!ajv.validateSchema(schema))
      for (const d of ajv.errors) problems.push(`schema ${where}${d.instancePath}: ${d.message}`);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas))
    check(schema, `#/components/schemas/${name}`);
  walk(doc.paths, "#/paths", (node, where) => {
    if (!node || typeof node !== "object") return;
    if (node.schema && typeof node.schema === "object") check(node.schema, `${where}/schema`);
    for (const [event, schema] of Object.entries(node["x-sse-events"] || {}))
      check(schema, `${where}/x-sse-events/${event}`);
  });
  return problems;
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
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8");
      const headEnd = text.indexOf("\n\n");
      const [request, status, ...headers] = text.slice(0, headEnd).split("\n");
      const [method, url] = request.split(" ");
      const type = headers.find((h) => /^content-type:/i.test(h))?.replace(/^[^:]*:\s*/, "") ?? "";
      return {
        file: name,
        method,
        path: new URL(url).pathname,
        status: status.split(" ")[0],
        type,
        body: text.slice(headEnd + 2),
      };
    });
}

// The endpoint that answered @p method @p path: the matching template with the fewest parameters.
function endpointFor(endpoints, method, path) {
  const matches = Object.entries(endpoints).filter(
    ([, e]) => e.method === method && new RegExp(`^${e.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path),
  );
  const params = (e) => (e.path.match(/\{/g) || []).length;
  return matches.sort(([, a], [, b]) => params(a) - params(b))[0]?.[0];
}

// One recorded answer against its operation in the wrapped document.
function checkExchange(doc, id, op, x, compile, errors) {
  const where = `${x.file} (${id} ${x.status})`;
  const response = op.responses[x.status] ?? op.responses.default;
  const mediaType = x.type.split(";")[0].trim();
  if (!x.body) return;
  const media = response.content?.[mediaType];
  if (!media) return errors.push(`${where}: ${mediaType || "no content type"} is not listed`);
  const checkData = (schema, data, what) => {
    const valid = compile(schema);
    if (!valid(data))
      for (const e of valid.errors.slice(0, 5))
        errors.push(`${where}${what}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  };
  if (mediaType !== "text/event-stream") return checkData(media.schema, JSON.parse(x.body), "");
  for (const frame of x.body.split("\n\n")) {
    const lines = frame.split("\n").filter((l) => l && !l.startsWith(":"));
    if (!lines.length) continue;
    const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
    const schema = media["x-sse-events"]?.[event];
    if (!schema) errors.push(`${where}: event ${event} is not listed`);
    else if (data) checkData(schema, JSON.parse(data), ` event ${event}`);
  }
}

function checkWire(doc, endpoints, dir, Ajv2020, errors) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const base = "https://fragment.check/doc";
  // The components live in one schema document; local refs point into it.
  const rebase = (s) =>
    JSON.parse(JSON.stringify(s).replaceAll('"#/components/', `"${base}#/components/`));
  const allOfMembers = new Set();
  walk(doc, "", (node) => {
    for (const member of node?.allOf ?? [])
      if (member.$ref) allOfMembers.add(member.$ref.split("/").pop());
  });
  const schemas = Object.entries(doc.components.schemas).map(([name, schema]) => [
    name,
    allOfMembers.has(name) ? schema : closed(schema),
  ]);
  ajv.addSchema({ $id: base, components: { schemas: rebase(Object.fromEntries(schemas)) } });
  const compiled = new Map();
  const compile = (schema) => {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.compile(rebase(closed(schema))));
    return compiled.get(key);
  };
  let checked = 0;
  for (const x of readWire(dir)) {
    const id = endpointFor(endpoints, x.method, x.path);
    if (!id) continue;
    const endpoint = endpoints[id];
    checkExchange(doc, id, doc.paths[endpoint.path][endpoint.method.toLowerCase()], x, compile, errors);
    ++checked;
  }
  console.log(`fragment_check: ${checked} recorded answer(s) of the plugin checked`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const fragment = JSON.parse(readFileSync(args.fragment, "utf8"));
  const capabilities = args.server
    ? await liveCapabilities(args.server, args.groups)
    : JSON.parse(readFileSync(args.capabilities, "utf8"));
  const endpoints = Object.fromEntries(
    Object.entries(capabilities.endpoints).filter(([, e]) => e.plugin === args.plugin),
  );
  if (!Object.keys(endpoints).length) usage(`no endpoint of plugin ${args.plugin} (is its group on?)`);
  const errors = [];
  checkFragment(fragment, endpoints, args.prefix, errors);
  const doc = {
    openapi: "3.1.0",
    info: { title: "agent-sandbox-server", version: String(capabilities.server_version || "0") },
    paths: {},
    components: kernelComponents(),
  };
  for (const [kind, entries] of Object.entries(fragment.components || {}))
    doc.components[kind] = { ...entries, ...doc.components[kind] };
  for (const [id, endpoint] of Object.entries(endpoints)) {
    const entry = (fragment.operations || {})[id] || {};
    doc.paths[endpoint.path] ??= {};
    doc.paths[endpoint.path][endpoint.method.toLowerCase()] = wrapOperation(id, endpoint, entry, errors);
  }
  checkRefs(doc, errors);
  const validator = loadValidator(args.validator);
  errors.push(...(await validate(doc, validator)));
  if (args.wire && !errors.length) checkWire(doc, endpoints, args.wire, validator.Ajv2020, errors);
  if (args.out) writeFileSync(args.out, JSON.stringify(doc, null, 2) + "\n");
  const count = Object.keys(endpoints).length;
  if (errors.length) {
    for (const e of errors) console.log(`not ok - ${e}`);
    console.log(`fragment_check: ${args.fragment}: ${errors.length} problem(s), ${count} endpoints`);
    process.exit(1);
  }
  console.log(`fragment_check: ${args.fragment}: valid, ${count} endpoints of ${args.plugin} described`);
}

await main();
