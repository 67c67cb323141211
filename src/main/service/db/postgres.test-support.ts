import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/*
 * A real PostgreSQL server for tests of the team store: its own cluster in a temporary folder, on
 * a free loopback port, trusted from loopback only, thrown away when stopped. Debian's PostgreSQL
 * 15 (`apt-get install postgresql-15`), or the server binaries of NPS_PG_BIN. initdb refuses to run
 * as root, so under root the server runs as the `postgres` user the package creates.
 */

const run = promisify(execFile);

const PG_BIN = process.env.NPS_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** The user the server runs as when the tests run as root. */
const PG_USER = 'postgres';

export interface TestPostgres {
  /** The server's superuser connection to `database`: postgres://nps@127.0.0.1:port/database. */
  url(database?: string): string;
  /** A new empty database, by name; in the server's locale (C, as a team store needs) or `locale`. */
  createDatabase(name: string, locale?: string): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Start a server; the caller stops it (afterAll). */
export async function startPostgres(): Promise<TestPostgres> {
  for (const tool of ['initdb', 'pg_ctl']) {
    if (!existsSync(join(PG_BIN, tool))) {
      throw new Error(
        `PostgreSQL's ${tool} is not in ${PG_BIN}: install PostgreSQL 15 (Debian: apt-get install postgresql-15), or name its bin folder in NPS_PG_BIN`,
      );
    }
  }
  const asRoot = userInfo().uid === 0;
  const as = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', PG_USER, '--', cmd, ...args]) : run(cmd, args));
  const dir = mkdtempSync(join(tmpdir(), 'nps-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', PG_USER]);
    const { stdout: gid } = await run('id', ['-g', PG_USER]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    await as(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'nps', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions']);
    // A test server: nothing here outlives the run, so nothing is flushed to disk.
    const options = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses='127.0.0.1'",
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ].join(' ');
    await as(join(PG_BIN, 'pg_ctl'), ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = (database = 'postgres') => `postgres://nps@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name, locale) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        const inLocale = locale === undefined ? '' : ` TEMPLATE template0 LOCALE ${pg.escapeLiteral(locale)}`;
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${inLocale}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      try {
        await as(join(PG_BIN, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
