import { invalidParam } from '../errors';

/*
 * A node's URL is a secret: providers put the account's key in its path (Infura's /v3/KEY), its
 * query (?apikey=) or its user part. What leaves the service is the masked form (scheme, host and
 * port), and every message made from a node's failure is scrubbed of the URL and its parts first:
 * libraries name the URL in their errors (viem's "URL: …"), and such a message reaches the window,
 * the command line and the log.
 */

export interface Endpoint {
  /** The URL to call: without its user part (fetch refuses credentials in a URL). */
  url: string;
  /** Headers the user part becomes: basic authorization, or TRON's API key header. */
  headers: Record<string, string>;
  masked: string;
  /** Pieces of the URL that must not appear in anything said about it. */
  secrets: string[];
}

/** The URL as it may be shown: scheme, host and port; a path or a query as "…". */
export function maskUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const rest = (u.pathname !== '/' && u.pathname !== '') || u.search !== '' ? '/…' : '';
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * Read a node URL: http or https only. A user part becomes a header: TRON's API key
 * (`https://KEY@api.trongrid.io`: TronGrid takes the key as TRON-PRO-API-KEY), or basic
 * authorization (`https://user:password@node`).
 */
export function endpointOf(raw: string, family: string): Endpoint {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw invalidParam('url', 'must be an http:// or https:// URL, e.g. https://eth.example.com/KEY or http://127.0.0.1:8545');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw invalidParam('url', `must be an http:// or https:// URL (this one is ${u.protocol.replace(/:$/, '')})`);
  const headers: Record<string, string> = {};
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  if (user !== '' && password === '' && family === 'TRON') headers['TRON-PRO-API-KEY'] = user;
  else if (user !== '' || password !== '') headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const secrets = [raw.trim(), user, password, u.username, u.password];
  u.username = '';
  u.password = '';
  const url = u.toString();
  secrets.push(url, url.replace(/\/$/, ''), `${u.pathname}${u.search}`, u.search, u.pathname);
  for (const [, v] of u.searchParams) secrets.push(v, encodeURIComponent(v));
  return {
    url,
    headers,
    masked: maskUrl(url),
    // Longest first, so a whole URL goes before the parts of it; a piece too short to be a key ("/", "v3") stays.
    secrets: [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length),
  };
}

/** A text with every secret of the endpoint replaced by its masked form or "…". */
export function scrub(text: string, endpoint: Pick<Endpoint, 'secrets' | 'masked'>): string {
  let out = text;
  for (const s of endpoint.secrets) out = out.split(s).join(s.includes('://') ? endpoint.masked : '…');
  return out;
}
