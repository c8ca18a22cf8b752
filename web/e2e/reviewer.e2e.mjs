// End-to-end test of the reviewer page in headless Debian chromium
// (playwright-core, executablePath /usr/bin/chromium), run by CTest
// (tools/reviewer-server/CMakeLists.txt, label `long`):
//
//   node web/e2e/reviewer.e2e.mjs --kube-sim BIN --kubeon-gpu BIN --server BIN --source DIR --out DIR
//
//  1. kube-sim serves the demo cluster with a spare H100 and A10G node
//     (as src/cli/apply_e2e_support.h DemoWithSpare) and two users: alice
//     (bound to ClusterRole kubeon-gpu-reviewer with `kubectl apply`; $KUBECTL
//     or kubectl on PATH) and bob (no binding).
//  2. `kubeon-gpu apply --mode Proposal` records the plan's steps as proposed
//     in a SQLite audit log; reviewer-server serves the page over that log.
//  3. The browser loads the page and checks the plan renders: summary, the
//     per-GPU layouts (SVG slices), the isolation statement, a candidate's
//     peak bar and its history chart with the headroom line.
//  4. On the time-slicing step (it evicts nothing, so it is quick): bob's
//     token: Approve is refused (403 naming bob and the verb); alice's
//     token: Approve; the change shows approved by alice.
//  5. `kubeon-gpu apply --mode Approve` in the window runs it; the page shows done.
//  6. Revert (alice) records the request; `kubeon-gpu revert` carries it
//     out; the page shows reverted.
// Screenshots: OUT/*.png.  Exit 0 passed, 1 failed, 77 skipped (no chromium
// or no web/node_modules: run scripts/install-deps).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const k of ['kube-sim', 'kubeon-gpu', 'server', 'source', 'out']) {
  if (!args[k]) { console.error(`usage: missing --${k}`); process.exit(2); }
}
const CHROMIUM = process.env.KUBEON_CHROMIUM || '/usr/bin/chromium';
const WEB = path.resolve(args.source, 'web');
if (!fs.existsSync(CHROMIUM)) { console.log(`SKIP: ${CHROMIUM} is missing (apt-get install chromium; scripts/install-deps)`); process.exit(77); }
let chromium;
try {
  chromium = createRequire(path.join(WEB, 'package.json'))('playwright-core').chromium;
} catch {
  console.log(`SKIP: playwright-core is not installed in ${WEB}/node_modules (cd web && npm ci; scripts/install-deps)`);
  process.exit(77);
}

const DEMO = path.resolve(args.source, 'examples', 'demo');
const WINDOW_TIME = '2026-12-05T02:10:00Z';  // Saturday: the demo policy's window is open
const TOKENS = { alice: 'alice-e2e-token-3f9c1d', bob: 'bob-e2e-token-8a2e7b' };
const out = path.resolve(args.out);
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const children = [];
const started = Date.now();
const log = (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`);

function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}
process.on('exit', cleanup);
function fail(message) { console.error('FAIL: ' + message); cleanup(); process.exit(1); }

// Starts a long-running child; resolves with the first stdout line matching re.
function startChild(name, bin, argv, re, timeoutMs = 120000) {
  const child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const errFile = fs.createWriteStream(path.join(out, name + '.stderr'));
  child.stderr.pipe(errFile);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no "${re}" within ${timeoutMs} ms`)), timeoutMs);
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const m = line.match(re);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${name} exited ${code} (see ${name}.stderr)`)); });
  });
}

function run(name, bin, argv, input) {
  const r = spawnSync(bin, argv, { input, encoding: 'utf8', timeout: 120000 });
  fs.writeFileSync(path.join(out, name + '.out'), (r.stdout || '') + '\n--- stderr ---\n' + (r.stderr || ''));
  return r;
}

// The demo cluster plus "spare-h100" and "spare-a10g" (see apply_e2e_support.h).
function demoWithSpare() {
  const cluster = JSON.parse(fs.readFileSync(path.join(DEMO, 'cluster.json'), 'utf8'));
  const spares = [['ip-10-5-42-245.ec2.internal', 'spare-h100'], ['ip-10-20-245-63.ec2.internal', 'spare-a10g']];
  for (const [of, name] of spares) {
    const node = cluster.items.find((i) => i.kind === 'Node' && i.metadata.name === of);
    if (!node) continue;
    const spare = structuredClone(node);
    spare.metadata.name = name;
    spare.metadata.labels['kubernetes.io/hostname'] = name;
    delete spare.metadata.uid;
    delete spare.metadata.resourceVersion;
    cluster.items.push(spare);
  }
  return cluster;
}

async function poll(what, fn, timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  // 1. kube-sim
  const tmp = path.join(out, 'tmp');
  fs.mkdirSync(tmp);
  fs.writeFileSync(path.join(tmp, 'cluster.json'), JSON.stringify(demoWithSpare()));
  const settings = { timeScale: 30, configMapSyncDelayMs: 0,
    users: [{ name: 'alice', groups: ['reviewers'], token: TOKENS.alice }, { name: 'bob', token: TOKENS.bob }] };
  const admin = path.join(tmp, 'admin.kubeconfig');
  const simUrl = await startChild('kube-sim', args['kube-sim'], ['--listen', '127.0.0.1:0', '--snapshot', path.join(tmp, 'cluster.json'),
    '--kubeconfig-out', admin, '--settings', JSON.stringify(settings)], /kube-sim listening on (\S+)/);
  log('kube-sim at ' + simUrl);

  // alice may approve and revert (ClusterRole kubeon-gpu-reviewer, as the
  // shared contract defines it); bob is bound to nothing.
  const rbac = {
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kubeon-gpu-reviewer' },
        rules: [{ apiGroups: ['gpu.kubeon.io'], resources: ['gpupolicies'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['gpu.kubeon.io'], resources: ['gpuchanges'], verbs: ['get', 'list', 'watch', 'patch', 'approve', 'revert'] }] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'e2e-alice-reviewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kubeon-gpu-reviewer' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }] }] };
  const kubectl = process.env.KUBECTL || 'kubectl';
  // Writes are authorized by TokenReview + SubjectAccessReview; a kube-sim
  // built without them cannot run this test.
  for (const [api, resource] of [['/apis/authentication.k8s.io/v1', 'tokenreviews'],
    ['/apis/authorization.k8s.io/v1', 'subjectaccessreviews'], ['/apis/rbac.authorization.k8s.io/v1', 'clusterrolebindings']]) {
    const served = run('kubectl-discovery', kubectl, ['--kubeconfig', admin, 'get', '--raw', api]);
    if (served.status !== 0 || !served.stdout.includes(`"name":"${resource}"`)) {
      console.log(`SKIP: this kube-sim does not serve ${resource} (${api}): TokenReview, SubjectAccessReview and RBAC are needed`);
      cleanup();
      process.exit(77);
    }
  }
  const appliedRbac = run('kubectl-rbac', kubectl, ['--kubeconfig', admin, 'apply', '-f', '-'], JSON.stringify(rbac));
  if (appliedRbac.status !== 0) fail(`kubectl apply of the reviewer RBAC failed: ${appliedRbac.stderr}`);

  // 2. proposals + reviewer-server
  const db = path.join(tmp, 'audit.db');
  const planArgs = ['--kubeconfig', admin, '--metrics', path.join(DEMO, 'history.om'), '--policy', path.join(DEMO, 'policy.yaml'),
    '--prices', path.join(DEMO, 'prices.yaml'), '--audit-db', db];
  const applyArgs = (mode) => ['apply', ...planArgs, '--mode', mode, '--now', WINDOW_TIME, '--configmap-sync-seconds', '0', '-o', 'json'];
  const proposed = run('apply-proposal', args['kubeon-gpu'], applyArgs('Proposal'));
  if (proposed.status !== 0) fail(`kubeon-gpu apply --mode Proposal exited ${proposed.status}: ${proposed.stderr}`);
  const url = await startChild('reviewer-server', args.server, [...planArgs, '--ttl-hours', '1000'], /reviewer listening on (\S+)/);
  log('reviewer page at ' + url);

  const { changes } = await (await fetch(url + '/api/changes')).json();
  // The time-slicing step (the demo's A10G pool onto spare-a10g): it evicts
  // nothing, so its apply and revert are quick and no PodDisruptionBudget
  // holds them up.  A waiting step holds back only its own pool, so it runs
  // while the others stay proposed.
  const change = changes.find((c) => c.step && c.step.method === 'time-slicing' && c.step.evictions.length === 0);
  if (!change || change.state !== 'proposed') fail('no proposed time-slicing step in ' + JSON.stringify(changes.map((c) => [c.id, c.state])));
  const id = change.id;
  log(`change ${id} (step ${change.step.index}: ${change.step.method} on ${change.step.nodes.join(', ')}) is proposed`);

  // 3. the page renders the plan
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const consoleErrors = [];
  // A refused write (401/403) is logged by the browser as a failed resource load: expected.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('dialog', (d) => d.accept('e2e'));
  await page.goto(url + '/');
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 30000 });
  await page.waitForSelector('#summary dd');
  const freed = await page.textContent('#summary dd[data-field="GPUs freed"]');
  if (!(Number(freed) > 0)) fail('summary shows GPUs freed = ' + freed);
  const slices = await page.locator('#nodes .gpu .slice').count();
  if (slices === 0) fail('no GPU slices drawn');
  const migSlices = await page.locator('#nodes .slice[data-profile*="g."]').count();
  if (migSlices === 0) fail('no MIG slice drawn');
  const isolation = await page.locator('.isolation').first().textContent();
  if (!isolation || isolation.length < 10) fail('no isolation statement');
  const candidate = page.locator('.workload', { hasText: 'mig' }).first();
  await candidate.locator('button').click();
  await page.waitForSelector('#history-chart polyline.history-line');
  const points = (await page.getAttribute('#history-chart polyline.history-line', 'points')).trim().split(/\s+/).length;
  if (points < 10) fail(`history chart has ${points} points`);
  if ((await page.locator('#history-chart .headroom-line').count()) !== 1) fail('no headroom line');
  await page.screenshot({ path: path.join(out, '1-plan.png'), fullPage: true });
  await page.locator('#nodes .node', { has: page.locator('.slice[data-profile*="g."]') }).first().screenshot({ path: path.join(out, '1-node-layout.png') });
  await page.locator('#chart').screenshot({ path: path.join(out, '1-history-chart.png') });
  await candidate.screenshot({ path: path.join(out, '1-peak-bar.png') });
  log(`plan rendered: ${freed} GPUs freed, ${slices} slices, chart of ${points} points`);

  const row = page.locator(`tr[data-change="${id}"]`);
  const setToken = async (t) => { await page.fill('#token', t); await page.click('#token-save'); };

  // 4. bob may not approve; alice may
  await setToken(TOKENS.bob);
  await row.getByRole('button', { name: `Approve change ${id}` }).click();
  await poll('403 for bob', async () => /refused \(403\).*bob/.test(await page.textContent('#status')));
  const bobStatus = await page.textContent('#status');
  if (!bobStatus.includes('approve')) fail('403 does not name the verb: ' + bobStatus);
  await page.screenshot({ path: path.join(out, '2-bob-refused.png') });
  log('bob refused: ' + bobStatus);

  await setToken(TOKENS.alice);
  await row.getByRole('button', { name: `Approve change ${id}` }).click();
  await poll('approved', async () => (await row.locator('td.state').getAttribute('data-state')) === 'approved');
  const decision = await row.locator('td.decision').textContent();
  if (!decision.includes('approved by alice')) fail('decision reads: ' + decision);
  await page.screenshot({ path: path.join(out, '3-approved.png'), fullPage: true });
  log('approved by alice');

  // 5. the executor runs it
  const applied = run('apply-approve', args['kubeon-gpu'], applyArgs('Approve'));
  if (applied.status !== 0 && applied.status !== 3) fail(`kubeon-gpu apply --mode Approve exited ${applied.status}: ${applied.stderr.slice(-2000)}`);
  await poll('done on the page', async () => (await row.locator('td.state').getAttribute('data-state')) === 'done', 30000);
  await page.screenshot({ path: path.join(out, '4-done.png'), fullPage: true });
  log('done');

  // 6. revert
  await row.getByRole('button', { name: `Revert change ${id}` }).click();
  await poll('revert request shown', async () => (await row.locator('td.decision').textContent()).includes('revert requested by alice'));
  const reverted = run('revert', args['kubeon-gpu'], ['revert', id, '--kubeconfig', admin, '--audit-db', db, '--configmap-sync-seconds', '0']);
  if (reverted.status !== 0) fail(`kubeon-gpu revert exited ${reverted.status}: ${reverted.stderr.slice(-2000)}`);
  await poll('reverted on the page', async () => (await row.locator('td.state').getAttribute('data-state')) === 'reverted', 30000);
  await row.getByRole('button', { name: `Show log of change ${id}` }).click();
  await poll('log shown', async () => (await page.locator('#log tbody tr').count()) > 0);
  await page.screenshot({ path: path.join(out, '5-reverted.png'), fullPage: true });
  log('reverted');

  await browser.close();
  if (consoleErrors.length) fail('browser console errors: ' + consoleErrors.join(' | '));
  const serverLog = fs.readFileSync(path.join(out, 'reviewer-server.stderr'), 'utf8');
  for (const t of Object.values(TOKENS)) if (serverLog.includes(t)) fail('a token appears in the server log');
  log('PASS');
}

main().then(() => { cleanup(); process.exit(0); }, (e) => fail(e.stack || String(e)));
