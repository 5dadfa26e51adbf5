// Validates every object of a rendered multi-document YAML stream (the output of
// `kubectl kustomize deploy/k8s`) against its Kubernetes OpenAPI schema, offline, with the
// model classes of the npm package kubernetes-models (installed by scripts/install-deps into
// tools/node_modules).
//
//   node validate_manifests.mjs TOOLS_NODE_MODULES RENDERED.yaml EXPECTED_KINDS
//
// EXPECTED_KINDS is a comma-separated list of "Kind/name" that must all be present, so a
// resource dropped from kustomization.yaml fails here instead of silently validating less.
// Exits 0 when every object validates and every expected object is present; otherwise prints
// one line per problem ("Deployment/tether: spec.template.spec.containers[0].ports: ...") and
// exits 1.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

function fail(message) {
  console.error(`validate_manifests: ${message}`);
  process.exit(1);
}

const [nodeModules, renderedPath, expectedList] = process.argv.slice(2);
if (!nodeModules || !renderedPath || expectedList === undefined) {
  fail("usage: validate_manifests.mjs TOOLS_NODE_MODULES RENDERED.yaml EXPECTED_KINDS");
}

async function importFrom(packagePath) {
  const url = pathToFileURL(join(nodeModules, packagePath)).href;
  try {
    return await import(url);
  } catch (error) {
    fail(`cannot load ${packagePath} from ${nodeModules} (run scripts/install-deps): ${error.message}`);
  }
}

// "apps/v1" → "kubernetes-models/apps/v1/index.js"; the core group "v1" → "kubernetes-models/v1".
async function modelClass(apiVersion, kind) {
  const module = await importFrom(join("kubernetes-models", apiVersion, "index.js"));
  return module[kind];
}

// The schema's message plus where: ajv reports instancePath as a JSON pointer.
function describe(error) {
  const where = (error.instancePath || "").replace(/^\//, "").replaceAll("/", ".") || "(object)";
  return `${where}: ${error.message}${error.params ? " " + JSON.stringify(error.params) : ""}`;
}

const YAML = await importFrom(join("yaml", "dist", "index.js"));
let text;
try {
  text = readFileSync(renderedPath, "utf8");
} catch (error) {
  fail(`cannot read ${renderedPath}: ${error.message}`);
}
const documents = YAML.parseAllDocuments(text);
const problems = [];
const seen = new Set();
let count = 0;
for (const document of documents) {
  if (document.errors.length > 0) {
    problems.push(`YAML: ${document.errors.map((e) => e.message).join("; ")}`);
    continue;
  }
  const object = document.toJS();
  if (object === null) continue;
  const id = `${object.kind}/${object.metadata?.name}`;
  count += 1;
  seen.add(id);
  const Model = await modelClass(object.apiVersion, object.kind);
  if (typeof Model !== "function") {
    problems.push(`${id}: no schema for apiVersion ${object.apiVersion} kind ${object.kind}`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    const details = Array.isArray(error.errors) ? error.errors.map(describe) : [error.message];
    for (const detail of details) problems.push(`${id}: ${detail}`);
  }
}

for (const expected of expectedList.split(",").filter((s) => s.length > 0)) {
  // ConfigMaps from configMapGenerator carry a content-hash suffix: match on the prefix.
  const found = [...seen].some((id) => id === expected || id.startsWith(`${expected}-`));
  if (!found) problems.push(`${expected}: expected in the rendered output but missing`);
}

if (count === 0) problems.push(`${renderedPath}: no objects rendered`);
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`validate_manifests: ${problems.length} problem(s) in ${count} object(s)`);
  process.exit(1);
}
console.log(`validate_manifests: ${count} objects valid: ${[...seen].join(", ")}`);
