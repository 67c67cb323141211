import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { NodeKept } from '../../../shared/onchain';

/*
 * Where the chains' node URLs are kept: nodes.json in the data folder, readable by this user only
 * (mode 0600), never in the store (a copy of nps.sqlite sent to an auditor or attached to a bug
 * report must not carry the keys in them). In the desktop app the URL itself is sealed with the
 * system's keychain through Electron's safeStorage: the service asks for a SecretBox, which only
 * the Electron shell can give (src/main/safe-storage.ts); the command line and `serve` have none
 * and keep the URL as it is, protected by the file's mode.
 */

/** Seals and opens a secret with a key the process does not hold itself (Electron's safeStorage). */
export interface SecretBox {
  /** The secret sealed, as base64. */
  seal(plain: string): string;
  /** A secret sealed by seal(); throws when it cannot be opened (another user, another machine). */
  open(sealed: string): string;
}

const NODES_FILE = 'nodes.json';

const Entry = z.object({
  kept: z.enum(['file', 'safe_storage']),
  /** kept "file": the URL. */
  url: z.string().optional(),
  /** kept "safe_storage": the URL sealed, base64. */
  sealed: z.string().optional(),
  set_at: z.number().int(),
});
type Entry = z.infer<typeof Entry>;
const NodesFile = z.object({ version: z.literal(1), nodes: z.record(z.string(), Entry) });
type NodesFile = z.infer<typeof NodesFile>;

export interface KeptNode {
  kept: Exclude<NodeKept, 'none'>;
  set_at: number;
  /** The URL, or null when it is sealed and this process has no box that opens it. */
  url: string | null;
}

export class NodeStore {
  constructor(
    private readonly dataDir: string,
    private readonly box: SecretBox | undefined,
  ) {}

  private get file(): string {
    return join(this.dataDir, NODES_FILE);
  }

  private read(): NodesFile {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, nodes: {} };
      throw err;
    }
    const parsed = NodesFile.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a file of nodes this version can read; move it away and set the nodes again`);
    return parsed.data;
  }

  /** Written whole to a file of its own, then moved over the old one: a crash leaves one or the other, never half. */
  private write(file: NodesFile): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
    chmodSync(this.file, 0o600);
  }

  get(chainId: string): KeptNode | undefined {
    const e = this.read().nodes[chainId];
    return e && this.kept(e);
  }

  all(): Map<string, KeptNode> {
    return new Map(Object.entries(this.read().nodes).map(([chain, e]) => [chain, this.kept(e)]));
  }

  private kept(e: Entry): KeptNode {
    if (e.kept === 'file') return { kept: 'file', set_at: e.set_at, url: e.url ?? null };
    let url: string | null;
    try {
      url = this.box && e.sealed !== undefined ? this.box.open(e.sealed) : null;
    } catch {
      url = null;
    }
    return { kept: 'safe_storage', set_at: e.set_at, url };
  }

  set(chainId: string, url: string, at: number): KeptNode {
    const file = this.read();
    file.nodes[chainId] = this.box ? { kept: 'safe_storage', sealed: this.box.seal(url), set_at: at } : { kept: 'file', url, set_at: at };
    this.write(file);
    return this.get(chainId)!;
  }

  clear(chainId: string): boolean {
    const file = this.read();
    if (!(chainId in file.nodes)) return false;
    delete file.nodes[chainId];
    if (Object.keys(file.nodes).length === 0) rmSync(this.file, { force: true });
    else this.write(file);
    return true;
  }
}
