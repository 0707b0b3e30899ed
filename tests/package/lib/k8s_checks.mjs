// The explicit checks of packaging/k8s/: what a schema cannot say about a
// pod that runs agent-sandbox-server (ports, probe paths, the token from a
// Secret, a non-root security context, resources, flags and variables the
// server documents) and the references between the objects. Each check
// returns a list of problems; an empty list passes.
import fs from 'node:fs';
import path from 'node:path';

export const PRESETS = ['minimal', 'agents', 'browser', 'full'];
const IMAGE = 'ghcr.io/agent-sandbox/agent-sandbox-server';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/**
 * The `serve` flags and the environment variables docs/configuration.md
 * documents: a manifest may only name those.
 */
export function documentedInterface(sourceDir) {
  const text = fs.readFileSync(path.join(sourceDir, 'docs/configuration.md'), 'utf8');
  const usage = text.match(/agent-sandbox-server serve ([\s\S]*?)\nagent-sandbox-server /);
  if (!usage) throw new Error('docs/configuration.md: no `serve` usage block');
  const flags = new Set(usage[1].match(/--[a-z-]+/g));
  const variables = new Set([...text.matchAll(/^\| `(ABX_[A-Z0-9_]+)`/gm)].map((m) => m[1]));
  return { flags, variables };
}

export function checkMetadata(doc) {
  const problems = [];
  if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) problems.push('no apiVersion');
  if (typeof doc.kind !== 'string' || !doc.kind) problems.push('no kind');
  const name = doc.metadata?.name;
  if (typeof name !== 'string' || name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    problems.push(`metadata.name ${JSON.stringify(name)} is not a DNS subdomain`);
  }
  for (const [key, value] of Object.entries(doc.metadata?.labels || {})) {
    const [prefix, label] = key.includes('/') ? key.split('/') : [null, key];
    if ((prefix !== null && !DNS_SUBDOMAIN.test(prefix)) || !LABEL_NAME.test(label)) {
      problems.push(`label key ${key} is invalid`);
    }
    if (typeof value !== 'string' || !LABEL_VALUE.test(value)) {
      problems.push(`label ${key} value ${JSON.stringify(value)} is invalid`);
    }
  }
  return problems;
}

/** `--name value` and `--name=value` pairs of a container's args. */
function parseArgs(args) {
  const options = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = String(args[i]);
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) options.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (arg === '--insecure-no-auth') options.set(arg, true);
    else options.set(arg, String(args[++i]));
  }
  return options;
}

function probePort(container, probe) {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return (container.ports || []).find((p) => p.name === port)?.containerPort;
}

function checkProbes(c) {
  const problems = [];
  const want = { readinessProbe: '/ready', livenessProbe: '/health' };
  for (const [probe, wantPath] of Object.entries(want)) {
    if (c[probe]?.httpGet?.path !== wantPath) {
      problems.push(`${probe} must be httpGet ${wantPath} (got ${JSON.stringify(c[probe]?.httpGet?.path)})`);
    }
    if (probePort(c, c[probe]) !== 9000) problems.push(`${probe} must target port 9000 (http)`);
  }
  return problems;
}

function checkSecurity(pod, c) {
  const problems = [];
  const podSc = pod.securityContext || {};
  const sc = c.securityContext || {};
  if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) problems.push('runAsNonRoot must be true');
  const uid = sc.runAsUser ?? podSc.runAsUser;
  if (uid !== 1000) problems.push(`runAsUser must be 1000 (got ${uid})`);
  if (sc.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation must be false');
  if (sc.privileged === true) problems.push('privileged must not be set');
  if (!(sc.capabilities?.drop || []).includes('ALL')) problems.push('capabilities.drop must hold ALL');
  if ((sc.capabilities?.add || []).length) problems.push('capabilities.add must be empty');
  const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
  if (seccomp !== 'RuntimeDefault') problems.push(`seccompProfile must be RuntimeDefault (got ${seccomp})`);
  if (pod.automountServiceAccountToken !== false) {
    problems.push('automountServiceAccountToken must be false');
  }
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (pod[field]) problems.push(`${field} must not be set`);
  }
  return problems;
}

function checkCommandLine(c, api) {
  const problems = [];
  const options = parseArgs([...(c.command || []), ...(c.args || [])]);
  if (!(c.args || []).includes('serve')) problems.push('args must run `serve`');
  if (options.get('--host') !== '0.0.0.0') problems.push('args must pass --host 0.0.0.0');
  if (options.has('--insecure-no-auth')) problems.push('--insecure-no-auth is forbidden');
  if ((options.get('--port') ?? '9000') !== '9000') problems.push('--port must be 9000');
  if ((options.get('--pty-port') ?? '9001') !== '9001') problems.push('--pty-port must be 9001');
  for (const flag of options.keys()) {
    if (!api.flags.has(flag)) problems.push(`${flag} is not a documented serve flag`);
  }
  for (const e of c.env || []) {
    if (e.name.startsWith('ABX_') && !api.variables.has(e.name)) {
      problems.push(`${e.name} is not a documented variable`);
    }
  }
  const token = (c.env || []).find((e) => e.name === 'ABX_SERVER_TOKEN');
  const ref = token?.valueFrom?.secretKeyRef;
  if (!ref?.name || !ref?.key || token.value !== undefined || ref.optional) {
    problems.push('ABX_SERVER_TOKEN must come from a required secretKeyRef');
  }
  return problems;
}

/** A pod spec that runs the server: container `server`, preset image `preset`. */
export function checkServerPod(pod, preset, api) {
  const c = (pod?.containers || []).find((x) => x.name === 'server');
  if (!c) return ['no container named server'];
  const problems = [];
  if (c.image !== `${IMAGE}:${preset}`) problems.push(`image must be ${IMAGE}:${preset} (got ${c.image})`);
  const ports = new Map((c.ports || []).map((p) => [p.name, p.containerPort]));
  if (ports.get('http') !== 9000) problems.push('container port http must be 9000');
  if (ports.get('pty') !== 9001) problems.push('container port pty must be 9001');
  for (const side of ['requests', 'limits']) {
    for (const resource of ['cpu', 'memory']) {
      if (c.resources?.[side]?.[resource] === undefined) problems.push(`resources.${side}.${resource} missing`);
    }
  }
  return [...problems, ...checkProbes(c), ...checkSecurity(pod, c), ...checkCommandLine(c, api)];
}

export function tokenRefs(pod) {
  return (pod?.containers || []).flatMap((c) => c.env || [])
    .map((e) => e.valueFrom?.secretKeyRef).filter(Boolean);
}

function matches(selector, labels) {
  return Object.entries(selector || {}).every(([k, v]) => labels?.[k] === v) &&
    Object.keys(selector || {}).length > 0;
}

export function checkDeployment(d, api) {
  const problems = [];
  const labels = d.spec?.template?.metadata?.labels;
  if (!matches(d.spec?.selector?.matchLabels, labels)) problems.push('selector does not match the pod labels');
  const preset = (d.spec?.template?.spec?.containers?.[0]?.image || '').split(':').pop();
  if (!PRESETS.includes(preset)) problems.push(`image tag ${preset} is not a preset`);
  return [...problems, ...checkServerPod(d.spec?.template?.spec, preset, api)];
}

/** The Service reaches the Deployment's pods on both ports, by their names. */
export function checkService(s, deployments) {
  const problems = [];
  const want = { http: 9000, pty: 9001 };
  for (const [name, port] of Object.entries(want)) {
    const p = (s.spec?.ports || []).find((x) => x.name === name);
    if (!p || p.port !== port || (p.targetPort !== name && p.targetPort !== port)) {
      problems.push(`service port ${name} must be ${port} -> ${name}`);
    }
  }
  const target = deployments.find((d) => matches(s.spec?.selector, d.spec?.template?.metadata?.labels));
  if (!target) return [...problems, 'the selector matches no Deployment'];
  const env = target.spec.template.spec.containers.flatMap((c) => c.env || []);
  const hosts = (env.find((e) => e.name === 'ABX_SERVER_ALLOWED_HOSTS')?.value || '').split(',');
  if (!hosts.includes(s.metadata.name)) {
    problems.push(`ABX_SERVER_ALLOWED_HOSTS of ${target.metadata.name} must list ${s.metadata.name}`);
  }
  return problems;
}

/** Every secretKeyRef names a Secret of the set and one of its keys. */
export function checkSecretRefs(pods, secrets) {
  const problems = [];
  for (const ref of pods.flatMap(tokenRefs)) {
    const secret = secrets.find((s) => s.metadata.name === ref.name);
    const keys = Object.keys({ ...(secret?.data || {}), ...(secret?.stringData || {}) });
    if (!keys.includes(ref.key)) problems.push(`secretKeyRef ${ref.name}/${ref.key} names no Secret key`);
  }
  return problems;
}
