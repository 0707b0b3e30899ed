// Validates every manifest under packaging/k8s/ without a cluster:
// - agent-sandbox controller kinds against their CRD's openAPIV3Schema (ajv);
// - Deployment pod specs against the PodSpec schema the SandboxTemplate CRD
//   embeds (the core API's own, as controller-gen copies it);
// - explicit checks of every pod that runs the server, the Service, the
//   Secret, and the references between objects (lib/k8s_checks.mjs).
// Then proves the checks can fail: broken copies of the manifests, written
// to a temp dir, must each be rejected for the expected reason.
//
//   node k8s_manifests.mjs --manifests DIR --crds DIR --source REPO
//
// Prints one `ok`/`not ok` line per check and a closing
// `N passed, N failed` line; exits 1 when anything failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCrds, compileSubSchema, readYamlDocuments, writeYamlDocuments, formatErrors }
  from './lib/crd_schema.mjs';
import { PRESETS, documentedInterface, checkMetadata, checkServerPod, checkDeployment,
  checkService, checkSecretRefs } from './lib/k8s_checks.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) =>
  (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
for (const need of ['manifests', 'crds', 'source']) {
  if (!args[need]) { console.error(`k8s_manifests: --${need} DIR is required`); process.exit(2); }
}
const crds = loadCrds(args.crds);
const api = documentedInterface(args.source);
const EXT = 'extensions.agents.x-k8s.io/v1beta1';
const templateCrd = crds.byType.get(`${EXT} SandboxTemplate`);
if (!templateCrd) { console.error(`k8s_manifests: no SandboxTemplate CRD in ${args.crds}`); process.exit(2); }
const podSpecSchema = templateCrd.schema.properties.spec.properties.podTemplate.properties.spec;
const validatePodSpec = compileSubSchema(crds, podSpecSchema);

/** Every document of every *.yaml under dir, as {file, doc}. */
function loadTree(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { recursive: true }).sort()) {
    if (!/\.ya?ml$/.test(entry)) continue;
    for (const doc of readYamlDocuments(path.join(dir, entry))) out.push({ file: entry, doc });
  }
  return out;
}

function schemaProblems(doc) {
  const crd = crds.byType.get(`${doc.apiVersion} ${doc.kind}`);
  if (!crd) return null;
  const problems = [];
  if (crd.deprecated) problems.push(`${doc.apiVersion} is deprecated`);
  if (!crd.validate(doc)) problems.push(`schema: ${formatErrors(crd.validate.errors)}`);
  return problems;
}

/** The checks of one document, given the whole set (for references). */
function checkDocument({ doc }, all) {
  const named = (kind, name) => all.some(({ doc: d }) => d.kind === kind && d.metadata?.name === name);
  const problems = checkMetadata(doc);
  const schema = schemaProblems(doc);
  if (schema) problems.push(...schema);
  const preset = doc.metadata?.labels?.['agent-sandbox-server/preset'];
  switch (doc.kind) {
    case 'SandboxTemplate':
      if (doc.spec?.envVarsInjectionPolicy !== 'Disallowed') {
        problems.push('envVarsInjectionPolicy must be Disallowed (a claim could replace the token)');
      }
      problems.push(...checkServerPod(doc.spec?.podTemplate?.spec, preset, api));
      break;
    case 'SandboxWarmPool':
      if (!named('SandboxTemplate', doc.spec?.sandboxTemplateRef?.name)) problems.push('sandboxTemplateRef names no SandboxTemplate');
      break;
    case 'SandboxClaim':
      if (!named('SandboxWarmPool', doc.spec?.warmPoolRef?.name)) problems.push('warmPoolRef names no SandboxWarmPool');
      break;
    case 'Deployment':
      if (doc.apiVersion !== 'apps/v1') problems.push('Deployment must be apps/v1');
      if (!validatePodSpec(doc.spec?.template?.spec)) problems.push(`pod spec: ${formatErrors(validatePodSpec.errors)}`);
      problems.push(...checkDeployment(doc, api));
      break;
    case 'Service':
      if (doc.apiVersion !== 'v1') problems.push('Service must be v1');
      problems.push(...checkService(doc, all.map((x) => x.doc).filter((d) => d.kind === 'Deployment')));
      break;
    case 'Secret':
      if (doc.apiVersion !== 'v1' || doc.type !== 'Opaque') problems.push('Secret must be v1, type Opaque');
      break;
    default:
      if (!schema) problems.push(`no check and no CRD for ${doc.apiVersion} ${doc.kind}`);
  }
  return problems;
}

/** One result per document plus the set-wide checks: [{label, problems}]. */
function validateTree(dir) {
  const all = loadTree(dir);
  const results = all.map((item) => ({
    label: `${item.file}: ${item.doc.kind}/${item.doc.metadata?.name}`,
    problems: checkDocument(item, all),
  }));
  const docs = all.map((x) => x.doc);
  const pods = [
    ...docs.filter((d) => d.kind === 'Deployment').map((d) => d.spec?.template?.spec),
    ...docs.filter((d) => d.kind === 'SandboxTemplate').map((d) => d.spec?.podTemplate?.spec),
  ];
  results.push({ label: 'every secretKeyRef names a Secret key',
    problems: checkSecretRefs(pods, docs.filter((d) => d.kind === 'Secret')) });
  const coverage = [];
  for (const kind of ['Deployment', 'Service', 'Secret']) {
    if (!docs.some((d) => d.kind === kind)) coverage.push(`no ${kind}`);
  }
  for (const preset of PRESETS) {
    for (const kind of ['SandboxTemplate', 'SandboxWarmPool', 'SandboxClaim']) {
      const n = docs.filter((d) => d.kind === kind &&
        d.metadata?.labels?.['agent-sandbox-server/preset'] === preset).length;
      if (n !== 1) coverage.push(`preset ${preset}: ${n} ${kind} (want 1)`);
    }
  }
  results.push({ label: 'one Deployment, Service, Secret; one template, pool, claim per preset', problems: coverage });
  return results;
}

// Broken copies: each mutates one document and must be rejected with a
// problem matching `expect`. Schema cases prove ajv really reads the CRDs;
// explicit cases prove the checks above look at what they claim to.
const find = (docs, kind, preset = 'minimal') => docs.find((d) => d.kind === kind &&
  (kind === 'Deployment' || d.metadata?.labels?.['agent-sandbox-server/preset'] === preset));
const container = (pod) => pod.containers.find((c) => c.name === 'server');
const BROKEN = [
  ['warm pool replicas as a string', /schema: \/spec\/replicas must be integer/,
    (docs) => { find(docs, 'SandboxWarmPool').spec.replicas = 'two'; }],
  ['misspelt probe field in a template', /must NOT have additional properties \(readinesProbe\)/,
    (docs) => { const c = container(find(docs, 'SandboxTemplate').spec.podTemplate.spec);
      c.readinesProbe = c.readinessProbe; delete c.readinessProbe; }],
  ['claim without warmPoolRef', /must have required property 'warmPoolRef'/,
    (docs) => { const s = find(docs, 'SandboxClaim').spec; s.sandboxTemplateRef = s.warmPoolRef; delete s.warmPoolRef; }],
  ['deprecated v1alpha1 claim', /v1alpha1 is deprecated/,
    (docs) => { find(docs, 'SandboxClaim').apiVersion = 'extensions.agents.x-k8s.io/v1alpha1'; }],
  ['template pool reference to nothing', /sandboxTemplateRef names no SandboxTemplate/,
    (docs) => { find(docs, 'SandboxWarmPool', 'agents').spec.sandboxTemplateRef.name = 'nope'; }],
  ['Deployment running as root', /runAsNonRoot must be true/,
    (docs) => { const p = find(docs, 'Deployment').spec.template.spec;
      p.securityContext.runAsNonRoot = false; container(p).securityContext.runAsNonRoot = false; }],
  ['readiness probe on /health', /readinessProbe must be httpGet \/ready/,
    (docs) => { container(find(docs, 'Deployment').spec.template.spec).readinessProbe.httpGet.path = '/health'; }],
  ['capabilities not dropped', /capabilities.drop must hold ALL/,
    (docs) => { delete container(find(docs, 'SandboxTemplate', 'browser').spec.podTemplate.spec).securityContext.capabilities; }],
  ['server bound to loopback', /--host 0.0.0.0/,
    (docs) => { container(find(docs, 'SandboxTemplate', 'full').spec.podTemplate.spec).args = ['serve']; }],
  ['undocumented flag', /--listen is not a documented serve flag/,
    (docs) => { container(find(docs, 'Deployment').spec.template.spec).args.push('--listen', 'x'); }],
  ['token as a literal value', /ABX_SERVER_TOKEN must come from a required secretKeyRef/,
    (docs) => { const e = container(find(docs, 'Deployment').spec.template.spec).env[0];
      delete e.valueFrom; e.value = 'secret'; }],
  ['Deployment pod spec with a wrong type', /pod spec: .*must be boolean/,
    (docs) => { find(docs, 'Deployment').spec.template.spec.enableServiceLinks = 'no'; }],
];

function rejects(root, [name, expect, mutate]) {
  const tree = loadTree(root);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abx-k8s-broken-'));
  try {
    const docs = tree.map((x) => structuredClone(x.doc));
    mutate(docs);
    writeYamlDocuments(path.join(dir, 'broken.yaml'), docs);
    const problems = validateTree(dir).flatMap((r) => r.problems);
    return { label: `rejects a broken copy: ${name}`,
      problems: problems.some((p) => expect.test(p)) ? []
        : [`not rejected for ${expect} (problems: ${problems.join(' | ') || 'none'})`] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results = [...validateTree(args.manifests), ...BROKEN.map((b) => rejects(args.manifests, b))];
let failed = 0;
for (const { label, problems } of results) {
  if (problems.length) failed++;
  console.log(`${problems.length ? 'not ok' : 'ok'} - ${label}`);
  for (const p of problems) console.log(`#   ${p}`);
}
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
