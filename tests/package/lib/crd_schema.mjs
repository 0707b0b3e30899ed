// Validates custom resources against the openAPIV3Schema of their
// CustomResourceDefinition with ajv, the way an API server with strict field
// validation (kubectl's default) would: unknown fields are errors, int32 and
// int64 must fit, list-type map/set entries must be unique. CEL rules
// (x-kubernetes-validations) and defaulting are not evaluated.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default;
const YAML = require('yaml');

/** Every document of a YAML file; a syntax error or warning throws. */
export function readYamlDocuments(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'));
  const out = [];
  for (const doc of docs) {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length) throw new Error(`${file}: ${problems[0].message}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export function writeYamlDocuments(file, docs) {
  fs.writeFileSync(file, docs.map((d) => YAML.stringify(d)).join('---\n'));
}

/**
 * Kubernetes prunes or (strictly) refuses fields a structural schema does not
 * declare; JSON Schema allows them unless told. Closes every object schema
 * that lists properties and neither allows extra ones nor preserves unknown
 * fields.
 */
function closeObjects(schema) {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    // Property names are data, not schemas: keep them, close their schemas.
    out[key] = key === 'properties'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closeObjects(v)]))
      : closeObjects(value);
  }
  if (out.properties && out.additionalProperties === undefined &&
      !out['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  return out;
}

function listKey(item, keys) {
  return JSON.stringify(keys.map((k) => item?.[k]));
}

function makeAjv() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const int = (bits) => ({
    type: 'number',
    validate: (n) => Number.isInteger(n) && n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1),
  });
  ajv.addFormat('int32', int(32));
  ajv.addFormat('int64', int(64));
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i);
  // Markers without a JSON Schema meaning (the anyOf beside
  // int-or-string already says integer or string).
  for (const keyword of ['x-kubernetes-int-or-string', 'x-kubernetes-map-type',
    'x-kubernetes-validations', 'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource']) {
    ajv.addKeyword({ keyword });
  }
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    validate: (keys, items) => new Set(items.map((i) => listKey(i, keys))).size === items.length,
    error: { message: 'duplicate entries for the list-map keys' },
  });
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-type',
    type: 'array',
    validate: (type, items) =>
      type !== 'set' || new Set(items.map((i) => JSON.stringify(i))).size === items.length,
    error: { message: 'duplicate entries in a set' },
  });
  return ajv;
}

/**
 * The CRDs of a folder: served versions by "group/version Kind", each with
 * its compiled validator, the raw schema and whether it is deprecated.
 */
export function loadCrds(dir) {
  const ajv = makeAjv();
  const byType = new Map();
  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  for (const file of files) {
    for (const crd of readYamlDocuments(path.join(dir, file))) {
      if (crd.kind !== 'CustomResourceDefinition') continue;
      const { group, names } = crd.spec;
      for (const version of crd.spec.versions) {
        if (!version.served) continue;
        const schema = version.schema.openAPIV3Schema;
        let validate = null;  // compiled on first use: a pod schema takes seconds
        byType.set(`${group}/${version.name} ${names.kind}`, {
          file,
          schema,
          deprecated: Boolean(version.deprecated),
          storage: Boolean(version.storage),
          get validate() { return (validate ??= ajv.compile(closeObjects(schema))); },
        });
      }
    }
  }
  return { byType, ajv };
}

/** A validator for a sub-schema (e.g. the PodSpec a SandboxTemplate embeds). */
export function compileSubSchema(crds, schema) {
  return crds.ajv.compile(closeObjects(schema));
}

export function formatErrors(errors) {
  return (errors || [])
    .map((e) => `${e.instancePath || '/'} ${e.message}` +
      (e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''))
    .join('; ');
}
