// What the dashboard's browser test and its frame-rate benchmark (bench/dashboard_fps) share:
// a real tether-server process with --http-listen on 127.0.0.1 that dies with this process,
// Debian's chromium headless through puppeteer-core (tools/package.json), a bound on the whole
// run, and the page's own controls for creating and driving a session.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../../tools/package.json'));
export const puppeteer = require('puppeteer-core');

// `--name value` pairs after the script's name into {name: value}, over `defaults`; a flag in
// `booleans` takes no value. Throws on a flag that is not known or lacks its value.
export function parseArgs(argv, defaults, booleans = []) {
  const a = { ...defaults };
  for (let i = 2; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--') || !(name in defaults || booleans.includes(name))) {
      throw new Error(`unknown flag '${argv[i]}'; known: ${[...Object.keys(defaults), ...booleans].map((n) => '--' + n).join(' ')}`);
    }
    if (booleans.includes(name)) {
      a[name] = true;
    } else if (i + 1 < argv.length) {
      a[name] = argv[++i];
    } else {
      throw new Error(`flag '${argv[i]}' needs a value`);
    }
  }
  return a;
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// Starts tether-server with both listeners on free loopback ports; resolves to {child, url}
// when the HTTP one answers. Retries with new ports if one was taken between probing and
// binding. `extraArgs` are appended to the server's command line.
export async function startServer(binary, extraArgs = []) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const grpcPort = await freePort();
    const httpPort = await freePort();
    const child = spawn(binary, ['--listen', `127.0.0.1:${grpcPort}`, '--http-listen', `127.0.0.1:${httpPort}`, '--quiet', ...extraArgs], { stdio: ['ignore', 'inherit', 'inherit'] });
    let exited = false;
    child.on('exit', () => { exited = true; });
    // However this script ends (a failure, its own time limit, ctest's SIGTERM), the server
    // goes with it.
    process.on('exit', () => { if (!exited) child.kill('SIGKILL'); });
    const url = `http://127.0.0.1:${httpPort}`;
    for (let i = 0; i < 100 && !exited; i++) {
      try {
        const r = await fetch(`${url}/v1/models`);
        if (r.ok) return { child, url };
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    if (!exited) child.kill('SIGKILL');
  }
  throw new Error(`${binary} did not answer on its HTTP port`);
}

// Chromium headless (puppeteer's new headless mode, whose default flags already keep timers
// and requestAnimationFrame unthrottled in a page nobody looks at) with a 1280 × 720 page.
export async function launchBrowser(chromium) {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 30_000,
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  return { browser, page };
}

// Ends the process with status 1 after `ms` unless the returned function is called first.
export function limitRunTime(ms, what) {
  const timer = setTimeout(() => {
    console.log(`FAIL  ${what} took longer than ${ms / 1000} s`);
    process.exit(1);
  }, ms);
  process.on('SIGTERM', () => process.exit(1));
  return () => clearTimeout(timer);
}

// Waits until `fn(arg)` is truthy in the page; throws naming `what` after `timeout` ms.
export async function waitInPage(page, fn, arg, what, timeout = 20_000) {
  try {
    await page.waitForFunction(fn, { timeout, polling: 50 }, arg);
  } catch {
    throw new Error(`${what} (waited ${timeout / 1000} s)`);
  }
}

// Creates a session of `model` through the sidebar's form as a user would (optionally with
// another output interval, or a run without end); resolves to the new card's index.
export async function createSession(page, model, { realtime, tEnd, outputInterval, indefinite }) {
  await page.select('#model', `models/${model}`);
  await page.$eval('#realtime', (e, v) => { e.value = v; }, String(realtime));
  if (tEnd !== undefined) await page.$eval('#t-end', (e, v) => { e.value = v; }, String(tEnd));
  if (outputInterval !== undefined) await page.$eval('#output-interval', (e, v) => { e.value = v; }, String(outputInterval));
  if (indefinite !== undefined) await page.$eval('#indefinite', (e, v) => { e.checked = v; }, indefinite);
  const before = await page.$$eval('.card', (cs) => cs.length);
  await page.click('#create-button');
  await waitInPage(page, (n) => document.querySelectorAll('.card').length > n, before, `a card appears for ${model}`);
  return before;
}

// Clicks the card's button with data-action="`action`" (start, pause, fork, ...).
export async function clickCard(page, index, action) {
  const handles = await page.$$('.card');
  const button = await handles[index].$(`button[data-action="${action}"]`);
  await button.click();
}

// What card `index` shows: its data-* attributes and its event log.
export async function card(page, index) {
  return page.evaluate((i) => {
    const c = document.querySelectorAll('.card')[i];
    if (!c) return null;
    return { ...c.dataset, events: [...c.querySelectorAll('.events li')].map((li) => ({ kind: li.dataset.kind, text: li.textContent })) };
  }, index);
}
