// One session on the dashboard: its controls, its server-sent-event stream and its plots.
//
// The stream is GET /v1/sessions/{id}:stream as server-sent events: `header`, then `frame`s
// whose `id:` is the index of the sample after the frame, then `summary`, or `error` with a
// google.rpc.Status. The browser's EventSource reconnects by itself after a connection loss and
// sends Last-Event-ID, so the server resumes at exactly the next sample from its replay
// history; this card only checks the indices (a duplicate is dropped, a gap is reported) and,
// if the browser gives up (the server refused the reconnect, e.g. while it had not yet seen the
// old connection close), opens a new stream at start_sample_index itself, a bounded number of
// times. A stream that ended with a summary is closed at once: EventSource would otherwise
// reconnect and resume the run.
//
// Frames arrive faster than the screen refreshes; they only append to ring buffers and mark
// the card dirty. Dashboard.render() (one requestAnimationFrame loop for every card) redraws
// dirty cards once per display frame.

import { ApiError, call, enumLabel, fmt, getToken, num, rangeText, resourceId, sessionPath } from './api.js';
import { SampleTable, kLogFloor } from './series.js';

// Samples kept per series (and plotted): the dashboard's drawing budget of 10,000 points per
// series at 30 frames/s.
export const kCapacity = 10000;
// Attempts of this card's own reconnect once EventSource gave up, 1 s apart at first, doubling
// up to 8 s: about a minute in total before the card reports the stream lost.
const kReconnectAttempts = 10;
const kEventLogLength = 500;
const kMarkerCount = 2000;
// Frames per second the stream is cut into for a real-time run: 30 updates a second keep the
// plots moving smoothly without a frame per sample.
export const kStreamUpdatesPerSecond = 30;
// Samples per frame at most (the server's default frame size): a run faster than
// kStreamUpdatesPerSecond × this many samples a second gets more frames a second instead.
export const kMaxFrameSamples = 256;
const kStatisticsRefreshMs = 2000;

const kColors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

// The width of a data line in CSS pixels: one device pixel. The canvas (Skia) draws a line of at
// most one device pixel as a hairline, directly; a wider one it first outlines segment by
// segment and then fills. At 10,000 points per series, where the canvas is rendered in
// software, that outlining was most of a redraw: 1.5 px lines held the dashboard below
// 30 redraws/s (bench/dashboard_fps/README.md).
function dataLineWidth() {
  return 1 / (window.devicePixelRatio || 1);
}

// Marker colour and log wording per EventKind.
const kEventStyle = {
  EVENT_KIND_ACTIVATED: { color: '#e67e00', label: 'activated' },
  EVENT_KIND_DEACTIVATED: { color: '#008b8b', label: 'deactivated' },
  EVENT_KIND_UPDATED: { color: '#8e44ad', label: 'updated' },
  EVENT_KIND_WARNING: { color: '#c0392b', label: 'warning' },
  EVENT_KIND_STIFFNESS_DETECTED: { color: '#c0392b', label: 'stiffness' },
  EVENT_KIND_METHOD_SWITCHED: { color: '#c0392b', label: 'method switched' },
  EVENT_KIND_SAMPLES_LOST: { color: '#c0392b', label: 'samples lost' },
  EVENT_KIND_RESUMED: { color: null, label: 'resumed' },
  EVENT_KIND_REPLAYED: { color: null, label: 'replayed' },
  EVENT_KIND_GRID_RESTARTED: { color: '#999999', label: 'grid restarted' },
  INITIALIZATION: { color: '#27ae60', label: 'initialization' },
};

let cardCounter = 0;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// A slider's range: the model's minimum and maximum where it gives them (the server refuses a
// value outside). An end it does not give is guessed: a tenth to three times a non-zero
// default (the sign kept), [-1, 1] around zero. The default lies in the model's range and
// strictly inside the guess, so the given end never closes the range. 300 steps.
function sliderRange(p) {
  const d = num(p.defaultValue);
  const [guessLo, guessHi] = d === 0 ? [-1, 1] : d > 0 ? [d / 10, 3 * d] : [3 * d, d / 10];
  const lo = p.minimum !== undefined ? num(p.minimum) : guessLo;
  const hi = p.maximum !== undefined ? num(p.maximum) : guessHi;
  return { min: lo, max: hi, step: (hi - lo) / 300 };
}

function initializationText(report) {
  if (!report) return '';
  if (report.summary) return report.summary;
  const changes = (report.changes ?? []).map((c) => `${c.name} ${fmt(num(c.given))} → ${fmt(num(c.corrected))}`);
  return changes.length ? `initial state corrected: ${changes.join(', ')}` : '';
}

export class SessionCard {
  // `session`: Session JSON; `model`: Model JSON; `run`: {tEnd, indefinite, realtimeFactor};
  // `dashboard`: the owner (fork adds a card, close removes this one).
  constructor(session, model, run, dashboard) {
    this.uid = ++cardCounter;
    this.dashboard = dashboard;
    this.model = model;
    this.session = session;
    this.id = resourceId(session.name);
    this.run = { ...run };
    this.columns = session.columns ?? model.columns ?? [];
    this.table = new SampleTable(this.columns, kCapacity, (model.inequalities ?? []).length > 0);
    this.nextIndex = num(session.nextSampleIndex);
    this.received = 0;
    this.events = [];
    this.markers = [];
    this.es = null;
    this.streamKind = null; // 'drive' | 'watch'
    this.connection = 'idle';
    this.reconnects = 0;
    this.manualAttempts = 0;
    this.headerSeen = false;
    this.pauseRequested = false;
    this.summaryWaiters = [];
    this.statsTimer = null;
    this.dirty = true;
    this.tolerance = num(session.options?.projectionTolerance) || 1e-12;
    this.selected = this.defaultTimeColumns();
    this.build();
    const init = initializationText(session.initialization);
    if (init && num(session.nextSampleIndex) === 0) {
      this.addEvent({ sampleIndex: 0, t: num(session.t), kind: 'INITIALIZATION', message: init });
    }
    this.showSession(session);
  }

  defaultTimeColumns() {
    const states = this.columns
      .map((c, j) => [c, j])
      .filter(([c]) => c.kind === 'COLUMN_KIND_STATE')
      .map(([, j]) => j);
    return new Set((states.length ? states : this.columns.map((_, j) => j)).slice(0, 6));
  }

  multiplierColumns() {
    const kinds = new Set(['COLUMN_KIND_MULTIPLIER', 'COLUMN_KIND_INEQUALITY_MULTIPLIER', 'COLUMN_KIND_ALGEBRAIC']);
    return this.columns.map((c, j) => [c, j]).filter(([c]) => kinds.has(c.kind)).map(([, j]) => j);
  }

  // ---- DOM ---------------------------------------------------------------------------------

  build() {
    const u = this.uid;
    const title = el('h2', { id: `card-${u}-title` }, `${this.id} `, el('small', { text: resourceId(this.session.model) }));
    this.stateBadge = el('span', { class: 'badge', 'data-role': 'state' });
    this.connBadge = el('span', { class: 'badge conn', role: 'status', 'data-role': 'connection' });

    this.startButton = el('button', { type: 'button', 'data-action': 'start', onclick: () => this.startDriving() }, 'Start');
    this.pauseButton = el('button', { type: 'button', 'data-action': 'pause', onclick: () => this.pause() }, 'Pause');
    this.watchButton = el('button', { type: 'button', 'data-action': 'watch', onclick: () => this.toggleWatch() }, 'Watch');
    this.forkButton = el('button', { type: 'button', 'data-action': 'fork', onclick: () => this.fork() }, 'Fork');
    this.csvButton = el('button', { type: 'button', 'data-action': 'csv', title: `the samples this card holds: at most the last ${kCapacity}, with their residuals`, onclick: () => this.downloadCsv() }, 'Download CSV');
    this.closeButton = el('button', { type: 'button', 'data-action': 'delete', onclick: () => this.close() }, 'Delete');

    this.tEndInput = el('input', { type: 'number', id: `card-${u}-tend`, step: 'any', value: String(this.run.tEnd) });
    this.rtInput = el('input', { type: 'number', id: `card-${u}-rt`, min: '0', step: 'any', value: String(this.run.realtimeFactor) });
    this.indefiniteInput = el('input', { type: 'checkbox', id: `card-${u}-indef` });
    this.indefiniteInput.checked = !!this.run.indefinite;

    this.samplesOut = el('output', { 'data-role': 'samples' }, '0');
    this.tOut = el('output', { 'data-role': 't' }, '0');
    this.progressOut = el('progress', { max: '1', value: '0', 'aria-label': 'progress to t_end' });
    this.messageOut = el('p', { class: 'message', role: 'status', 'data-role': 'message' });

    this.node = el('section', { class: 'card', 'aria-labelledby': `card-${u}-title`, 'data-session': this.id },
      el('header', {}, title, this.stateBadge, this.connBadge),
      el('div', { class: 'card-body' },
        el('div', { class: 'controls' },
          el('div', { class: 'toolbar' }, this.startButton, this.pauseButton, this.watchButton, this.forkButton, this.csvButton, this.closeButton),
          el('div', { class: 'runrow' },
            el('label', { for: `card-${u}-tend` }, 'until t [s]'), this.tEndInput,
            el('label', { for: `card-${u}-rt` }, 'speed (× real time, 0 = fast)'), this.rtInput,
            el('label', { class: 'inline' }, this.indefiniteInput, ' no end')),
          el('dl', { class: 'counters' },
            el('dt', { text: 'samples' }), el('dd', {}, this.samplesOut),
            el('dt', { text: 't [s]' }), el('dd', {}, this.tOut),
            el('dt', { text: 'progress' }), el('dd', {}, this.progressOut)),
          this.messageOut,
          this.buildParameters(),
          this.buildLatest(),
          this.buildStatistics(),
          this.buildEventLog()),
        this.buildPlots()));
    this.updateButtons();
  }

  buildParameters() {
    const box = el('details', { class: 'params', open: true }, el('summary', { text: 'Parameters (changed live)' }));
    this.paramInputs = new Map();
    const params = this.model.parameters ?? [];
    if (!params.length) box.append(el('p', { text: 'This model has no parameters.' }));
    for (const p of params) {
      const value = num(this.session.parameters?.[p.name] ?? p.defaultValue);
      const r = sliderRange(p);
      const range = rangeText(p);
      const id = `card-${this.uid}-p-${p.name}`;
      const unit = p.unit ? ` [${p.unit}]` : '';
      const slider = el('input', { type: 'range', id, min: String(Math.min(r.min, value)), max: String(Math.max(r.max, value)), step: String(r.step), value: String(value), 'data-param': p.name });
      const exact = el('input', { type: 'number', step: 'any', min: p.minimum, max: p.maximum, value: String(value), 'aria-label': `${p.name} exact value`, 'data-param-exact': p.name });
      slider.addEventListener('input', () => { exact.value = slider.value; });
      slider.addEventListener('change', () => this.setParameter(p.name, Number(slider.value)));
      exact.addEventListener('change', () => {
        const v = Number(exact.value);
        if (!Number.isFinite(v)) return;
        // A guessed end grows to take the value; the model's ends stay (the server refuses
        // a value beyond them and the card shows why).
        if (v < Number(slider.min) && p.minimum === undefined) slider.min = String(v);
        if (v > Number(slider.max) && p.maximum === undefined) slider.max = String(v);
        slider.value = String(v);
        this.setParameter(p.name, v);
      });
      this.paramInputs.set(p.name, { slider, exact });
      const spans = range ? `the model's range ${range}` : `the slider spans [${fmt(r.min)}, ${fmt(r.max)}], the box takes any value`;
      box.append(el('div', { class: 'param' },
        el('label', { for: id, title: `${p.description ? p.description + '; ' : ''}default ${fmt(num(p.defaultValue))}; ${spans}` }, `${p.name}${unit}`),
        slider, exact));
    }
    return box;
  }

  buildPlots() {
    const u = this.uid;
    this.chooser = el('fieldset', { class: 'chooser' }, el('legend', { text: 'Columns against t' }));
    this.columns.forEach((c, j) => {
      const box = el('input', { type: 'checkbox', 'data-column': c.name });
      box.checked = this.selected.has(j);
      box.addEventListener('change', () => {
        if (box.checked) this.selected.add(j);
        else this.selected.delete(j);
        this.makeTimeChart();
      });
      this.chooser.append(el('label', { class: 'inline' }, box, ` ${c.name}`));
    });

    this.timeBox = el('div', { class: 'plot', role: 'img', 'aria-label': 'chosen columns against t', 'data-plot': 'time' });
    this.multBox = el('div', { class: 'plot', role: 'img', 'aria-label': 'multipliers against t', 'data-plot': 'multipliers' });
    this.resBox = el('div', { class: 'plot', role: 'img', 'aria-label': 'constraint residuals against t, log scale', 'data-plot': 'residuals' });
    this.residualOut = el('p', { class: 'residual-note', 'data-role': 'residual' });

    const states = this.columns.filter((c) => c.kind === 'COLUMN_KIND_STATE');
    this.phaseX = el('select', { id: `card-${u}-px` });
    this.phaseY = el('select', { id: `card-${u}-py` });
    for (const c of this.columns) {
      this.phaseX.append(el('option', { value: c.name }, c.name));
      this.phaseY.append(el('option', { value: c.name }, c.name));
    }
    this.phaseX.value = (states[0] ?? this.columns[0])?.name ?? '';
    this.phaseY.value = (states[1] ?? this.columns[1] ?? this.columns[0])?.name ?? '';
    this.phaseX.addEventListener('change', () => { this.dirty = true; });
    this.phaseY.addEventListener('change', () => { this.dirty = true; });
    this.phaseCanvas = el('canvas', { class: 'phase', role: 'img', 'aria-label': 'phase plot', 'data-plot': 'phase' });

    this.plots = el('div', { class: 'plots' },
      el('div', { class: 'panel' }, el('h3', { text: 'States against t' }), this.chooser, this.timeBox),
      el('div', { class: 'panel' }, el('h3', { text: 'Phase plot' }),
        el('div', { class: 'phase-axes' },
          el('label', { for: `card-${u}-px` }, 'x'), this.phaseX,
          el('label', { for: `card-${u}-py` }, 'y'), this.phaseY),
        this.phaseCanvas),
      el('div', { class: 'panel' }, el('h3', { text: 'Multipliers' }), this.multBox),
      el('div', { class: 'panel' }, el('h3', { text: 'Residuals (log scale)' }), this.resBox, this.residualOut));
    return this.plots;
  }

  // The last sample's value of every column.
  buildLatest() {
    this.latestCells = this.columns.map((c) => el('td', { 'data-latest': c.name }));
    const body = el('tbody', {}, ...this.columns.map((c, j) => el('tr', {},
      el('th', { scope: 'row', text: c.name }), this.latestCells[j], el('td', { text: c.unit || '' }))));
    return el('details', { class: 'latest' }, el('summary', { text: 'Current values' }), el('table', {}, body));
  }

  buildStatistics() {
    this.statsBody = el('tbody');
    return el('details', { class: 'stats' }, el('summary', { text: 'Statistics' }),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'counter' }), el('th', { scope: 'col', text: 'value' }))), this.statsBody));
  }

  buildEventLog() {
    this.eventList = el('ol', { class: 'events', 'data-role': 'events', 'aria-live': 'polite' });
    return el('details', { class: 'eventlog', open: true }, el('summary', { text: 'Events' }), this.eventList);
  }

  // Creates the uPlot charts once the card is in the document (their width is the panel's).
  attach() {
    this.makeTimeChart();
    this.multChart = this.makeChart(this.multBox, this.multiplierColumns().map((j) => this.columns[j].name), {});
    const resLabels = ['‖Φ‖∞ position', '‖h‖∞ velocity'];
    if (this.table.residualInequality) resLabels.push('max(0, −min c) inequality');
    this.resChart = this.makeChart(this.resBox, resLabels, { log: true, tolerance: true });
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(this.plots);
    this.dirty = true;
  }

  makeTimeChart() {
    if (this.timeChart) this.timeChart.destroy();
    this.timeColumns = [...this.selected].sort((a, b) => a - b);
    this.timeChart = this.makeChart(this.timeBox, this.timeColumns.map((j) => this.columns[j].name), {});
    this.dirty = true;
  }

  makeChart(box, labels, { log = false, tolerance = false }) {
    const width = Math.max(200, box.clientWidth || 400);
    const series = [{ label: 't [s]' }];
    labels.forEach((label, i) => series.push({ label, stroke: kColors[i % kColors.length], width: dataLineWidth(), points: { show: false } }));
    // A log axis spans whole decades and always includes the projection tolerance, so the
    // tolerance line is on the chart however small the residuals are.
    const logRange = (u, min, max) => {
      const lo = min > 0 ? Math.min(min, this.tolerance) : this.tolerance / 1e4;
      const hi = max > 0 ? Math.max(max, this.tolerance) : this.tolerance * 10;
      return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi) + 1e-9)];
    };
    const opts = {
      width,
      height: 170,
      scales: { x: { time: false }, y: log ? { distr: 3, log: 10, range: logRange } : {} },
      axes: [{}, log ? { size: 64, values: (u, splits) => splits.map((v) => (v > 0 ? v.toExponential(0) : '')) } : { size: 64 }],
      series,
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      hooks: { draw: [(u) => this.drawOverlay(u, tolerance)] },
    };
    const data = [new Float64Array(0), ...labels.map(() => new Float64Array(0))];
    return new uPlot(opts, data, box);
  }

  // Event markers (vertical lines) and, on the residual chart, the projection tolerance.
  drawOverlay(u, tolerance) {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    const [x0, x1] = [u.scales.x.min, u.scales.x.max];
    ctx.save();
    ctx.lineWidth = 1;
    for (const m of this.markers) {
      if (!(m.t >= x0 && m.t <= x1) || !m.color) continue;
      const x = Math.round(u.valToPos(m.t, 'x', true)) + 0.5;
      ctx.strokeStyle = m.color;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
    }
    if (tolerance && this.tolerance > 0) {
      const y = Math.round(u.valToPos(this.tolerance, 'y', true)) + 0.5;
      if (y >= top && y <= top + height) {
        ctx.strokeStyle = '#000';
        ctx.setLineDash([8, 4]);
        ctx.beginPath();
        ctx.moveTo(left, y);
        ctx.lineTo(left + width, y);
        ctx.stroke();
        ctx.fillStyle = '#000';
        ctx.textAlign = 'left';
        ctx.textBaseline = 'bottom';
        ctx.font = `${12 * devicePixelRatio}px sans-serif`;
        ctx.fillText(`projection tolerance ${fmt(this.tolerance)}`, left + 6, y - 4);
      }
    }
    ctx.restore();
  }

  resize() {
    for (const [chart, box] of [[this.timeChart, this.timeBox], [this.multChart, this.multBox], [this.resChart, this.resBox]]) {
      if (chart && box.clientWidth) chart.setSize({ width: box.clientWidth, height: 170 });
    }
    this.dirty = true;
  }

  // ---- rendering (once per display frame, when dirty) ---------------------------------------

  // Redraws if anything changed; true when it did.
  render() {
    if (!this.dirty || !this.timeChart) return false;
    this.dirty = false;

    const t = this.table.t.view();
    this.timeChart.setData([t, ...this.timeColumns.map((j) => this.table.values[j].view())]);
    this.multChart.setData([t, ...this.multiplierColumns().map((j) => this.table.values[j].view())]);
    const res = [t, this.table.floored.position.view(), this.table.floored.velocity.view()];
    if (this.table.residualInequality) res.push(this.table.floored.inequality.view());
    this.resChart.setData(res);
    this.drawPhase();

    this.showSampleCount();
    this.node.dataset.received = String(this.received);
    this.node.dataset.points = String(t.length);
    this.node.dataset.markers = String(this.markers.length);
    this.tOut.value = this.table.count ? fmt(this.table.t.last()) : fmt(num(this.session.t));
    this.columns.forEach((c, j) => {
      const v = this.table.count ? this.table.values[j].last() : num(this.session.values?.[j]);
      this.latestCells[j].textContent = fmt(v);
      this.latestCells[j].dataset.value = String(v);
    });
    this.updateResidualNote();
    return true;
  }

  updateResidualNote() {
    const n = this.table.count;
    if (!n) {
      this.residualOut.textContent = `Projection tolerance ${fmt(this.tolerance)}; no samples yet.`;
      return;
    }
    let maxP = 0;
    let maxV = 0;
    const rp = this.table.residualPosition.view();
    const rv = this.table.residualVelocity.view();
    for (let i = 0; i < n; i++) {
      if (rp[i] > maxP) maxP = rp[i];
      if (rv[i] > maxV) maxV = rv[i];
    }
    let text = `Over the last ${n} samples: max ‖Φ‖∞ ${fmt(maxP)}, max ‖h‖∞ ${fmt(maxV)}`;
    let maxI = 0;
    if (this.table.residualInequality) {
      const ri = this.table.residualInequality.view();
      for (let i = 0; i < n; i++) if (ri[i] > maxI) maxI = ri[i];
      text += `, max inequality violation ${fmt(maxI)}`;
    }
    const worst = Math.max(maxP, maxV);
    text += worst <= this.tolerance ? ` — below the projection tolerance ${fmt(this.tolerance)}.` : ` — above the projection tolerance ${fmt(this.tolerance)} (a scaled norm; see the statistics).`;
    text += ` Zero is drawn at ${fmt(kLogFloor)}.`;
    this.residualOut.textContent = text;
    this.node.dataset.maxResidualPosition = String(maxP);
    this.node.dataset.maxResidualVelocity = String(maxV);
    this.node.dataset.tolerance = String(this.tolerance);
  }

  drawPhase() {
    const canvas = this.phaseCanvas;
    const cssWidth = canvas.parentElement?.clientWidth || 300;
    const cssHeight = 170;
    const dpr = devicePixelRatio || 1;
    if (canvas.width !== Math.round(cssWidth * dpr) || canvas.height !== Math.round(cssHeight * dpr)) {
      canvas.width = Math.round(cssWidth * dpr);
      canvas.height = Math.round(cssHeight * dpr);
      canvas.style.width = `${cssWidth}px`;
      canvas.style.height = `${cssHeight}px`;
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssWidth, cssHeight);
    const jx = this.table.columnIndex(this.phaseX.value);
    const jy = this.table.columnIndex(this.phaseY.value);
    const n = this.table.count;
    if (jx < 0 || jy < 0 || n === 0) return;
    const xs = this.table.values[jx].view();
    const ys = this.table.values[jy].view();
    let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let i = 0; i < n; i++) {
      const x = xs[i];
      const y = ys[i];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    if (!(x1 > x0)) { x0 -= 1; x1 += 1; }
    if (!(y1 > y0)) { y0 -= 1; y1 += 1; }
    const pad = 44;
    const w = cssWidth - pad - 8;
    const h = cssHeight - 28;
    // Equal scales on both axes when the columns share a unit, so a circle looks round.
    let sx = w / (x1 - x0);
    let sy = h / (y1 - y0);
    const ux = this.columns[jx].unit;
    if (ux && ux === this.columns[jy].unit) sx = sy = Math.min(sx, sy);
    const px = (x) => pad + (x - x0) * sx;
    const py = (y) => 8 + h - (y - y0) * sy;
    ctx.strokeStyle = '#888';
    ctx.lineWidth = 1;
    ctx.strokeRect(pad, 8, w, h);
    ctx.fillStyle = '#222';
    ctx.font = '11px sans-serif';
    ctx.fillText(fmt(x0), pad, cssHeight - 6);
    const x1Text = fmt(x0 + w / sx);
    ctx.fillText(x1Text, pad + w - ctx.measureText(x1Text).width, cssHeight - 6);
    ctx.fillText(fmt(y0), 2, 8 + h);
    ctx.fillText(fmt(y0 + h / sy), 2, 18);
    ctx.strokeStyle = kColors[0];
    ctx.lineWidth = dataLineWidth();
    ctx.beginPath();
    ctx.moveTo(px(xs[0]), py(ys[0]));
    for (let i = 1; i < n; i++) ctx.lineTo(px(xs[i]), py(ys[i]));
    ctx.stroke();
    ctx.fillStyle = kColors[1];
    ctx.beginPath();
    ctx.arc(px(xs[n - 1]), py(ys[n - 1]), 4, 0, 2 * Math.PI);
    ctx.fill();
  }

  // ---- session state ----------------------------------------------------------------------

  showSession(session) {
    this.session = session;
    const state = enumLabel(session.state, 'SESSION_STATE_');
    if (!this.es) this.setState(state);
    for (const [name, inputs] of this.paramInputs) {
      const v = session.parameters?.[name];
      if (v !== undefined && document.activeElement !== inputs.slider && document.activeElement !== inputs.exact) {
        inputs.exact.value = String(num(v));
        inputs.slider.value = String(num(v));
      }
    }
    this.showStatistics(session.statistics);
    if (!this.es) this.showSampleCount();
  }

  // The next sample's index: what the card has. Shown at once where the state changes with it
  // (a stream's end), so that the state and the count never disagree until the next redraw.
  showSampleCount() {
    this.samplesOut.value = String(this.nextIndex);
    this.node.dataset.samples = String(this.nextIndex);
  }

  setState(text) {
    this.stateBadge.textContent = text;
    this.node.dataset.state = text;
  }

  setConnection(text) {
    this.connection = text;
    this.connBadge.textContent = text;
    this.node.dataset.connection = text;
  }

  showMessage(text, isError = false) {
    this.messageOut.textContent = text;
    this.messageOut.classList.toggle('error', isError);
  }

  showStatistics(stats) {
    if (!stats) return;
    const rows = [
      ['accepted steps', num(stats.steps)], ['rejected steps', num(stats.rejectedSteps)],
      ['right-hand side evaluations', num(stats.rhsEvaluations)], ['projections', num(stats.projections)],
      ['projection Newton iterations', num(stats.projectionIterations)], ['samples', num(stats.samples)],
      ['max ‖Φ‖∞', fmt(num(stats.maxResidualPosition))], ['max ‖h‖∞', fmt(num(stats.maxResidualVelocity))],
      ['switches', num(stats.switches)], ['max inequality violation', fmt(num(stats.maxResidualInequality))],
      ['Jacobian evaluations', num(stats.jacobianEvaluations)], ['LU factorizations', num(stats.luFactorizations)],
      ['CPU seconds', fmt(num(stats.cpuSeconds))],
    ];
    this.statsBody.replaceChildren(...rows.map(([k, v]) => el('tr', { 'data-stat': k }, el('th', { scope: 'row', text: k }), el('td', { text: String(v) }))));
  }

  updateButtons() {
    const streaming = !!this.es;
    const driving = streaming && this.streamKind === 'drive';
    this.startButton.disabled = streaming;
    this.startButton.textContent = this.nextIndex > 0 ? 'Resume' : 'Start';
    this.pauseButton.disabled = !driving || this.pauseRequested;
    this.watchButton.disabled = driving;
    this.watchButton.textContent = streaming && this.streamKind === 'watch' ? 'Stop watching' : 'Watch';
    this.forkButton.disabled = driving;
    this.forkButton.title = driving ? 'pause the run first: a streaming session cannot be forked' : '';
  }

  addEvent(ev) {
    const kind = ev.kind ?? 'EVENT_KIND_UNSPECIFIED';
    const style = kEventStyle[kind] ?? { color: '#555', label: enumLabel(kind, 'EVENT_KIND_') };
    const t = num(ev.t);
    let text = `t = ${fmt(t)} (sample ${num(ev.sampleIndex)}): ${style.label}`;
    if (ev.constraint !== undefined) text += ` c${num(ev.constraint) + 1} (${(this.model.inequalities ?? [])[num(ev.constraint)] ?? '?'} ≥ 0)`;
    if (ev.message) text += ` — ${ev.message}`;
    const init = initializationText(ev.initialization);
    if (init && kind !== 'INITIALIZATION' && !(ev.message ?? '').includes(init)) text += `; ${init}`;
    this.events.push(text);
    const item = el('li', { 'data-kind': kind }, text);
    this.eventList.prepend(item);
    while (this.eventList.childElementCount > kEventLogLength) this.eventList.lastElementChild.remove();
    if (style.color) {
      this.markers.push({ t, color: style.color, kind });
      if (this.markers.length > kMarkerCount) this.markers.splice(0, this.markers.length - kMarkerCount);
    }
    const counts = JSON.parse(this.node.dataset.eventCounts || '{}');
    counts[kind] = (counts[kind] ?? 0) + 1;
    this.node.dataset.eventCounts = JSON.stringify(counts);
    this.dirty = true;
  }

  // ---- streams ----------------------------------------------------------------------------

  streamUrl(kind, startIndex) {
    const q = new URLSearchParams();
    if (kind === 'watch') {
      q.set('view_only', 'true');
    } else {
      const rt = Number(this.rtInput.value);
      this.run.realtimeFactor = Number.isFinite(rt) && rt > 0 ? rt : 0;
      this.run.indefinite = this.indefiniteInput.checked;
      this.run.tEnd = Number(this.tEndInput.value);
      if (this.run.indefinite) q.set('indefinite', 'true');
      else q.set('t_end', String(this.run.tEnd));
      if (this.run.realtimeFactor > 0) {
        q.set('realtime_factor', String(this.run.realtimeFactor));
        const dt = num(this.session.options?.outputInterval);
        // Samples per update at 30 updates/s; 1 when every step is a sample (interval 0).
        const perFrame = dt > 0 ? Math.round(this.run.realtimeFactor / dt / kStreamUpdatesPerSecond) : 1;
        q.set('frame_samples', String(Math.min(kMaxFrameSamples, Math.max(1, perFrame))));
      }
    }
    if (startIndex !== undefined) q.set('start_sample_index', String(startIndex));
    if (getToken()) q.set('access_token', getToken());
    return `${sessionPath(this.id, 'stream')}?${q}`;
  }

  startDriving() {
    if (this.es) return;
    this.pauseRequested = false;
    this.openStream('drive', undefined);
  }

  toggleWatch() {
    if (this.es && this.streamKind === 'watch') {
      this.closeStream('stopped watching');
      return;
    }
    if (!this.es) this.openStream('watch', this.nextIndex > 0 ? this.nextIndex : undefined);
  }

  openStream(kind, startIndex) {
    this.streamKind = kind;
    this.headerSeen = false;
    this.url = this.streamUrl(kind, startIndex);
    const es = new EventSource(this.url);
    this.es = es;
    this.setConnection('connecting');
    this.setState(kind === 'watch' ? 'watching' : 'running');
    this.showMessage('');
    es.addEventListener('open', () => {
      if (es !== this.es) return;
      this.setConnection(this.connection === 'reconnecting' ? 'reconnected' : 'connected');
    });
    es.addEventListener('header', (e) => this.onHeader(es, JSON.parse(e.data)));
    es.addEventListener('frame', (e) => this.onFrame(es, JSON.parse(e.data)));
    es.addEventListener('summary', (e) => this.onSummary(es, JSON.parse(e.data)));
    es.addEventListener('error', (e) => this.onError(es, e));
    this.updateButtons();
    clearInterval(this.statsTimer);
    this.statsTimer = setInterval(() => this.refresh(), kStatisticsRefreshMs);
  }

  closeStream(why) {
    if (this.es) this.es.close();
    this.es = null;
    clearInterval(this.statsTimer);
    this.statsTimer = null;
    this.setConnection(why);
    this.updateButtons();
  }

  onHeader(es, header) {
    if (es !== this.es) return;
    const first = num(header.firstSampleIndex);
    if (this.reconnects > 0 || this.manualAttempts > 0) {
      const how = first === this.nextIndex ? 'no gap, no duplicate' : `expected sample ${this.nextIndex}`;
      this.addEvent({ sampleIndex: first, t: num(header.tStart), kind: 'EVENT_KIND_RESUMED', message: `stream reconnected at sample ${first} (${how})` });
    }
    this.headerSeen = true;
    this.manualAttempts = 0;
    this.setConnection('connected');
    if (this.table.count === 0 && first > 0 && this.nextIndex !== first) this.nextIndex = first;
  }

  onFrame(es, frame) {
    if (es !== this.es) return;
    const first = num(frame.firstSampleIndex);
    const t = frame.t ?? [];
    const n = t.length;
    const c = this.columns.length;
    const values = frame.values ?? [];
    const rp = frame.residualPosition ?? [];
    const rv = frame.residualVelocity ?? [];
    const ri = frame.residualInequality ?? [];
    if (first > this.nextIndex && this.table.count > 0) {
      this.addEvent({ sampleIndex: first, t: num(t[0]), kind: 'EVENT_KIND_SAMPLES_LOST', message: `samples [${this.nextIndex}, ${first}) never arrived` });
    }
    // A frame that overlaps what the card has (a replay after a reconnect) adds only its tail.
    const skip = Math.max(0, this.nextIndex - first);
    const row = new Float64Array(c);
    for (let i = skip; i < n; i++) {
      for (let j = 0; j < c; j++) row[j] = num(values[i * c + j]);
      this.table.pushSample(first + i, num(t[i]), row, num(rp[i]), num(rv[i]), num(ri[i]));
    }
    if (skip < n) {
      this.received += n - skip;
      this.nextIndex = first + n;
    }
    for (const ev of frame.events ?? []) {
      if (num(ev.sampleIndex) >= first + skip) this.addEvent(ev);
    }
    const p = frame.progress;
    if (p) this.progressOut.value = num(p.fraction);
    this.dirty = true;
  }

  onSummary(es, summary) {
    if (es !== this.es) return;
    // Close before anything else: EventSource would reconnect to a finished stream.
    this.closeStream('closed');
    this.nextIndex = num(summary.nextSampleIndex) || this.nextIndex;
    const termination = enumLabel(summary.termination, 'TERMINATION_');
    this.showSampleCount();
    this.setState(termination === 'reached_end' ? 'finished' : termination);
    this.showMessage(summary.message ? `${termination}: ${summary.message}` : termination);
    this.showStatistics(summary.statistics);
    if (termination === 'reached_end' && !this.run.indefinite) {
      // The next Start continues past the horizon by the same span.
      const span = Math.max(num(this.session.options?.tEnd) - 0, 1);
      this.tEndInput.value = String(Number((num(summary.t) + span).toPrecision(12)));
    }
    this.pauseRequested = false;
    this.updateButtons();
    this.dirty = true;
    this.resolveSummaryWaiters();
    this.refresh();
  }

  onError(es, e) {
    if (es !== this.es) return;
    if (e instanceof MessageEvent && e.data) {
      // The server's own `event: error`: a google.rpc.Status; the stream is over.
      let status = {};
      try { status = JSON.parse(e.data); } catch { status = { message: e.data }; }
      this.closeStream('closed');
      this.setState('failed');
      this.showMessage(new ApiError(0, status).describe(), true);
      this.resolveSummaryWaiters();
      this.refresh();
      return;
    }
    if (es.readyState === EventSource.CONNECTING) {
      // The browser reconnects by itself, sending Last-Event-ID.
      this.reconnects++;
      this.setConnection('reconnecting');
      this.showMessage(`connection lost; reconnecting (resumes at sample ${this.nextIndex})`);
      return;
    }
    // EventSource gave up: the server refused the (re)connection or it is unreachable.
    this.es.close();
    this.es = null;
    this.diagnoseAndRetry();
  }

  // Learns why the stream was refused (EventSource cannot read the error body), then retries
  // where a retry can help: after a connection loss the session may still count its old
  // stream for a moment, or the server may be restarting.
  async diagnoseAndRetry() {
    let reason = 'the server closed the stream';
    let retry = this.headerSeen || this.manualAttempts > 0 || this.reconnects > 0;
    try {
      const s = await call('GET', sessionPath(this.id));
      this.showSession(s);
      reason = `session ${enumLabel(s.state, 'SESSION_STATE_')}${s.lastMessage ? ': ' + s.lastMessage : ''}`;
      if (!retry) {
        // Refused at once: ask the stream URL itself for the error (an error answer is not a
        // stream, so this starts nothing).
        const r = await fetch(this.url, { headers: { Accept: 'application/json' } });
        // (The URL carries the token, if any, as the stream itself did.)
        if (!r.ok) {
          let status = {};
          try { status = JSON.parse(await r.text()); } catch { status = { message: `HTTP ${r.status}` }; }
          reason = new ApiError(r.status, status).describe();
        } else {
          r.body?.cancel();
        }
      }
    } catch (err) {
      reason = err instanceof ApiError ? err.describe() : String(err);
      if (err instanceof ApiError && err.httpStatus === 404) retry = false;
    }
    if (retry && this.manualAttempts < kReconnectAttempts) {
      const delay = Math.min(8000, 1000 * 2 ** this.manualAttempts);
      this.manualAttempts++;
      this.setConnection('reconnecting');
      this.showMessage(`connection lost (${reason}); retry ${this.manualAttempts}/${kReconnectAttempts} in ${delay / 1000} s at sample ${this.nextIndex}`);
      this.retryTimer = setTimeout(() => {
        if (!this.es && !this.closed) this.openStream(this.streamKind, this.nextIndex);
      }, delay);
      this.updateButtons();
      return;
    }
    this.closeStream('disconnected');
    this.setState('stopped');
    this.showMessage(`stream ended: ${reason}`, true);
    this.resolveSummaryWaiters();
  }

  resolveSummaryWaiters() {
    const waiters = this.summaryWaiters;
    this.summaryWaiters = [];
    for (const w of waiters) w();
  }

  async refresh() {
    try {
      const s = await call('GET', sessionPath(this.id));
      this.showSession(s);
    } catch (err) {
      if (!this.es) this.showMessage(err instanceof ApiError ? err.describe() : String(err), true);
    }
  }

  // ---- commands ---------------------------------------------------------------------------

  async pause() {
    if (!this.es || this.streamKind !== 'drive') return;
    this.pauseRequested = true;
    this.updateButtons();
    try {
      await call('POST', sessionPath(this.id, 'control'), { pause: true });
    } catch (err) {
      this.pauseRequested = false;
      this.updateButtons();
      this.showMessage(err.describe ? err.describe() : String(err), true);
    }
  }

  async setParameter(name, value) {
    try {
      const s = await call('POST', sessionPath(this.id, 'control'), { parameters: { [name]: value } });
      this.showMessage(this.es ? `${name} = ${fmt(value)} sent; applied at the next frame` : `${name} = ${fmt(value)} applied`);
      if (!this.es) this.showSession(s);
    } catch (err) {
      this.showMessage(err.describe ? err.describe() : String(err), true);
    }
  }

  async fork() {
    try {
      const s = await call('POST', sessionPath(this.id, 'fork'), {});
      this.dashboard.addCard(s, this.model, { ...this.run, tEnd: Number(this.tEndInput.value) });
    } catch (err) {
      this.showMessage(err.describe ? err.describe() : String(err), true);
    }
  }

  downloadCsv() {
    const blob = new Blob([this.table.toCsv()], { type: 'text/csv' });
    const a = el('a', { href: URL.createObjectURL(blob), download: `${this.id}.csv` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  // Deletes the session (pausing its run first) and removes the card.
  async close() {
    if (this.es && this.streamKind === 'drive') {
      const ended = new Promise((resolve) => this.summaryWaiters.push(resolve));
      await this.pause();
      await ended;
    }
    this.closeStream('closed');
    clearTimeout(this.retryTimer);
    try {
      await call('DELETE', sessionPath(this.id));
    } catch (err) {
      if (!(err instanceof ApiError && err.httpStatus === 404)) {
        this.showMessage(err.describe ? err.describe() : String(err), true);
        return;
      }
    }
    this.closed = true;
    this.resizer?.disconnect();
    for (const c of [this.timeChart, this.multChart, this.resChart]) c?.destroy();
    this.dashboard.removeCard(this);
  }
}
