// Preloaded into the MCP conformance suite by scripts/conformance
// (NODE_OPTIONS=--import): every request the suite sends to Noru's server
// carries the install's token, as a configured client's do. The suite has no
// option for a header of its own.
//
// Both ways the suite sends go through undici's global dispatcher: the MCP
// SDK's fetch, and the suite's own raw requests (undici's `request`, e.g. for
// its DNS rebinding checks). The dispatcher is wrapped so that a request to
// NORU_URL's origin that has no Authorization header gets
// `Authorization: Bearer $NORU_TOKEN`; a request elsewhere is left alone.
//
//   NORU_TOKEN   the token (`noru token show`)
//   NORU_URL     the server's URL (its origin is the only one given the token)
//   NORU_UNDICI  the undici package the suite itself loads

import { createRequire } from "node:module";

const token = process.env.NORU_TOKEN;
const target = new URL(process.env.NORU_URL).origin;
const undici = createRequire(import.meta.url)(process.env.NORU_UNDICI);

function withToken(headers) {
  const value = `Bearer ${token}`;
  if (headers == null) return { authorization: value };
  if (Array.isArray(headers)) {
    const pairs = headers.length > 0 && Array.isArray(headers[0]);
    const names = pairs ? headers.map((h) => h[0]) : headers.filter((_, i) => i % 2 === 0);
    if (names.some((n) => String(n).toLowerCase() === "authorization")) return headers;
    return pairs ? [...headers, ["authorization", value]] : [...headers, "authorization", value];
  }
  const entries = typeof headers[Symbol.iterator] === "function" && !(typeof headers === "string")
    ? [...headers]
    : Object.entries(headers);
  if (entries.some(([n]) => String(n).toLowerCase() === "authorization")) return headers;
  return Object.fromEntries([...entries, ["authorization", value]]);
}

const base = undici.getGlobalDispatcher();
undici.setGlobalDispatcher(
  base.compose((dispatch) => (options, handler) => {
    const origin = options.origin ? new URL(String(options.origin)).origin : null;
    if (origin !== target) return dispatch(options, handler);
    return dispatch({ ...options, headers: withToken(options.headers) }, handler);
  }),
);
