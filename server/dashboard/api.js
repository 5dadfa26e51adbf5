// The HTTP/JSON face of tether.v1.SimulationService as the dashboard uses it: Google's HTTP/JSON
// transcoding of proto/tether/v1/simulation_service.proto (lowerCamelCase field names, enums by
// name, 64-bit integers as strings, NaN/Infinity as strings, default values omitted), errors
// as google.rpc.Status JSON. Same origin only: the page is served by the listener it calls.

// An error the server answered (google.rpc.Status) or a transport failure (status 0).
export class ApiError extends Error {
  constructor(httpStatus, status) {
    super(status?.message || `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    this.code = status?.code ?? 0;
    this.details = Array.isArray(status?.details) ? status.details : [];
  }

  // The message with every field violation of a google.rpc.BadRequest, one per line.
  describe() {
    const lines = [this.message];
    for (const d of this.details) {
      for (const v of d.fieldViolations ?? []) {
        lines.push(v.field ? `${v.field}: ${v.description}` : v.description);
      }
    }
    return lines.join('\n');
  }
}

// The bearer token of a server started with --token-file ('' for none). Calls send it as an
// Authorization header; stream URLs carry it as ?access_token= because EventSource cannot set
// headers (the server accepts that on its stream routes only). Kept in sessionStorage: gone
// when the tab closes.
let token = sessionStorage.getItem('tether-token') ?? '';
export function setToken(value) {
  token = value.trim();
  if (token) sessionStorage.setItem('tether-token', token);
  else sessionStorage.removeItem('tether-token');
}
export function getToken() {
  return token;
}

// One unary call: `body` (an object) is sent as JSON; the parsed response is returned.
export async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { message: `cannot reach the server: ${e.message}` });
  }
  const text = await response.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, json ?? { message: `HTTP ${response.status}: ${text.slice(0, 200)}` });
  }
  return json ?? {};
}

// Proto JSON numbers: uint64/int64 arrive as strings, doubles as numbers or "NaN",
// "Infinity", "-Infinity"; an absent field is the proto default 0.
export function num(value) {
  return value === undefined || value === null ? 0 : Number(value);
}

// "sessions/abc" → "abc"; "models/pendulum" → "pendulum".
export function resourceId(name) {
  return String(name).slice(String(name).indexOf('/') + 1);
}

// The path of a session's custom method or stream: "/v1/sessions/abc:control".
export function sessionPath(id, verb = '') {
  return `/v1/sessions/${encodeURIComponent(id)}${verb ? ':' + verb : ''}`;
}

// Enum names as the JSON carries them, without their prefix, for display: "PAUSED".
export function enumLabel(value, prefix) {
  if (value === undefined || value === null) return 'unspecified';
  return String(value).startsWith(prefix) ? String(value).slice(prefix.length).toLowerCase() : String(value);
}

// ProjectionMethod values (the proto enum's names, as its JSON carries them) with their labels.
// The methods come from the server itself (GET /v1/serverInfo).
export const kProjections = [
  ['PROJECTION_METHOD_SEQUENTIAL', 'sequential (positions, then velocities)'],
  ['PROJECTION_METHOD_COUPLED', 'coupled (all invariants at once)'],
  ['PROJECTION_METHOD_BAUMGARTE', 'none, Baumgarte stabilization'],
  ['PROJECTION_METHOD_NONE', 'none (drift shows)'],
];

// One number format for times and residuals, as the server's messages use: 4 significant
// digits, exponent form outside [1e-3, 1e4).
export function fmt(x) {
  if (typeof x !== 'number') x = num(x);
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e4 ? String(Number(x.toPrecision(4))) : x.toExponential(3).replace(/\.?0+e/, 'e');
}

// A parameter's range as the model gives it (Parameter.minimum, .maximum; absent when
// unbounded): "[0.01, 10]", "≥ 0", "≤ 5", or '' without one.
export function rangeText(p) {
  const lo = p.minimum !== undefined ? fmt(num(p.minimum)) : null;
  const hi = p.maximum !== undefined ? fmt(num(p.maximum)) : null;
  if (lo !== null && hi !== null) return `[${lo}, ${hi}]`;
  if (lo !== null) return `≥ ${lo}`;
  return hi !== null ? `≤ ${hi}` : '';
}
