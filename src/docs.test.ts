import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
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

test('no tracked file refers to a file outside the repository', () => {
  // Spelled in parts, so that this file does not name what it looks for.
  const outsideDocs = new RegExp(['\\bSP', 'EC(?:\\.md)?\\b|\\bDES', 'IGN(?:\\.md)?\\b'].join(''));
  // The machine the repository was written on keeps its checkouts and shared files under this folder.
  const absolute = new RegExp(['(?:^|[\\s`(\'"])/wo', 'rk/'].join(''));
  const upward = /(?<![\w./-])((?:\.\.\/)+[\w@.-]+)/g;
  const found: string[] = [];
  const text = tracked().filter((f) => f !== 'package-lock.json' && !/\.(png|ico|icns|xlsx|sqlite|gz|zip)$/i.test(f));
  expect(text.length).toBeGreaterThan(300);
  for (const file of text) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const at = `${file}:${i + 1}`;
      if (outsideDocs.test(line)) found.push(`${at}: ${line.trim()}`);
      if (absolute.test(line)) found.push(`${at}: ${line.trim()}`);
      for (const m of line.matchAll(upward)) {
        // A relative path is fine while it stays inside (src/main/cli's imports of src/shared go up two folders).
        const target = relative(root, resolvePath(root, dirname(file), m[1]!));
        if (target.startsWith('..')) found.push(`${at}: ${m[1]} (outside the repository)`);
      }
    });
  }
  expect(found).toEqual([]);
});
