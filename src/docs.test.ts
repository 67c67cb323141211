import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/* What the documentation promises about the repository itself, kept true against the source. */

const root = join(import.meta.dirname, '..');
const tracked = (...paths: string[]) =>
  execFileSync('git', ['ls-files', '-z', ...paths], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');

test("docs/testing.md lists exactly the window's data-testids, each once", () => {
  const inSource = new Set<string>();
  for (const file of tracked('src/renderer').filter((f) => f.endsWith('.tsx'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/data-testid=(?:"([^"]+)"|\{`([^`]+)`\})/g)) {
      // A template's parts that vary are written {name} in the list: sort-${field} -> sort-{field}.
      inSource.add((m[1] ?? m[2]!).replace(/\$\{(?:\w+\.)?(\w+)\}/g, '{$1}'));
    }
  }
  const doc = readFileSync(join(root, 'docs', 'testing.md'), 'utf8')
    .split('## Stable selectors')[1]!
    .split('\n## ')[0]!;
  // The table's rows under its header (whose first cell is `data-testid` too).
  const listed = [...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!).slice(1);
  expect(new Set(listed).size, 'a data-testid listed twice').toBe(listed.length);
  expect([...listed].sort()).toEqual([...inSource].sort());
});
