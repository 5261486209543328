import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";
import type { ServerConfig } from "../config";

/** How the server decides who may talk to it; resolved once at startup. */
export interface AccessPolicy {
  /** Every request must carry this token (Bearer header or the session cookie); none = open. */
  readonly token?: string;
  /** True when the server made the token up (it is printed once at startup). */
  readonly isGenerated: boolean;
  /** Host header names (no port, lower case, IPv6 in brackets) the server answers to. */
  readonly allowedHosts: ReadonlySet<string>;
  /** Name of the session cookie; carries the port because cookies are shared across ports. */
  readonly cookieName: string;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127(\.\d{1,3}){3}$/.test(h);
}

function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The names a browser may put in the Host header for this server (DNS-rebinding defense). */
function hostNames(config: Pick<ServerConfig, "host" | "allowedHosts">): Set<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  const add = (name: string) => names.add(bracketed(name.toLowerCase()));
  config.allowedHosts.forEach(add);
  if (!isWildcardHost(config.host)) {
    add(config.host);
    return names;
  }
  // Bound to every interface: the machine's own name and addresses are how colleagues reach it.
  add(hostname());
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) add(info.address.split("%")[0] ?? info.address);
  }
  return names;
}

/**
 * Resolves the access policy: a token from `--token`/`ROLLOUT_LENS_TOKEN`, else a generated one when
 * the server listens beyond loopback (or `--require-token`), else none (loopback only).
 */
export function resolveAccess(
  config: Pick<ServerConfig, "host" | "port" | "token" | "requireToken" | "allowedHosts">,
): AccessPolicy {
  const needsToken = config.requireToken || !isLoopbackHost(config.host);
  const token = config.token ?? (needsToken ? randomBytes(24).toString("base64url") : undefined);
  return {
    ...(token === undefined ? {} : { token }),
    isGenerated: config.token === undefined && token !== undefined,
    allowedHosts: hostNames(config),
    cookieName: `rollout_lens_token_${config.port}`,
  };
}

/** Constant-time token comparison (hashing first makes the lengths equal). */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = createHash("sha256").update(expected).digest();
  const b = createHash("sha256").update(given).digest();
  return timingSafeEqual(a, b);
}
