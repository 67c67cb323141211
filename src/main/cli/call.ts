import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DISCOVERY_FILE } from '../service/data-folder';
import { DEFAULT_HOST, DEFAULT_PORT } from '../service/http/server';
import { signedHeaders } from '../service/keys/sign';
import { dataDirFrom, dataDirOption, parseFlags } from './common';
import { UsageError } from './errors';
import { callUsage } from './usage';

/**
 * The service this machine runs: api.json of the data directory, else the default port; with where
 * the address came from, so a failure can say what was tried and how to point elsewhere.
 */
function discoverBase(dataDir: string): { base: string; from: string } {
  const file = join(dataDir, DISCOVERY_FILE);
  if (existsSync(file)) {
    try {
      const { base_url } = JSON.parse(readFileSync(file, 'utf8')) as { base_url?: string };
      if (base_url) return { base: base_url.replace(/\/nps\/?$/, ''), from: `named by ${file}` };
    } catch {
      // A half-written or foreign file: fall back to the default address.
    }
  }
  return { base: `http://${DEFAULT_HOST}:${DEFAULT_PORT}`, from: `the default: no service runs on the data folder ${dataDir}` };
}

function bodyText(flag: string | undefined): string {
  if (flag === undefined) return '';
  const text = flag.startsWith('@') ? readFileSync(flag.slice(1), 'utf8') : flag;
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--body: not valid JSON (${(err as Error).message})`);
  }
  return text;
}

export async function callCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    query: { type: 'string' },
    body: { type: 'string' },
    secret: { type: 'string' },
    base: { type: 'string' },
    ...dataDirOption,
  });
  if (positionals.length !== 2) throw new UsageError(callUsage);
  const method = positionals[0]!.toUpperCase();
  let path = positionals[1]!;
  let query = values.query ?? '';
  if (path.includes('?')) {
    if (values.query !== undefined) throw new UsageError('give the query either in PATH or with --query, not both');
    [path, query] = [path.slice(0, path.indexOf('?')), path.slice(path.indexOf('?') + 1)];
  }
  query = query.replace(/^\?/, '');
  if (!path.startsWith('/')) throw new UsageError(`PATH: must start with /, e.g. /nps/bill/verify/txs (got ${path})`);
  const secret = values.secret ?? process.env.NPS_API_SECRET;
  if (!secret) throw new UsageError('--secret: the API secret (64 hex digits) is required, or set NPS_API_SECRET');
  if (!/^[0-9a-fA-F]{64}$/.test(secret)) throw new UsageError('--secret: must be the 32-byte API secret as 64 hex digits');

  const dataDir = dataDirFrom(values['data-dir']);
  const found = values.base !== undefined ? { base: values.base, from: 'given with --base' } : discoverBase(dataDir);
  const base = found.base.replace(/\/+$/, '');
  const url = new URL(`${base}${path}${query ? `?${query}` : ''}`);
  // What is signed must be what goes on the wire: refuse a path or query that fetch would re-encode.
  if (url.pathname !== path || url.search.replace(/^\?/, '') !== query) {
    throw new UsageError(`PATH/--query: not URL-encoded as sent (it would go out as ${url.pathname}${url.search}); encode it first`);
  }
  const body = bodyText(values.body);
  const headers: Record<string, string> = signedHeaders(secret, { method, path, query, body });
  if (body !== '') headers['Content-Type'] = 'application/json';

  let res: Response;
  try {
    res = await fetch(url, { method, headers, ...(body !== '' ? { body } : {}) });
  } catch (err) {
    const why = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new UsageError(
      values.base !== undefined
        ? `cannot reach ${base} (given with --base): ${why}; is the service running there?`
        : `cannot reach ${base} (${found.from}): ${why}; start the service (nps serve --data-dir ${dataDir}), or point at a running one with --data-dir DIR or --base URL`,
    );
  }
  const text = await res.text();
  let answer: { status?: unknown };
  try {
    answer = JSON.parse(text) as { status?: unknown };
  } catch {
    throw new UsageError(`HTTP ${res.status}: the answer is not JSON: ${text.slice(0, 200)}`);
  }
  process.stdout.write(JSON.stringify(answer, null, 2) + '\n');
  if (answer.status !== 0) process.exitCode = 1;
}
