// Dashboard frame rate: does the dashboard draw 10,000 points per series at 30 frames/s while a
// run streams (issue 17's requirement)? The real page, served by a real tether-server with
// --http-listen on 127.0.0.1, in Debian's chromium headless driven by puppeteer-core; a session
// is created and started through the page's own form and buttons, and the bench only watches:
// a script installed before the page's own (evaluateOnNewDocument) wraps uPlot's constructor,
// requestAnimationFrame, queueMicrotask and EventSource to time what the page does, and changes
// nothing it does. Writes dashboard_fps.json and dashboard_fps.md (bench/README conventions:
// --quick, --results DIR, --repeats N).
//
//   build/dev/bench/dashboard_fps [--quick] [--results DIR] [--repeats N] [--seconds S] [--model M]
//   node bench/dashboard_fps/main.mjs --url http://127.0.0.1:8080 ...   (a server already running)
//   ... --trace PREFIX   also writes PREFIX.<row>.json, a Chrome trace of the first window
//   ... --dashboard-dir server/dashboard   the page's files from there, not the server's copy
//   ... --device-scale-factor 2   a high-density screen (canvases of 4× the pixels)
//
// (build/dev/bench/dashboard_fps is a script CMake generates: it adds --server, --chromium and
// --invoked-as.) Per row, after every series holds 10,000 points and a second of warm-up:
//   - display frames: the intervals between requestAnimationFrame callbacks of a loop of the
//     bench's own (what the screen would show; chromium's headless display runs at 60 Hz);
//   - redraws: the dashboard's own animation-frame callbacks that called setData on a chart,
//     their whole cost (the callback and the microtasks it queued, where uPlot draws) and, per
//     uPlot chart, setData plus that chart's draw microtask. The phase plot (a canvas of its
//     own), the counters and the residual summary are the rest of the redraw;
//   - stream: the server-sent `frame` events that arrived and the time their handler took
//     (JSON parse, appending to the ring buffers).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { card, clickCard, createSession, launchBrowser, limitRunTime, parseArgs, sleep, startServer, waitInPage } from '../../tests/dashboard/harness.mjs';

// The requirement (issue 17) and the frame budget it implies.
const kPointsPerSeries = 10_000;
const kTargetFps = 30;
const kFrameBudgetMs = 1000 / kTargetFps;
// A display frame longer than 1.5 budgets means at least one 30 frames/s frame was dropped.
const kDroppedFrameMs = 1.5 * kFrameBudgetMs;

const args = parseArgs(process.argv,
  { server: '', url: '', chromium: '/usr/bin/chromium', results: '', repeats: '', seconds: '', model: 'double_pendulum', trace: '', 'dashboard-dir': '', 'device-scale-factor': '1', 'invoked-as': '' },
  ['quick']);

// How the card paces a real-time stream (session_card.js): `updates` frames a second of
// round(rate / updates) samples, at most `maxFrameSamples`; and how many points it keeps.
async function cardPacing(page) {
  return page.evaluate(async () => {
    const card = await import('/session_card.js');
    return { updates: card.kStreamUpdatesPerSecond, maxFrameSamples: card.kMaxFrameSamples, capacity: card.kCapacity };
  });
}

// The rows, as sample rates the card turns into frames: `paced`, the card's own 30 frames/s
// (100 samples each, so that 10,000 points are there in 3.3 s); `flooded`, frames of the most
// samples twice as often, so that the redraw rate is bounded by the page, not by the data.
// Quick: `flooded` only, which fills the series soonest.
function rows(outputInterval, pacing) {
  const paced = { name: 'paced', samplesPerSecond: pacing.updates * 100, what: `the card's pacing: ${pacing.updates} frames/s of 100 samples` };
  const flooded = { name: 'flooded', samplesPerSecond: 2 * pacing.updates * pacing.maxFrameSamples, what: `${2 * pacing.updates} frames/s of ${pacing.maxFrameSamples} samples` };
  const list = args.quick ? [flooded] : [paced, flooded];
  return list.map((r) => ({ ...r, realtime: r.samplesPerSecond * outputInterval }));
}

// Installed in the page before its scripts run. Records into window.__fps while
// window.__fps.recording is true.
function instrumentPage() {
  const rec = { recording: false, redraws: [], streamFrames: [], nativeRaf: window.requestAnimationFrame.bind(window) };
  window.__fps = rec;
  const now = () => performance.now();
  const originalMicrotask = window.queueMicrotask.bind(window);
  let drawingPlot = null; // the chart whose setData is running
  let redraw = null; // the redraw of the animation-frame callback that is running

  // uPlot queues its drawing (_commit) as one microtask per chart from setData; uPlot keeps the
  // queueMicrotask it found when its script ran, this one.
  window.queueMicrotask = (fn) => {
    const plot = drawingPlot;
    if (!plot) return originalMicrotask(fn);
    return originalMicrotask(() => {
      const start = now();
      try { fn(); } finally { plot.drawMs += now() - start; }
    });
  };

  window.requestAnimationFrame = (callback) => rec.nativeRaf((timestamp) => {
    const r = { plots: [], totalMs: 0 };
    const start = now();
    redraw = r;
    try {
      callback(timestamp);
    } finally {
      redraw = null;
      // Queued after the charts' draw microtasks: runs when they are done.
      if (r.plots.length) originalMicrotask(() => { r.totalMs = now() - start; if (rec.recording) rec.redraws.push(r); });
    }
  });

  // The chart's name is its panel's heading ("States against t", "Multipliers", ...).
  const wrapUPlot = (UPlot) => {
    function Instrumented(opts, data, target) {
      const u = new UPlot(opts, data, target);
      const name = target?.closest?.('.panel')?.querySelector('h3')?.textContent ?? 'chart';
      const setData = u.setData;
      u.setData = (d, resetScales) => {
        const plot = { name, series: d.length - 1, points: d[0]?.length ?? 0, setDataMs: 0, drawMs: 0 };
        const start = now();
        drawingPlot = plot;
        try { setData(d, resetScales); } finally {
          drawingPlot = null;
          plot.setDataMs = now() - start;
          redraw?.plots.push(plot);
        }
      };
      return u;
    }
    Object.assign(Instrumented, UPlot);
    Instrumented.prototype = UPlot.prototype;
    return Instrumented;
  };
  // uPlot's script declares `var uPlot = …`: an assignment to this property.
  let uPlot;
  Object.defineProperty(window, 'uPlot', { configurable: true, get: () => uPlot, set: (v) => { uPlot = wrapUPlot(v); } });

  // Every `frame` event of a stream: when it came and how long the page's handler took.
  const NativeEventSource = window.EventSource;
  window.EventSource = class extends NativeEventSource {
    addEventListener(type, listener, options) {
      if (type !== 'frame') return super.addEventListener(type, listener, options);
      return super.addEventListener(type, (e) => {
        const start = now();
        try { listener(e); } finally { if (rec.recording) rec.streamFrames.push(now() - start); }
      }, options);
    }
  };
}

// Display-frame timestamps from the page's requestAnimationFrame over `ms`, with the recording
// of redraws and stream frames switched on for the same span.
async function measureWindow(page, ms) {
  return page.evaluate((windowMs) => new Promise((resolve) => {
    const rec = window.__fps;
    rec.redraws = [];
    rec.streamFrames = [];
    const times = [];
    const tick = (t) => {
      times.push(t);
      if (t - times[0] < windowMs) {
        rec.nativeRaf(tick);
        return;
      }
      rec.recording = false;
      resolve({ times, redraws: rec.redraws, streamFrames: rec.streamFrames });
    };
    rec.nativeRaf((t) => { rec.recording = true; tick(t); });
  }), ms);
}

// Nearest-rank p-quantile, as bench/common/report.cc's Percentile.
function percentile(values, p) {
  if (!values.length) return 0;
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.round(p * (v.length - 1)))];
}

// %.3g, as bench/common/report.cc's Format.
function format(value, digits = 3) {
  return String(Number(Number(value).toPrecision(digits)));
}

function intervalsOf(times) {
  return times.slice(1).map((t, j) => t - times[j]);
}

function frameStatistics(intervals, seconds) {
  return {
    display_frames: intervals.length,
    display_frames_per_second: intervals.length / seconds,
    interval_ms: { p50: percentile(intervals, 0.5), p95: percentile(intervals, 0.95), p99: percentile(intervals, 0.99), max: Math.max(0, ...intervals) },
    frames_over_1_5_budget: intervals.filter((x) => x > kDroppedFrameMs).length,
  };
}

async function measureRow(page, url, row, outputInterval, windows, windowMs) {
  await page.goto(url + '/', { waitUntil: 'load', timeout: 20_000 });
  await waitInPage(page, () => document.querySelectorAll('#model option').length > 0, null, 'the model list loads');
  const idle = intervalsOf((await measureWindow(page, 1000)).times);
  const i = await createSession(page, args.model, { realtime: row.realtime, outputInterval, indefinite: true });
  await page.$eval('.card', (e) => e.querySelector('.plots').scrollIntoView());
  await clickCard(page, i, 'start');
  const fillSeconds = kPointsPerSeries / row.samplesPerSecond;
  await waitInPage(page, ([k, points]) => Number(document.querySelectorAll('.card')[k]?.dataset.points) >= points, [i, kPointsPerSeries],
    `${kPointsPerSeries} points per series (${row.samplesPerSecond} samples/s)`, 10_000 + 3000 * fillSeconds);
  await sleep(1000); // warm-up: the JIT, the first full-width paths
  const loadBefore = os.loadavg();
  const before = await card(page, i);
  const browserPid = page.browser().process()?.pid;
  const cpuBefore = browserPid ? processTreeCpuSeconds(browserPid) : NaN;
  const started = Date.now();
  const measured = [];
  // --trace: a Chrome trace (chrome://tracing, DevTools' Performance panel) of the first window.
  const traceFile = `${args.trace}.${row.name}.json`;
  if (args.trace) await page.tracing.start({ path: traceFile });
  for (let w = 0; w < windows; w++) {
    measured.push(await measureWindow(page, windowMs));
    if (args.trace && w === 0) await page.tracing.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const browserCpu = browserPid ? processTreeCpuSeconds(browserPid) - cpuBefore : NaN;
  const after = await card(page, i);
  const loadAfter = os.loadavg();
  await clickCard(page, i, 'pause');
  try {
    await waitInPage(page, (k) => document.querySelectorAll('.card')[k]?.dataset.state === 'paused', i, 'pause ends the stream');
  } catch (e) {
    const c = await card(page, i);
    throw new Error(`${e.message}: the card says state ${c?.state}, connection ${c?.connection}, message '${await page.$eval('.card [data-role="message"]', (m) => m.textContent)}'`);
  }

  const windowSeconds = measured.reduce((s, m) => s + (m.times.at(-1) - m.times[0]) / 1000, 0);
  const intervals = measured.flatMap((m) => intervalsOf(m.times));
  const redraws = measured.flatMap((m) => m.redraws);
  const streamFrames = measured.flatMap((m) => m.streamFrames);
  const plotNames = [...new Set(redraws.flatMap((r) => r.plots.map((p) => p.name)))];
  const plots = plotNames.map((name) => {
    const costs = redraws.flatMap((r) => r.plots.filter((p) => p.name === name));
    const ms = costs.map((p) => p.setDataMs + p.drawMs);
    return {
      name,
      series: Math.max(...costs.map((p) => p.series)),
      points_per_series_min: Math.min(...costs.map((p) => p.points)),
      redraw_ms: { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95) },
      set_data_ms_p50: percentile(costs.map((p) => p.setDataMs), 0.5),
      draw_ms_p50: percentile(costs.map((p) => p.drawMs), 0.5),
    };
  });
  const totals = redraws.map((r) => r.totalMs);
  const rest = redraws.map((r) => r.totalMs - r.plots.reduce((s, p) => s + p.setDataMs + p.drawMs, 0));
  const received = Number(after.received) - Number(before.received);
  return {
    row: row.name,
    stream: row.what,
    model: args.model,
    output_interval: outputInterval,
    realtime_factor: row.realtime,
    samples_per_second_requested: row.samplesPerSecond,
    samples_per_second_received: received / seconds,
    stream_frames_per_second: streamFrames.length / windowSeconds,
    stream_frame_handler_ms: { p50: percentile(streamFrames, 0.5), p95: percentile(streamFrames, 0.95) },
    measured_seconds: windowSeconds,
    points_per_series: Number(after.points),
    uplot_charts: plots.length,
    redraws: redraws.length,
    redraws_per_second: redraws.length / windowSeconds,
    browser_cpu_seconds_per_second: browserCpu / seconds,
    browser_cpu_ms_per_redraw: (1000 * browserCpu) / Math.max(1, redraws.length),
    redraw_ms: { p50: percentile(totals, 0.5), p95: percentile(totals, 0.95), max: Math.max(0, ...totals) },
    rest_of_redraw_ms: { p50: percentile(rest, 0.5), p95: percentile(rest, 0.95) },
    plots,
    ...frameStatistics(intervals, windowSeconds),
    idle_interval_ms_p50: percentile(idle, 0.5),
    ...(args.trace ? { renderer_main_thread_ms: mainThreadTime(traceFile) } : {}),
    load_average_1min: { before: loadBefore[0], after: loadAfter[0] },
  };
}

// From a Chrome trace: the renderer's main thread's time in the tasks that make a frame, in ms
// over the traced window. `Commit` is where the main thread hands the frame to the compositor,
// and where chromium rasterizes what the canvases recorded; JavaScript's own timers do not see it.
function mainThreadTime(file) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = trace.traceEvents ?? trace;
  const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const kinds = ['FireAnimationFrame', 'Commit', 'Paint', 'Layout', 'UpdateLayoutTree', 'MinorGC', 'MajorGC', 'EventDispatch'];
  const totals = Object.fromEntries(kinds.map((k) => [k, 0]));
  for (const e of events) {
    if (e.ph === 'X' && e.name in totals && main.has(`${e.pid}:${e.tid}`)) totals[e.name] += e.dur / 1000;
  }
  return totals;
}

// The page's own files (index.html, the modules, the style sheet) from `dir` instead of the
// copy compiled into tether-server: a change to server/dashboard measured without a rebuild.
// Every other request (the API, the streams, uPlot) goes to the server.
async function serveDashboardFrom(page, dir, serverUrl) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    const name = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
    const file = path.join(dir, name);
    if (url.origin === serverUrl && /^[a-z_]+\.(html|js|css|svg)$/.test(name) && fs.existsSync(file)) {
      request.respond({ status: 200, contentType: types[path.extname(name)], body: fs.readFileSync(file) });
    } else {
      request.continue();
    }
  });
}

// CPU seconds (user + system) of process `root` and all its descendants: chromium's browser,
// renderer, GPU and utility processes. Linux /proc; clock ticks of 1/100 s (USER_HZ on Linux).
function processTreeCpuSeconds(root) {
  const stats = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the command's closing parenthesis: state ppid … utime (14th field) stime (15th).
      const text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.push({ pid: Number(entry), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended while the directory was read
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of stats) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return stats.filter((p) => tree.has(p.pid)).reduce((sum, p) => sum + p.ticks, 0) / 100;
}

function machineDescription() {
  const model = /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  return `${os.cpus().length} × ${model}`;
}

function commandLine() {
  const own = new Set(['--server', '--chromium', '--invoked-as']);
  const user = [];
  for (let i = 2; i < process.argv.length; i++) {
    if (own.has(process.argv[i])) i++;
    else user.push(process.argv[i]);
  }
  return [args['invoked-as'] || `node ${path.relative(process.cwd(), process.argv[1])}`, ...user].join(' ');
}

function markdown(report) {
  const lines = ['### dashboard_fps', ''];
  lines.push(`**The dashboard (${report.browser}, headless, ${report.viewport.width} × ${report.viewport.height} CSS px at ${report.viewport.deviceScaleFactor} device px each) drawing ${report.model}'s session while it streams: ${kPointsPerSeries} points per series, target ${kTargetFps} redraws/s**`, '');
  lines.push('| stream | samples/s received | stream frames/s | points per series | redraws/s | redraw p50 / p95 / max [ms] | display frame interval p50 / p95 / p99 / max [ms] | frames > 50 ms | chromium CPU [s/s] / per redraw [ms] | load avg before / after |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of report.rows) {
    lines.push(`| ${r.row}: ${r.stream} | ${format(r.samples_per_second_received)} | ${format(r.stream_frames_per_second)} | ${r.points_per_series} | ${format(r.redraws_per_second)} | ${format(r.redraw_ms.p50)} / ${format(r.redraw_ms.p95)} / ${format(r.redraw_ms.max)} | ${format(r.interval_ms.p50)} / ${format(r.interval_ms.p95)} / ${format(r.interval_ms.p99)} / ${format(r.interval_ms.max)} | ${r.frames_over_1_5_budget} of ${r.display_frames} | ${format(r.browser_cpu_seconds_per_second)} / ${format(r.browser_cpu_ms_per_redraw)} | ${r.load_average_1min.before.toFixed(2)} / ${r.load_average_1min.after.toFixed(2)} |`);
  }
  lines.push('', '**Cost of one redraw per chart (setData and its draw microtask) and of the rest**', '');
  lines.push('| stream | chart | series × points | p50 [ms] | p95 [ms] | setData / draw p50 [ms] |');
  lines.push('|---|---|---|---|---|---|');
  for (const r of report.rows) {
    for (const p of r.plots) lines.push(`| ${r.row} | ${p.name} (uPlot) | ${p.series} × ${p.points_per_series_min} | ${format(p.redraw_ms.p50)} | ${format(p.redraw_ms.p95)} | ${format(p.set_data_ms_p50)} / ${format(p.draw_ms_p50)} |`);
    lines.push(`| ${r.row} | rest: phase plot (canvas, ${r.points_per_series} points), counters, residual summary | | ${format(r.rest_of_redraw_ms.p50)} | ${format(r.rest_of_redraw_ms.p95)} | |`);
    lines.push(`| ${r.row} | stream: one \`frame\` event's handler | | ${format(r.stream_frame_handler_ms.p50)} | ${format(r.stream_frame_handler_ms.p95)} | |`);
  }
  for (const r of report.rows.filter((x) => x.renderer_main_thread_ms)) {
    const t = r.renderer_main_thread_ms;
    lines.push('', `Renderer main thread in the first window of ${r.row}, from its trace (tracing slows the page): ${Object.entries(t).filter(([, ms]) => ms > 0).map(([k, ms]) => `${k} ${format(ms)} ms`).join(', ')}.`);
  }
  lines.push('', `A redraw is one of the dashboard's animation-frame callbacks that redrew a card (it redraws only when data arrived since the last); its cost runs from the callback's start to the end of the microtasks in which uPlot draws; chromium rasterizes what the canvases recorded later, when it commits the frame, which the display frame intervals include. Display frames are the intervals between requestAnimationFrame callbacks over the measured ${format(report.rows[0]?.measured_seconds ?? 0)} s (chromium's headless display runs at 60 Hz: ${report.rows.map((r) => format(r.idle_interval_ms_p50)).join(' / ')} ms per frame on the idle page before each row); a frame longer than 1.5 × 33.3 ms = 50 ms dropped at least one frame at 30 frames/s. Chromium CPU is the user + system time of all its processes (renderer, GPU, browser) over the window: per second, how much of a CPU the page took; per redraw, a cost that depends less on the load than the intervals do. Server, browser and bench share the machine's ${os.cpus().length} CPUs; the load averages say how busy it was.`, '');
  lines.push(`Command: \`${report.command}\` — machine: ${report.machine} — ${report.date}`);
  return lines.join('\n') + '\n';
}

async function main() {
  if (!args.server && !args.url) throw new Error('--server BINARY (tether-server) or --url (a server already running) is required');
  const scale = Number(args['device-scale-factor']);
  if (!(scale >= 1 && scale <= 4)) throw new Error(`--device-scale-factor ${args['device-scale-factor']}: must be in [1, 4]`);
  const windows = args.repeats === '' ? 1 : Number(args.repeats);
  if (!Number.isInteger(windows) || windows < 1) throw new Error(`--repeats ${args.repeats}: must be an integer >= 1`);
  const seconds = args.seconds === '' ? (args.quick ? 2 : 10) : Number(args.seconds);
  if (!(seconds > 0 && seconds <= 120)) throw new Error(`--seconds ${args.seconds}: must be in (0, 120]`);
  const results = args.results || path.resolve(path.dirname(process.argv[1]), '../results');

  const server = args.url ? { url: args.url, child: null } : await startServer(args.server);
  const { browser, page } = await launchBrowser(args.chromium);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.setViewport({ ...page.viewport(), deviceScaleFactor: scale });
  await page.evaluateOnNewDocument(instrumentPage);
  if (args['dashboard-dir']) await serveDashboardFrom(page, path.resolve(args['dashboard-dir']), server.url);
  try {
    const model = await (await fetch(`${server.url}/v1/models/${args.model}`)).json();
    const outputInterval = Number(model.suggestedOutputInterval);
    if (!(outputInterval > 0)) throw new Error(`model ${args.model}: no suggested output interval (${JSON.stringify(model).slice(0, 200)})`);
    const report = {
      benchmark: 'dashboard_fps',
      command: commandLine(),
      machine: machineDescription(),
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      browser: await browser.version(),
      model: args.model,
      viewport: page.viewport(),
      points_per_series_required: kPointsPerSeries,
      target_redraws_per_second: kTargetFps,
      rows: [],
    };
    await page.goto(server.url + '/', { waitUntil: 'load', timeout: 20_000 });
    const pacing = await cardPacing(page);
    report.points_per_series_kept = pacing.capacity;
    if (pacing.capacity < kPointsPerSeries) {
      throw new Error(`the dashboard keeps ${pacing.capacity} points per series (session_card.js kCapacity); the requirement is ${kPointsPerSeries}`);
    }
    for (const row of rows(outputInterval, pacing)) {
      console.log(`== ${row.name}: ${row.what}`);
      const r = await measureRow(page, server.url, row, outputInterval, windows, seconds * 1000);
      console.log(`   ${format(r.redraws_per_second)} redraws/s at ${r.points_per_series} points per series; redraw p50 ${format(r.redraw_ms.p50)} ms; display frames p50 ${format(r.interval_ms.p50)} / p99 ${format(r.interval_ms.p99)} / max ${format(r.interval_ms.max)} ms, ${r.frames_over_1_5_budget} over 50 ms`);
      report.rows.push(r);
    }
    if (consoleErrors.length) throw new Error(`the page logged errors: ${consoleErrors.join(' | ')}`);
    // The harness works when the page redrew at the required size; how fast is the report's.
    const broken = report.rows.filter((r) => !(r.redraws > 0 && r.points_per_series >= kPointsPerSeries && r.uplot_charts > 0));
    if (broken.length) throw new Error(`no redraws at ${kPointsPerSeries} points measured in: ${broken.map((r) => r.row).join(', ')}`);
    fs.mkdirSync(results, { recursive: true });
    fs.writeFileSync(path.join(results, 'dashboard_fps.json'), JSON.stringify(report, null, 2) + '\n');
    fs.writeFileSync(path.join(results, 'dashboard_fps.md'), markdown(report));
    console.log(`wrote ${path.join(results, 'dashboard_fps.{json,md}')}`);
  } finally {
    await browser.close();
    server.child?.kill('SIGTERM');
  }
}

const stopLimit = limitRunTime(args.quick ? 50_000 : 600_000, 'dashboard_fps');
main().then(() => {
  stopLimit();
  process.exit(0);
}, (err) => {
  stopLimit();
  console.log(`FAIL  ${err.stack ?? err}`);
  process.exit(1);
});
