// tether's dashboard: pick a model, create sessions, run and steer them side by side.
// Plain ES modules and uPlot (a global from /vendor/uPlot.iife.min.js); no framework: the page
// is a form and a list of cards, each of which owns its DOM and its stream.

import { ApiError, call, enumLabel, fmt, getToken, kProjections, num, rangeText, resourceId, setToken } from './api.js';
import { SessionCard } from './session_card.js';

const $ = (selector) => document.querySelector(selector);

class Dashboard {
  constructor() {
    this.models = new Map(); // "models/x" → Model
    this.cards = [];
    this.cardsNode = $('#cards');
    this.frameLoop = this.frameLoop.bind(this);
  }

  async start() {
    for (const [value, label] of kProjections) $('#projection').append(new Option(label, value));
    $('#model').addEventListener('change', () => this.showModel());
    $('#create-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.createSession();
    });
    $('#open-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.openExisting();
    });
    $('#refresh-sessions').addEventListener('click', () => this.loadSessions());
    $('#token').value = getToken();
    $('#token-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      setToken($('#token').value);
      await this.loadServerInfo();
      await this.loadModels();
      await this.loadSessions();
    });
    await this.loadServerInfo();
    await this.loadModels();
    await this.loadSessions();
    requestAnimationFrame(this.frameLoop);
  }

  // One redraw per display frame for every card whose data changed since the last one (what a
  // redraw costs, and the frame rate it allows: bench/dashboard_fps).
  frameLoop() {
    for (const card of this.cards) card.render();
    requestAnimationFrame(this.frameLoop);
  }

  setServerStatus(text, ok) {
    const s = $('#server-status');
    s.textContent = text;
    s.dataset.ok = ok ? 'true' : 'false';
  }

  // The steppers this server offers (GetServerInfo.methods) and its version.
  async loadServerInfo() {
    try {
      const info = await call('GET', '/v1/serverInfo');
      const select = $('#method');
      select.replaceChildren(new Option('server default', ''));
      for (const m of info.methods ?? []) select.append(new Option(m, m));
      $('#server-version').textContent = `tether ${info.version ?? ''} (${info.gitCommit ?? ''})`;
    } catch (err) {
      this.setServerStatus(`server unreachable: ${err.describe ? err.describe() : err}`, false);
    }
  }

  async loadModels() {
    try {
      const models = [];
      let token = '';
      // Pages of 100 until the last (bounded by the server's model limit).
      for (let page = 0; page < 1000; page++) {
        const r = await call('GET', `/v1/models?page_size=100${token ? '&page_token=' + encodeURIComponent(token) : ''}`);
        models.push(...(r.models ?? []));
        token = r.nextPageToken ?? '';
        if (!token) break;
      }
      const select = $('#model');
      select.replaceChildren();
      const groups = { true: document.createElement('optgroup'), false: document.createElement('optgroup') };
      groups.true.label = 'Catalog';
      groups.false.label = 'Registered';
      for (const m of models) {
        this.models.set(m.name, m);
        groups[String(!!m.builtin)].append(new Option(`${resourceId(m.name)} — ${m.title ?? ''}`, m.name));
      }
      for (const g of Object.values(groups)) if (g.childElementCount) select.append(g);
      const pendulum = models.find((m) => m.name === 'models/pendulum');
      if (pendulum) select.value = pendulum.name;
      this.showModel();
      this.setServerStatus(`connected: ${models.length} models`, true);
    } catch (err) {
      this.setServerStatus(`server unreachable: ${err.describe ? err.describe() : err}`, false);
    }
  }

  selectedModel() {
    return this.models.get($('#model').value);
  }

  // The model's description, parameters and initial values, and its suggested run.
  showModel() {
    const m = this.selectedModel();
    const box = $('#model-info');
    box.replaceChildren();
    if (!m) return;
    const p = (text, cls) => Object.assign(document.createElement('p'), { textContent: text, className: cls ?? '' });
    box.append(p(`${enumLabel(m.form, 'MODEL_FORM_')} form; ${m.title ?? ''}`, 'title'));
    box.append(p(m.description ?? '', 'description'));
    if ((m.inequalities ?? []).length) box.append(p(`Inequalities: ${m.inequalities.map((c) => `${c} ≥ 0`).join(', ')}`));
    if ((m.invariants ?? []).length) box.append(p(`Invariants: ${m.invariants.join(', ')}`));

    // Rows with a `range` (parameters) get a range column, and their inputs its bounds.
    const table = (caption, rows, inputPrefix) => {
      const ranged = rows.some((r) => r.range !== undefined);
      const t = document.createElement('table');
      t.className = 'values';
      t.createCaption().textContent = caption;
      const head = t.createTHead().insertRow();
      for (const h of ranged ? ['name', 'unit', 'range', 'value'] : ['name', 'unit', 'value']) {
        const th = document.createElement('th');
        th.scope = 'col';
        th.textContent = h;
        head.append(th);
      }
      const body = t.createTBody();
      for (const r of rows) {
        const tr = body.insertRow();
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = r.name;
        if (r.description) th.title = r.description;
        tr.append(th);
        tr.insertCell().textContent = r.unit || '—';
        if (ranged) tr.insertCell().textContent = r.range || '—';
        const input = document.createElement('input');
        input.type = 'number';
        input.step = 'any';
        if (r.min !== undefined) input.min = String(r.min);
        if (r.max !== undefined) input.max = String(r.max);
        input.value = String(r.value);
        input.dataset.default = String(r.value);
        input.dataset[inputPrefix] = r.name;
        input.setAttribute('aria-label', `${r.name}${r.unit ? ' [' + r.unit + ']' : ''}`);
        tr.insertCell().append(input);
      }
      return t;
    };
    box.append(table('Parameters', (m.parameters ?? []).map((x) => ({ name: x.name, unit: x.unit, value: num(x.defaultValue), range: rangeText(x), min: x.minimum, max: x.maximum, description: x.description })), 'parameter'));
    box.append(table('Initial values (initialization makes them consistent)', (m.variables ?? []).map((x) => ({ name: x.name, unit: x.unit, value: num(x.initialValue) })), 'initial'));
    $('#t-end').value = String(m.suggestedTEnd ?? 10);
    $('#output-interval').value = String(m.suggestedOutputInterval ?? 0.01);
  }

  // CreateSessionRequest from the form: only values the user changed are overrides.
  async createSession() {
    const m = this.selectedModel();
    const out = $('#create-status');
    if (!m) {
      out.textContent = 'Pick a model first.';
      return;
    }
    const changed = (attr) => {
      const r = {};
      for (const input of document.querySelectorAll(`#model-info input[data-${attr}]`)) {
        if (input.value !== input.dataset.default) r[input.dataset[attr]] = Number(input.value);
      }
      return r;
    };
    const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
    const request = {
      model: m.name,
      parameters: changed('parameter'),
      initialValues: changed('initial'),
      options: {
        method: $('#method').value,
        rtol: number('#rtol'),
        atol: number('#atol'),
        projection: $('#projection').value,
        projectionTolerance: number('#projection-tolerance'),
        tEnd: number('#t-end'),
        outputInterval: number('#output-interval'),
      },
    };
    if ($('#session-id').value) request.sessionId = $('#session-id').value;
    out.textContent = 'creating…';
    out.classList.remove('error');
    try {
      const session = await call('POST', '/v1/sessions', request);
      out.textContent = `created ${session.name}`;
      const card = this.addCard(session, m, {
        tEnd: num(session.options?.tEnd),
        indefinite: $('#indefinite').checked,
        realtimeFactor: Number($('#realtime').value) || 0,
      });
      if ($('#autostart').checked) card.startDriving();
      this.loadSessions();
    } catch (err) {
      out.textContent = err instanceof ApiError ? err.describe() : String(err);
      out.classList.add('error');
    }
  }

  async loadSessions() {
    try {
      const r = await call('GET', '/v1/sessions?page_size=1000');
      const select = $('#existing');
      select.replaceChildren();
      for (const s of r.sessions ?? []) {
        select.append(new Option(`${resourceId(s.name)} (${resourceId(s.model)}, ${enumLabel(s.state, 'SESSION_STATE_')}, t = ${fmt(num(s.t))})`, s.name));
      }
      $('#open-button').disabled = !select.childElementCount;
    } catch (err) {
      this.setServerStatus(`server unreachable: ${err.describe ? err.describe() : err}`, false);
    }
  }

  async openExisting() {
    const name = $('#existing').value;
    if (!name || this.cards.some((c) => c.session.name === name)) return;
    try {
      const session = await call('GET', `/v1/${name}`);
      let model = this.models.get(session.model);
      if (!model) model = await call('GET', `/v1/${session.model}`);
      this.addCard(session, model, { tEnd: num(session.options?.tEnd), indefinite: false, realtimeFactor: 1 });
    } catch (err) {
      $('#create-status').textContent = err instanceof ApiError ? err.describe() : String(err);
    }
  }

  addCard(session, model, run) {
    const card = new SessionCard(session, model, run, this);
    this.cards.push(card);
    this.cardsNode.append(card.node);
    card.attach();
    card.node.querySelector('button')?.focus();
    return card;
  }

  removeCard(card) {
    this.cards = this.cards.filter((c) => c !== card);
    card.node.remove();
    this.loadSessions();
  }
}

const dashboard = new Dashboard();
dashboard.start();
