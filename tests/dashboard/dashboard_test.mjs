// Browser test of tether's dashboard: a real tether-server process with --http-listen on
// 127.0.0.1, Debian's chromium headless, driven by puppeteer-core (tools/package.json).
//
//   node dashboard_test.mjs --server BUILD/server/tether-server --chromium /usr/bin/chromium
//                           --out DIR [--scenario pendulum|inequality|all]
//   node dashboard_test.mjs --url http://127.0.0.1:8080 ...   (a server already running)
//
// Each scenario drives the page as a user would (keyboard-reachable controls, no private
// hooks): it reads what the page shows through the data-* attributes the cards carry. Every
// wait is bounded; the whole run is cut at kOverallTimeoutMs. A screenshot per scenario is
// written to --out. Exit status 0 only when every check held.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { card, clickCard, createSession, launchBrowser, limitRunTime, parseArgs, sleep, startServer } from './harness.mjs';

const kOverallTimeoutMs = 90_000;
const kWaitMs = 20_000;

const args = parseArgs(process.argv, { scenario: 'all', chromium: '/usr/bin/chromium', out: '.', server: '', url: '' });
const failures = [];
const consoleErrors = [];
let relay = null;
let passed = 0;
function check(ok, what) {
  if (ok) {
    passed++;
    console.log(`  ok    ${what}`);
  } else {
    failures.push(what);
    console.log(`  FAIL  ${what}`);
  }
}

// A TCP relay between the browser and the server, so that the test can cut every open
// connection at once (a network failure as the browser and the server see it: both ends get a
// reset) while new connections keep working.
async function startRelay(targetUrl) {
  const target = new URL(targetUrl);
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      sockets.add(a);
      a.on('close', () => { sockets.delete(a); b.destroy(); });
      a.on('error', () => b.destroy());
      a.pipe(b);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    cut() {
      for (const s of sockets) s.resetAndDestroy ? s.resetAndDestroy() : s.destroy();
    },
    close() {
      this.cut();
      server.close();
    },
  };
}

async function waitFor(page, fn, arg, what, timeout = kWaitMs) {
  try {
    await page.waitForFunction(fn, { timeout, polling: 50 }, arg);
    return true;
  } catch {
    check(false, `${what} (waited ${timeout / 1000} s)`);
    return false;
  }
}

// When a stream's end does not reach the card: what the card shows against what the server
// says of the session, so that a failure tells which side stalled.
async function explainStall(page, i) {
  const c = await card(page, i);
  const server = await page.evaluate(async (id) => {
    try {
      const r = await fetch(`/v1/sessions/${encodeURIComponent(id)}`);
      const s = await r.json();
      return `state ${s.state}, next sample ${s.nextSampleIndex}, last termination ${s.lastTermination}`;
    } catch (e) {
      return `GetSession failed: ${e}`;
    }
  }, c?.session ?? '');
  console.log(`  (card: state ${c?.state}, connection ${c?.connection}, samples ${c?.samples}; server: ${server})`);
}

// Waits until card i's stream has ended in `state` ('paused', 'finished'); if it does not,
// says which side stalled.
async function waitForStreamEnd(page, i, state, what) {
  const ended = await waitFor(page, ([k, wanted]) => document.querySelectorAll('.card')[k]?.dataset.state === wanted, [i, state], what);
  if (!ended) await explainStall(page, i);
  return ended;
}

// The pendulum: start, points arrive, pause stops the counter, a parameter change is an event
// and changes the trajectory, residuals below the tolerance.
async function pendulumScenario(page) {
  console.log('scenario: pendulum');
  const i = await createSession(page, 'pendulum', { realtime: 4 });
  // models/pendulum.json gives the rod length l the range [0.01, 10] m: the model's table
  // shows it and the card's slider spans exactly it (without a range it would be a guess
  // around the default 2.5: [0.25, 7.5]).
  const rows = await page.$$eval('#model-info tr', (trs) => trs.map((tr) => tr.textContent));
  check(rows.some((text) => text.includes('[0.01, 10]')), `the model's table shows l's range: ${rows.find((t) => t.startsWith('l')) ?? 'no row'}`);
  const span = await page.$eval(`.card:nth-of-type(${i + 1}) input[data-param="l"]`, (e) => [e.min, e.max]);
  check(span[0] === '0.01' && span[1] === '10', `the slider of l spans the model's range [0.01, 10]: [${span.join(', ')}]`);
  await clickCard(page, i, 'start');
  await waitFor(page, (k) => Number(document.querySelectorAll('.card')[k]?.dataset.points) >= 20, i, 'the plot receives points');
  let c = await card(page, i);
  check(Number(c.points) >= 20, `the time plot holds ${c.points} points`);

  await clickCard(page, i, 'pause');
  await waitForStreamEnd(page, i, 'paused', 'pause ends the stream');
  const paused = await card(page, i);
  check(paused.state === 'paused', `state after pause: ${paused.state}`);
  // The stream is closed after its summary: nothing can add samples. Wait one second of
  // simulated-at-4x time (80 samples would have arrived) and compare.
  await sleep(1000);
  const later = await card(page, i);
  check(later.samples === paused.samples && Number(paused.samples) > 0, `pause stops the sample counter (${paused.samples} → ${later.samples})`);

  // Radius is an output equal to l on the manifold: after l = 3 it must read 3.
  await clickCard(page, i, 'start');
  await waitFor(page, (k) => Number(document.querySelectorAll('.card')[k]?.dataset.samples) > 0 && document.querySelectorAll('.card')[k]?.dataset.connection === 'connected', i, 'the run resumes');
  const resumedAt = Number((await card(page, i)).samples);
  const handles = await page.$$('.card');
  const exact = await handles[i].$('input[data-param-exact="l"]');
  await exact.click({ clickCount: 3 });
  await exact.type('3');
  await exact.press('Tab'); // leaving the field commits it (a change event), as for a user
  await waitFor(page, (k) => (JSON.parse(document.querySelectorAll('.card')[k]?.dataset.eventCounts || '{}').EVENT_KIND_UPDATED ?? 0) > 0, i, 'the parameter change shows up as an event');
  await waitFor(page, ([k, n]) => Number(document.querySelectorAll('.card')[k]?.dataset.samples) > n + 10, [i, resumedAt], 'samples after the change');
  c = await card(page, i);
  const updated = c.events.filter((e) => e.kind === 'EVENT_KIND_UPDATED');
  check(updated.length >= 1, `an UPDATED event is listed: ${updated[0]?.text ?? 'none'}`);
  // The output radius = sqrt(x² + y²) equals l on the constraint manifold: the trajectory now
  // lies on the circle of radius 3, where it was 2.5. Off the manifold by Φ = r² − l²,
  // |r − l| ≈ |Φ| / (2l); the projection holds |Φ| near its tolerance 1e-12 (a scaled norm),
  // so 1e-9 leaves three orders of magnitude for the scaling.
  const radius = Number(await page.$eval(`.card:nth-of-type(${i + 1}) [data-latest="radius"]`, (e) => e.dataset.value));
  check(Math.abs(radius - 3) < 1e-9, `radius after l = 3 is ${radius}`);
  const tol = Number(c.tolerance);
  const maxP = Number(c.maxResidualPosition);
  const maxV = Number(c.maxResidualVelocity);
  check(tol > 0 && maxP <= tol && maxV <= tol, `residuals below the projection tolerance: ‖Φ‖∞ ${maxP}, ‖h‖∞ ${maxV} ≤ ${tol}`);
  await page.screenshot({ path: path.join(args.out, 'dashboard_pendulum.png') });

  // Connection loss: every connection between browser and server is reset; the card says so,
  // and EventSource's reconnect (Last-Event-ID) resumes at the next sample. The browser logs
  // the failed requests of this phase as console errors; they are expected and set aside.
  const errorsBefore = consoleErrors.length;
  relay.cut();
  check(await waitFor(page, (k) => ['reconnecting', 'reconnected'].includes(document.querySelectorAll('.card')[k]?.dataset.connection), i, 'the card shows the connection loss'), 'the card shows the connection loss');
  await waitFor(page, (k) => /reconnected at sample \d+ \(/.test(document.querySelectorAll('.card')[k]?.querySelector('.events')?.textContent ?? ''), i, 'the stream resumes', 30_000);
  await waitFor(page, (k) => document.querySelectorAll('.card')[k]?.dataset.connection === 'connected', i, 'the stream is connected again');
  consoleErrors.splice(errorsBefore).forEach((e) => console.log(`  (expected while cut: ${e})`));
  c = await card(page, i);
  check(c.events.some((e) => /reconnected at sample \d+ \(no gap, no duplicate\)/.test(e.text)), `the stream resumed at the next sample: ${c.events.find((e) => /reconnected/.test(e.text))?.text}`);
  check(!c.events.some((e) => e.kind === 'EVENT_KIND_SAMPLES_LOST'), 'no samples lost across the reconnect');
  await clickCard(page, i, 'pause');
  await waitForStreamEnd(page, i, 'paused', 'pause before the fork');

  // Fork: a second card side by side, a copy at the same sample.
  const pausedAt = (await card(page, i)).samples;
  await clickCard(page, i, 'fork');
  await waitFor(page, (k) => document.querySelectorAll('.card').length > k + 1, i, 'the fork gets its own card');
  const fork = await card(page, i + 1);
  check(fork && fork.samples === pausedAt && fork.session !== c.session, `the fork ${fork?.session} starts at sample ${fork?.samples} of ${c.session} (${pausedAt})`);
}

// A catalog model with an inequality: pds_half_plane (x' ∈ f(x) − N_C(x), C = {y ≥ 0}) slides
// along y = 0 from t_a ≈ 0.8145 to t_d = ln 4 ≈ 1.386 (models/pds_half_plane.json), so a run to
// t = 2 has one ACTIVATED and one DEACTIVATED switch, each marked on the plots.
async function inequalityScenario(page) {
  console.log('scenario: inequality (pds_half_plane)');
  const i = await createSession(page, 'pds_half_plane', { realtime: 1, tEnd: 2 });
  await clickCard(page, i, 'start');
  await waitForStreamEnd(page, i, 'finished', 'the run reaches t_end');
  const c = await card(page, i);
  const counts = JSON.parse(c.eventCounts || '{}');
  check(counts.EVENT_KIND_ACTIVATED === 1 && counts.EVENT_KIND_DEACTIVATED === 1,
    `one activation and one deactivation listed: ${JSON.stringify(counts)}`);
  const activated = c.events.find((e) => e.kind === 'EVENT_KIND_ACTIVATED')?.text ?? '';
  const tA = Number(/t = ([0-9.e+-]+)/.exec(activated)?.[1]);
  // The switch time is located to rtol · step (SimulationOptions.switch_tolerance); 4 digits
  // of the display format are far coarser than that.
  check(Math.abs(tA - 0.8145) < 1e-3, `activation at t = ${tA} (exact 0.8145…)`);
  check(Number(c.markers) >= 2, `switch markers drawn: ${c.markers}`);
  const maxI = await page.$eval(`.card:nth-of-type(${i + 1}) [data-role="residual"]`, (e) => e.textContent);
  check(/max inequality violation/.test(maxI), `the residual panel shows the inequality residual: ${maxI}`);
  await page.$eval(`.card:nth-of-type(${i + 1})`, (e) => e.scrollIntoView());
  await page.screenshot({ path: path.join(args.out, 'dashboard_inequality.png') });
}

async function main() {
  fs.mkdirSync(args.out, { recursive: true });
  let server = null;
  let url = args.url;
  if (!url) {
    server = await startServer(args.server);
    url = server.url;
  }
  relay = await startRelay(url);
  const { browser, page } = await launchBrowser(args.chromium);
  try {
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page.goto(relay.url + '/', { waitUntil: 'load', timeout: kWaitMs });
    await waitFor(page, () => document.querySelectorAll('#model option').length > 0, null, 'the model list loads');
    check(consoleErrors.length === 0, `the page loads without console errors ${consoleErrors.join(' | ')}`);
    if (args.scenario === 'all' || args.scenario === 'pendulum') await pendulumScenario(page);
    if (args.scenario === 'all') {
      // Keyboard and screen-reader reachable: every control is a native one with a name.
      const unnamed = await page.evaluate(() => [...document.querySelectorAll('input, select, button, textarea')]
        .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent.trim())))
        .map((e) => e.outerHTML.slice(0, 80)));
      check(unnamed.length === 0, `every control has a label ${unnamed.join(' | ')}`);
      const clickableDivs = await page.$$eval('div[onclick], span[onclick], [role="button"]', (l) => l.length);
      check(clickableDivs === 0, 'no div or span stands in for a button');
    }
    if (args.scenario === 'all' || args.scenario === 'inequality') await inequalityScenario(page);
    check(consoleErrors.length === 0, `no console errors during the run ${consoleErrors.join(' | ')}`);
  } finally {
    await browser.close();
    relay.close();
    if (server) server.child.kill('SIGTERM');
  }
}

const stopLimit = limitRunTime(kOverallTimeoutMs, 'the test');
main().then(() => {
  stopLimit();
  console.log(`${passed} passed, ${failures.length} failed`);
  process.exit(failures.length ? 1 : 0);
}, (err) => {
  stopLimit();
  console.log(`FAIL  ${err.stack ?? err}`);
  console.log(`${passed} passed, ${failures.length + 1} failed`);
  process.exit(1);
});
