// Renders every overlay with `kubectl kustomize` (Debian's kubernetes-client, or any kubectl on PATH; $KUBECTL
// picks one) and validates every rendered object against the Kubernetes OpenAPI schemas with kubernetes-models'
// validate(). Then checks what docs/deploy.md promises of each overlay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const kubectl = process.env.KUBECTL || "kubectl";
const overlays = readdirSync(join(root, "overlays")).sort();

function render(overlay) {
  const out = execFileSync(kubectl, ["kustomize", join(root, "overlays", overlay)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return parseAllDocuments(out).map((d) => {
    assert.equal(d.errors.length, 0, `${overlay}: ${d.errors}`);
    return d.toJS();
  });
}

// The kubernetes-models class of an object: apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment.
async function modelOf(obj) {
  const path = `kubernetes-models/${obj.apiVersion}/${obj.kind}`;
  try {
    return (await import(path))[obj.kind];
  } catch (e) {
    throw new Error(`${obj.kind} ${obj.metadata?.name}: no schema for ${obj.apiVersion} ${obj.kind} (${e.message})`);
  }
}

async function validate(obj) {
  const Model = await modelOf(obj);
  new Model(obj).validate(); // throws naming the path and the rule
}

const find = (objs, kind, name) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const workers = (objs) => find(objs, "StatefulSet", "gammalab-worker");
const worker = (objs) => workers(objs).spec.template;

test("there is an overlay per recipe", () => {
  assert.deepEqual(overlays, ["cpu-dev", "gpu", "kueue"]);
});

test("the schema check rejects a broken object", async () => {
  const objs = render("cpu-dev");
  const broken = structuredClone(workers(objs));
  broken.spec.replicas = "two";
  await assert.rejects(validate(broken), /replicas must be integer/);
  const nameless = structuredClone(find(objs, "StatefulSet", "gammalab-coordinator"));
  delete nameless.spec.template.spec.containers[0].name;
  await assert.rejects(validate(nameless), /containers\/0 must have required property name/);
});

for (const overlay of overlays) {
  test(`${overlay}: every rendered object validates against the Kubernetes schemas`, async () => {
    const objs = render(overlay);
    assert.ok(objs.length >= 7, `${overlay} rendered ${objs.length} objects`);
    for (const obj of objs) {
      assert.equal(obj.metadata.namespace ?? "gammalab", "gammalab", `${obj.kind} ${obj.metadata.name}`);
      await validate(obj);
    }
  });

  test(`${overlay}: coordinator, storage, secrets and workers as the guide says`, () => {
    const objs = render(overlay);
    const coordinator = find(objs, "StatefulSet", "gammalab-coordinator");
    assert.equal(coordinator.spec.replicas, 1, "one writer of the database");
    assert.equal(coordinator.spec.volumeClaimTemplates[0].spec.accessModes[0], "ReadWriteOnce");
    const args = coordinator.spec.template.spec.containers[0].args;
    assert.ok(args.includes("--db=/var/lib/gammalab/gammalab.db"));
    assert.ok(args.some((a) => a.startsWith("--tls-cert=")) && args.some((a) => a.startsWith("--tls-key=")),
      "a coordinator on a pod address speaks TLS");
    assert.equal(find(objs, "PersistentVolumeClaim", "gammalab-shared").spec.accessModes[0], "ReadWriteMany");
    const service = find(objs, "Service", "gammalab-coordinator");
    assert.deepEqual(service.spec.ports.map((p) => p.name).sort(), ["grpc", "http"]);
    assert.equal(find(objs, "Secret", "gammalab-tls").type, "kubernetes.io/tls");
    assert.ok(find(objs, "Secret", "gammalab-tokens"));

    const pod = worker(objs).spec;
    const c = pod.containers[0];
    assert.equal(c.readinessProbe.httpGet.path, "/readyz");
    assert.equal(c.livenessProbe.httpGet.path, "/healthz");
    assert.match(c.lifecycle.preStop.exec.command.join(" "), /kill -TERM 1/);
    assert.ok(pod.terminationGracePeriodSeconds >= 120, "time for a checkpoint");
    // A token per pod: the key of its own name in gammalab-tokens, one for each replica.
    assert.ok(c.args.includes("--token-file=/etc/gammalab/token/$(POD_NAME)"));
    assert.equal(c.env.find((e) => e.name === "POD_NAME").valueFrom.fieldRef.fieldPath, "metadata.name");
    const tokens = Object.keys(find(objs, "Secret", "gammalab-tokens").stringData).sort();
    const replicas = workers(objs).spec.replicas;
    assert.deepEqual(tokens, Array.from({ length: replicas }, (_, i) => `gammalab-worker-${i}`));
    assert.equal(find(objs, "Service", workers(objs).spec.serviceName).spec.clusterIP, "None");
    // A job spanning workers: the other pods reach this one's rendezvous store at its IP.
    assert.ok(c.args.includes("--advertise-address=$(POD_IP)"));
    assert.equal(c.env.find((e) => e.name === "POD_IP").valueFrom.fieldRef.fieldPath, "status.podIP");
    for (const p of [coordinator.spec.template.spec, pod]) {
      assert.equal(p.securityContext.runAsNonRoot, true);
      assert.equal(p.containers[0].securityContext.allowPrivilegeEscalation, false);
    }
  });
}

test("gpu and kueue workers request GPUs, one slot each; cpu-dev none", () => {
  for (const overlay of ["gpu", "kueue"]) {
    const c = worker(render(overlay)).spec.containers[0];
    const gpus = c.resources.limits["nvidia.com/gpu"];
    assert.ok(gpus >= 1, overlay);
    assert.ok(c.args.includes(`--slots=${gpus}`), `${overlay}: --slots matches the GPUs`);
    const ids = c.args.find((a) => a.startsWith("--gpus=")).slice("--gpus=".length).split(",");
    assert.equal(ids.length, gpus, `${overlay}: --gpus names each GPU`);
  }
  const cpu = worker(render("cpu-dev")).spec.containers[0];
  assert.equal(cpu.resources.limits?.["nvidia.com/gpu"], undefined);
});

test("kueue labels the worker pods with their queue; the others do not", () => {
  assert.equal(worker(render("kueue")).metadata.labels["kueue.x-k8s.io/queue-name"], "gammalab");
  for (const overlay of ["cpu-dev", "gpu"]) {
    assert.equal(worker(render(overlay)).metadata.labels["kueue.x-k8s.io/queue-name"], undefined);
  }
});
