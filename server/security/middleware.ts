import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";
import { type AccessPolicy, tokenMatches } from "./access";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

// Scripts only from our own origin: rollout text that slipped into markup still could not run.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function refuse(c: Context, status: 400 | 401 | 403 | 415, error: string) {
  if (c.req.path.startsWith("/api/")) return c.json({ error }, status);
  return c.text(error, status);
}

/** The Host header without its port, lower case (IPv6 stays bracketed). */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    c.header("Content-Security-Policy", CSP);
    if (c.req.path.startsWith("/api/")) c.header("Cache-Control", "no-store");
  };
}

/** DNS rebinding: a page on evil.example that resolves to 127.0.0.1 still sends `Host: evil.example`. */
function hostGuard(policy: AccessPolicy): MiddlewareHandler {
  return async (c, next) => {
    const host = hostOf(c.req.header("host") ?? new URL(c.req.url).host);
    if (!policy.allowedHosts.has(host)) {
      return refuse(c, 403, `host "${host}" is not served here (add it with --allowed-host)`);
    }
    return next();
  };
}

/** Cross-site requests are refused outright; the server sends no CORS headers at all. */
function originGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header("sec-fetch-site") === "cross-site") {
      return refuse(c, 403, "cross-site requests are refused");
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== "null") {
      let originHost: string;
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        return refuse(c, 403, "unreadable Origin header");
      }
      const host = (c.req.header("host") ?? new URL(c.req.url).host).toLowerCase();
      if (originHost !== host) return refuse(c, 403, `requests from ${origin} are refused`);
    } else if (origin === "null" && !SAFE_METHODS.has(c.req.method)) {
      return refuse(c, 403, "requests from an opaque origin are refused");
    }
    return next();
  };
}

/**
 * Token check on every request. Scripts send `Authorization: Bearer <token>`; the browser opens the
 * startup URL `/?token=<token>` once, gets an HttpOnly SameSite=Strict cookie and is redirected to a
 * URL without the token, so fetches and EventSource carry the cookie and the token leaves the
 * address bar and history. A `?token=` query is honored only on page loads, never on /api.
 */
function tokenGuard(policy: AccessPolicy): MiddlewareHandler {
  const token = policy.token;
  return async (c, next) => {
    if (token === undefined) return next();
    const auth = c.req.header("authorization");
    const bearer = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (tokenMatches(token, bearer) || tokenMatches(token, getCookie(c, policy.cookieName))) {
      return next();
    }
    const query = c.req.query("token");
    if (c.req.method === "GET" && !c.req.path.startsWith("/api/") && query !== undefined) {
      if (tokenMatches(token, query)) {
        setCookie(c, policy.cookieName, token, {
          httpOnly: true,
          sameSite: "Strict",
          path: "/",
        });
        const url = new URL(c.req.url);
        url.searchParams.delete("token");
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
    }
    c.header("WWW-Authenticate", "Bearer");
    return refuse(
      c,
      401,
      "missing or wrong access token: open the URL printed at startup, or send Authorization: Bearer <token>",
    );
  };
}

/** True when a request carries no body at all (no length, or length 0, and not chunked). */
function hasNoBody(c: Context): boolean {
  const length = c.req.header("content-length");
  return (
    (length === undefined || length === "0") && c.req.header("transfer-encoding") === undefined
  );
}

/**
 * No simple-form CSRF: a state-changing API call with a body must say it is JSON (forms cannot,
 * without CORS). An action without a body and without a content type (`curl -XPOST .../abort`)
 * carries nothing to forge; a cross-site one is refused by the origin guard before this.
 */
function jsonOnly(): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || !c.req.path.startsWith("/api/")) return next();
    const given = c.req.header("content-type");
    if (given === undefined && hasNoBody(c)) return next();
    const type = (given ?? "").toLowerCase();
    if (!/^application\/json\s*(;|$)/.test(type)) {
      return refuse(c, 415, `${c.req.method} ${c.req.path} needs Content-Type: application/json`);
    }
    return next();
  };
}

/** Installs the guards, in order, in front of every route of `app`. */
export function applySecurity(
  app: Hono,
  policy: AccessPolicy,
  limits: { readonly maxBodyBytes: number },
): void {
  app.use("*", securityHeaders());
  app.use("*", hostGuard(policy));
  app.use("*", originGuard());
  app.use("*", tokenGuard(policy));
  app.use("/api/*", jsonOnly());
  for (const path of ["/api/*", "/mcp"]) {
    app.use(
      path,
      bodyLimit({
        maxSize: limits.maxBodyBytes,
        onError: (c) =>
          c.json(
            { error: `the request body exceeds the limit of ${limits.maxBodyBytes} bytes` },
            413,
          ),
      }),
    );
  }
}
