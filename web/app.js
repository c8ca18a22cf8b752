// Reviewer page: reads the controller's JSON API (controller/reviewer_api.h)
// and draws it with DOM + inline SVG.  No framework, nothing from another
// origin.  The reviewer's token stays in this tab (sessionStorage) and is
// only sent as "Authorization: Bearer" on approve / reject / revert.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const TOKEN_KEY = 'kubeon-reviewer-token';
const state = { policy: null, view: null, changes: [] };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
const money = (v) => '$' + Math.round(v).toLocaleString('en-US');
const mib = (v) => (v === null || v === undefined ? '?' : v >= 1024 ? (v / 1024).toFixed(1) + ' GiB' : v + ' MiB');
function setStatus(text, isError) {
  const s = document.getElementById('status');
  s.textContent = text;
  s.className = isError ? 'error' : '';
}

async function getJson(url) {
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.status + ' ' + r.statusText);
  return body;
}

function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
function showTokenState() {
  document.getElementById('token-state').textContent = token() ? 'Token set for this tab.' : 'No token: read only.';
}

async function write(id, action, body) {
  if (!token()) { setStatus('Paste your Kubernetes bearer token first.', true); document.getElementById('token').focus(); return; }
  setStatus(action + ' ' + id + '…');
  const r = await fetch('/api/changes/' + encodeURIComponent(id) + '/' + action, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token() },
    body: JSON.stringify(body || {}),
    credentials: 'omit',
  });
  const answer = await r.json().catch(() => ({}));
  if (!r.ok) { setStatus(action + ' ' + id + ' refused (' + r.status + '): ' + (answer.error || r.statusText), true); return; }
  setStatus(answer.detail ? 'Change ' + id + ': ' + answer.detail : action + ' ' + id + ': done');
  await loadChanges();
}

// ---- policies ---------------------------------------------------------------

async function loadPolicies() {
  const { policies } = await getJson('/api/policies');
  const ul = document.getElementById('policies');
  ul.replaceChildren();
  for (const p of policies) {
    const label = p.name + (p.summary ? ' — ' + p.summary.gpus_freed + ' GPUs, ' + money(p.summary.savings_realizable_usd ?? p.summary.monthly_savings_usd) + '/month realizable' : p.error ? ' — ' + p.error : '');
    ul.append(el('li', {}, el('button', { type: 'button', 'data-policy': p.name, 'aria-current': String(p.name === state.policy), onclick: () => selectPolicy(p.name), text: label })));
  }
  if (!state.policy && policies.length) await selectPolicy(policies[0].name);
}

async function selectPolicy(name) {
  state.policy = name;
  for (const b of document.querySelectorAll('#policies button')) b.setAttribute('aria-current', String(b.dataset.policy === name));
  const view = await getJson('/api/policies/' + encodeURIComponent(name));
  state.view = view;
  renderPolicy(view);
}

function renderPolicy(v) {
  document.getElementById('policy').hidden = false;
  document.getElementById('policy-title').textContent = 'Policy ' + v.name;
  const meta = [];
  if (v.policy) meta.push('mode ' + v.policy.mode, 'headroom ' + v.policy.headroom_text);
  if (v.policy && v.policy.window) meta.push('window ' + v.policy.window + (v.window_open ? ' (open now)' : ' (closed now)'));
  if (v.planned_at) meta.push('planned ' + v.planned_at);
  if (v.conflicts.length) meta.push('conflicts: ' + v.conflicts.join(', '));
  document.getElementById('policy-meta').textContent = meta.join(' · ');
  const summary = document.getElementById('summary');
  summary.replaceChildren();
  for (const id of ['nodes', 'workloads', 'steps', 'chart']) document.getElementById(id).replaceChildren();
  if (!v.plan) { summary.append(el('dt', { text: 'No plan' }), el('dd', { class: 'error', text: v.error })); return; }
  const s = v.plan.summary;
  const rows = [['GPUs before → after', s.gpus_before + ' → ' + s.gpus_after], ['GPUs freed', String(s.gpus_freed)],
    ['Nodes freed', String(s.nodes_freed)],
    ['Saved per month (nodes freed, once removed)', money(s.savings_realizable_usd ?? s.monthly_savings_usd)],
    ['Capacity freed per month (GPUs on nodes that stay)', money(s.capacity_freed_usd ?? 0)],
    ['Pods disrupted', String(s.pods_disrupted)], ['Workloads to MIG / time-slicing', s.workloads_to_mig + ' / ' + s.workloads_to_time_slicing]];
  for (const [k, val] of rows) summary.append(el('dt', { text: k }), el('dd', { 'data-field': k, text: val }));
  renderNodes(v.plan);
  renderWorkloads(v);
  renderSteps(v.plan.schedule);
}

// One GPU as a 120x34 bar of slices, each as wide as its share of the GPU.
function gpuSvg(title, slices) {
  const W = 120, H = 28;
  const s = svg('svg', { width: W, height: H + 2, viewBox: `0 0 ${W} ${H + 2}`, role: 'img', 'aria-label': title, class: 'gpu-svg' });
  s.append(svg('title', {}, title));
  s.append(svg('rect', { x: 0.5, y: 0.5, width: W - 1, height: H, fill: 'var(--free)', stroke: 'var(--line)' }));
  let x = 0.5;
  for (const sl of slices) {
    const w = Math.max(2, sl.fraction * (W - 1));
    const color = sl.profile === 'whole' ? 'var(--whole)' : sl.profile.startsWith('1/') ? 'var(--ts)' : 'var(--mig)';
    const g = svg('g', { class: 'slice', 'data-profile': sl.profile });
    g.append(svg('rect', { x: x + 0.5, y: 1, width: w - 1.5, height: H - 1, fill: color, rx: 2 }));
    if (w > 26) g.append(svg('text', { x: x + w / 2, y: H / 2 + 5, 'text-anchor': 'middle', 'font-size': 10, fill: '#fff' }, sl.profile === 'whole' ? 'whole' : sl.profile));
    g.append(svg('title', {}, sl.profile + (sl.memory_mib ? ' (' + mib(sl.memory_mib) + ')' : '') + (sl.workload ? ': ' + sl.workload : ': free')));
    s.append(g);
    x += w;
  }
  return s;
}

function renderNodes(plan) {
  const box = document.getElementById('nodes');
  const changing = plan.nodes.filter((n) => n.method !== 'none' || n.freed || n.gpus_before !== n.gpus_after);
  if (!changing.length) { box.append(el('p', { class: 'muted', text: 'No node changes.' })); return; }
  for (const n of changing) {
    const before = el('div', { class: 'gpus' });
    for (let i = 0; i < n.gpu_count; i++) {
      const held = i < n.gpus_before;
      before.append(el('div', { class: 'gpu' }, gpuSvg('GPU' + i + ' before: ' + (held ? 'held whole' : 'free'), held ? [{ profile: 'whole', fraction: 1 }] : []), el('div', { class: 'label', text: 'GPU' + i })));
    }
    const after = el('div', { class: 'gpus' });
    for (const g of n.gpus) {
      const title = 'GPU' + g.index + ' after: ' + g.slices.map((x) => x.profile + (x.workload ? ' ' + x.workload : '')).join(', ');
      after.append(el('div', { class: 'gpu', 'data-gpu': g.index }, gpuSvg(title, g.slices), el('div', { class: 'label', text: 'GPU' + g.index + (g.mig_enabled ? ' MIG' : '') })));
    }
    if (!n.gpus.length) after.append(el('span', { class: 'muted', text: 'no GPU in use: node freed' }));
    const card = el('article', { class: 'node', 'data-node': n.name },
      el('h4', { text: n.name + ' — ' + n.gpu_model + (n.instance_type ? ' (' + n.instance_type + ')' : '') }),
      el('p', { class: 'muted', text: n.method + ': GPUs held ' + n.gpus_before + ' → ' + n.gpus_after + (n.freed ? ', node freed' : '') + (n.monthly_savings_usd ? ', ' + money(n.monthly_savings_usd) + '/month' : '') }),
      el('div', { class: 'layouts' }, el('span', { text: 'Before' }), before, el('span', { text: 'After' }), after));
    if (n.isolation) card.append(el('p', { class: 'isolation', text: 'Isolation: ' + n.isolation }));
    if (n.disrupted_pods.length) {
      const ul = el('ul', { 'aria-label': 'Pods disrupted on ' + n.name });
      for (const d of n.disrupted_pods) ul.append(el('li', { text: d.pod + ' (' + d.owner + '): ' + d.why }));
      card.append(el('p', { text: 'Disrupts:' }), ul);
    }
    box.append(card);
  }
}

// Peak memory against the slice's capacity: the bar is the slice, the dark
// part the peak, the tick the peak plus headroom.
function peakBar(w) {
  const W = 360, H = 22;
  const cap = w.slice_memory_mib || w.gpu_memory_mib || w.needed_mib || 1;
  const scale = (W - 2) / Math.max(cap, w.needed_mib || 0, w.peak_memory_mib || 0);
  const label = 'peak ' + mib(w.peak_memory_mib) + ' of ' + mib(cap) + ' (' + (w.slice || 'whole GPU') + '), needs ' + mib(w.needed_mib) + ' with headroom';
  const s = svg('svg', { width: W, height: H, role: 'img', 'aria-label': label, class: 'peak-bar' });
  s.append(svg('title', {}, label));
  s.append(svg('rect', { x: 1, y: 2, width: cap * scale, height: H - 4, fill: 'var(--free)', stroke: 'var(--mig)' }));
  if (w.peak_memory_mib !== null) s.append(svg('rect', { x: 1, y: 5, width: w.peak_memory_mib * scale, height: H - 10, fill: 'var(--mig)' }));
  if (w.needed_mib !== null) s.append(svg('line', { x1: 1 + w.needed_mib * scale, x2: 1 + w.needed_mib * scale, y1: 0, y2: H, stroke: 'var(--warn)', 'stroke-width': 2 }));
  return s;
}

function renderWorkloads(v) {
  const box = document.getElementById('workloads');
  for (const w of v.plan.workloads) {
    const id = w.namespace + '/' + w.name;
    const button = el('button', { type: 'button', 'aria-label': 'Show memory history of ' + w.kind + ' ' + id, onclick: () => loadHistory(v.name, w) },
      el('strong', { text: id }), el('br'), el('span', { class: 'muted', text: w.decision + (w.slice ? ' ' + w.slice : '') }));
    const detail = el('div', {}, peakBar(w), el('div', { class: 'muted', text: (w.peak_memory_mib !== null ? 'peak ' + mib(w.peak_memory_mib) + ' → slice ' + mib(w.slice_memory_mib) + '. ' : '') + w.reason }));
    if (w.isolation) detail.append(el('div', { class: 'isolation', text: w.isolation }));
    box.append(el('div', { class: 'workload', 'data-workload': id }, button, detail));
  }
}

async function loadHistory(policy, w) {
  const q = new URLSearchParams({ namespace: w.namespace, kind: w.kind, name: w.name, points: '200' });
  const caption = document.getElementById('chart-caption');
  try {
    const h = await getJson('/api/policies/' + encodeURIComponent(policy) + '/history?' + q);
    caption.textContent = w.kind + ' ' + w.namespace + '/' + w.name + ': memory used (max over its pods), ' + h.points.length + ' points';
    drawChart(h);
  } catch (e) {
    caption.textContent = 'History of ' + w.namespace + '/' + w.name + ' unavailable: ' + e.message;
    document.getElementById('chart').replaceChildren();
  }
}

function drawChart(h) {
  const W = 720, H = 240, L = 60, R = 10, T = 10, B = 30;
  const pts = h.points;
  const cap = h.slice_memory_mib;
  const limit = cap ? cap / (1 + h.headroom) : null;  // most it may use and keep the headroom
  const ymax = Math.max(1, cap || 0, ...pts.map((p) => p[1])) * 1.05;
  const t0 = pts.length ? pts[0][0] : 0, t1 = pts.length ? pts[pts.length - 1][0] : 1;
  const x = (t) => L + (t1 === t0 ? 0 : ((t - t0) / (t1 - t0)) * (W - L - R));
  const y = (v) => T + (H - T - B) * (1 - v / ymax);
  const s = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Memory history chart', id: 'history-chart' });
  s.append(svg('line', { x1: L, x2: L, y1: T, y2: H - B, stroke: 'var(--line)' }), svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: 'var(--line)' }));
  for (const f of [0, 0.5, 1]) s.append(svg('text', { x: L - 4, y: y(ymax * f / 1.05) + 4, 'text-anchor': 'end', 'font-size': 11, fill: 'var(--muted)' }, mib(Math.round(ymax * f / 1.05))));
  if (pts.length) {
    s.append(svg('text', { x: L, y: H - 8, 'font-size': 11, fill: 'var(--muted)' }, new Date(t0 * 1000).toISOString().slice(0, 16) + 'Z'));
    s.append(svg('text', { x: W - R, y: H - 8, 'text-anchor': 'end', 'font-size': 11, fill: 'var(--muted)' }, new Date(t1 * 1000).toISOString().slice(0, 16) + 'Z'));
  }
  if (cap) s.append(svg('line', { x1: L, x2: W - R, y1: y(cap), y2: y(cap), stroke: 'var(--mig)', class: 'capacity-line' }));
  if (limit) s.append(svg('line', { x1: L, x2: W - R, y1: y(limit), y2: y(limit), stroke: 'var(--warn)', 'stroke-dasharray': '6 4', class: 'headroom-line' }));
  s.append(svg('polyline', { points: pts.map((p) => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join(' '), fill: 'none', stroke: 'var(--fg)', 'stroke-width': 1.5, class: 'history-line' }));
  const legend = el('p', { class: 'legend', text: 'Black: memory used. Blue: slice capacity ' + mib(cap) + (h.slice ? ' (' + h.slice + ')' : '') + '. Dashed: capacity less the ' + Math.round(h.headroom * 100) + '% headroom' + (limit ? ' (' + mib(Math.round(limit)) + ')' : '') + '.' });
  document.getElementById('chart').replaceChildren(s, legend);
}

function renderSteps(schedule) {
  const ol = document.getElementById('steps');
  // A blocked pool (no order of its changes fits) holds back no other pool.
  for (const [pool, why] of Object.entries(schedule.blocked_pools || {})) {
    ol.append(el('li', { class: 'error', 'data-blocked-pool': pool, text: 'Pool ' + pool + ': no order fits (' + why + '); its nodes stay as they are' }));
  }
  if (!schedule.feasible) {
    const need = Object.entries(schedule.spare_gpus_needed || {}).map(([m, n]) => n + ' ' + m).join(', ');
    ol.append(el('li', { class: 'error', text: (need ? 'Spare whole GPUs needed: ' + need + '. ' : '') + (schedule.steps.length ? 'The other pools go ahead:' : 'Nothing will be started.') }));
  }
  for (const st of schedule.steps) ol.append(el('li', { 'data-step': st.id }, stepSummary(st)));
}

function stepSummary(st) {
  const box = el('div', {});
  box.append(el('strong', { text: 'Change ' + st.id }), document.createTextNode(' — ' + st.gpu_model + ' ' + st.method + ': nodes ' + st.nodes.join(', ') + '; frees ' + st.gpus_freed + ' GPUs, ' + money(st.monthly_savings_usd) + '/month'));
  const ul = el('ul', {});
  for (const n of st.nodes) ul.append(el('li', { text: n + ': ' + (st.layout_before[n] || '?') + ' → ' + (st.layout_after[n] || '?') }));
  for (const o of st.owners) ul.append(el('li', { text: 'moves ' + o.owner.kind + ' ' + o.owner.namespace + '/' + o.owner.name + ' (' + o.replicas + ' replicas): ' + o.from_resource + ' → ' + o.to_resource }));
  for (const e of st.evictions) ul.append(el('li', { text: 'evicts ' + e.pod + (e.runs_meanwhile ? ' (runs meanwhile on ' + e.runs_meanwhile + ')' : ' (waits Pending meanwhile)') }));
  for (const d of st.disrupted) ul.append(el('li', { class: 'disrupted', text: 'disrupts ' + d.pod + ' (' + d.owner + '): ' + d.why }));
  for (const f of st.flags) ul.append(el('li', { class: 'error', text: 'flag: ' + f }));
  box.append(ul);
  if (st.isolation) box.append(el('p', { class: 'isolation', text: 'Isolation: ' + st.isolation }));
  return box;
}

// ---- changes and log ----------------------------------------------------------

async function loadChanges() {
  const { changes } = await getJson('/api/changes');
  state.changes = changes;
  const box = document.getElementById('changes');
  if (!changes.length) { box.replaceChildren(el('p', { class: 'muted', text: 'No changes recorded yet.' })); return; }
  const tbody = el('tbody');
  for (const c of changes) {
    const st = c.step;
    const actions = el('td', {});
    const label = (verb) => verb + ' change ' + c.id;
    if (c.state === 'proposed' || c.state === 'approved') {
      actions.append(el('button', { type: 'button', class: 'primary', 'aria-label': label('Approve'), onclick: () => write(c.id, 'approve', { hash: c.content_hash }), text: c.state === 'approved' ? 'Re-approve' : 'Approve' }), ' ');
      actions.append(el('button', { type: 'button', class: 'danger', 'aria-label': label('Reject'), onclick: () => {
        const reason = window.prompt('Why reject change ' + c.id + '?', '');
        if (reason !== null) write(c.id, 'reject', { reason });
      }, text: 'Reject' }), ' ');
    }
    if (c.state === 'done') {
      actions.append(el('button', { type: 'button', class: 'danger', 'aria-label': label('Revert'), onclick: () => write(c.id, 'revert', {}), text: 'Revert' }), ' ');
    }
    actions.append(el('button', { type: 'button', 'aria-label': 'Show log of change ' + c.id, onclick: () => loadLog(c.id), text: 'Log' }));
    let decision = '';
    if (c.approval) decision = 'approved by ' + c.approval.by + (c.approval.expired ? ', expired ' : ' until ') + c.approval.expires_at + (c.approval.matches_step ? '' : ' (earlier version)');
    if (c.rejected_by) decision = 'rejected by ' + c.rejected_by + (c.reason ? ': ' + c.reason : '');
    if (c.revert_requested) decision += (decision ? '; ' : '') + 'revert requested by ' + c.revert_requested.by + ' at ' + c.revert_requested.at;
    tbody.append(el('tr', { 'data-change': c.id },
      el('td', { text: c.id }), el('td', { text: c.policy }),
      el('td', { class: 'state state-' + c.state, 'data-state': c.state, text: c.state }),
      el('td', {}, st ? stepSummary(st) : el('span', { class: 'error', text: c.step_error || '' })),
      el('td', { class: 'decision', text: decision }), actions));
  }
  const table = el('table', { 'aria-label': 'Changes' },
    el('thead', {}, el('tr', {}, ...['ID', 'Policy', 'State', 'Step', 'Decision', 'Actions'].map((h) => el('th', { scope: 'col', text: h })))), tbody);
  box.replaceChildren(table);
}

async function loadLog(id) {
  const { entries } = await getJson('/api/changes/' + encodeURIComponent(id) + '/log');
  document.getElementById('log-section').hidden = false;
  document.getElementById('log-title').textContent = 'Log of change ' + id;
  const tbody = document.querySelector('#log tbody');
  tbody.replaceChildren(...entries.map((e) => el('tr', {}, el('td', { text: String(e.seq) }), el('td', { text: e.time }), el('td', { text: e.action }), el('td', { text: e.outcome }), el('td', { text: e.detail }))));
}

// ---- start ----------------------------------------------------------------------

function start() {
  document.getElementById('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = document.getElementById('token');
    const t = input.value.trim();
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    input.value = '';
    showTokenState();
  });
  document.getElementById('token-forget').addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); showTokenState(); });
  showTokenState();
  const refresh = async () => {
    try {
      await loadChanges();
      if (!state.policy) await loadPolicies();
      document.body.dataset.loaded = 'true';
    } catch (e) {
      setStatus('Cannot read the controller: ' + e.message, true);
    }
  };
  refresh();
  setInterval(refresh, 3000);
}
document.addEventListener('DOMContentLoaded', start);
