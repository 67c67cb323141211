import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { FileError, openSource, sniff, streamRows, type OpenedSource, type Sniffed } from './source';

/* The CSV reader on every boundary: wherever the bytes are cut, the rows are those of the whole text. */

const HEAD_BYTES = 256 * 1024;
const PARSE_PIECE = 64 * 1024;

/** An opened file whose stream yields the bytes cut at the given offsets, as a disk or pipe may. */
function cutAt(bytes: Buffer, cuts: number[] = []): OpenedSource {
  return {
    name: 'cut.csv',
    size: bytes.length,
    head: bytes.subarray(0, HEAD_BYTES),
    stream: () =>
      Readable.from(
        (function* () {
          let at = 0;
          for (const cut of [...cuts, bytes.length]) {
            if (cut > at) yield bytes.subarray(at, cut);
            at = Math.max(at, cut);
          }
        })(),
      ),
  };
}

/** Every data row streamRows gives, checking the row numbers run on without a gap. */
async function streamAll(opened: OpenedSource, sniffed: Sniffed = sniff(opened)) {
  const rows: string[][] = [];
  let numbered = true;
  const out = await streamRows(opened, sniffed, {
    rows: (batch, first) => {
      if (first !== rows.length + 1) numbered = false;
      for (const r of batch) rows.push(r);
    },
    progress: () => {},
  });
  expect(numbered).toBe(true);
  return { rows, ...out };
}

/**
 * The data rows of the whole text parsed at once by papaparse, empty cells past the header's width
 * dropped. The streaming parser gives no row for the empty text after the file's last line break,
 * where the whole-text parse gives ['']: that one is left out.
 */
function papaRows(text: string, delimiter = ','): string[][] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const [header = [], ...rows] = Papa.parse<string[]>(body, { delimiter }).data;
  const last = rows[rows.length - 1];
  if (/\r?\n$/.test(body) && last?.length === 1 && last[0] === '') rows.pop();
  return rows.map((r) =>
    r.length > header.length && r.slice(header.length).every((c) => c.trim() === '') ? r.slice(0, header.length) : r,
  );
}

/* A real-shaped Etherscan ERC-20 export: quoted header without a trailing comma, data rows that end with one. */

const ERC20_HEADER = [
  'Transaction Hash',
  'Blockno',
  'UnixTimestamp',
  'DateTime (UTC)',
  'From',
  'To',
  'TokenValue',
  'USDValueDayOfTx',
  'ContractAddress',
  'TokenName',
  'TokenSymbol',
];

const hex = (n: number, k: number, len: number) => {
  let s = '';
  for (let i = 0; s.length < len; i++) s += (Math.imul(n * 31 + k * 7 + i, 2654435761) >>> 0).toString(16).padStart(8, '0');
  return s.slice(0, len);
};

function erc20Row(n: number, tokenName: string): string[] {
  const t = 1767439102 + n * 37;
  return [
    `0x${hex(n, 1, 64)}`,
    String(21540246 + n),
    String(t),
    new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' '),
    `0x${hex(n, 2, 40)}`,
    `0x${hex(n, 3, 40)}`,
    (n * 1.37).toFixed(6),
    `$${(n * 1.1).toFixed(2)}`,
    '0xdac17f958d2ee523a2206206994597c13d831ec7',
    tokenName,
    'USDT',
  ];
}

/** Token names with what breaks readers: multibyte characters, a quote, a comma and a line break inside quotes. */
const NAMES = ['Tether USD', 'Euro € Coin', '数字 Token', 'Say "hi", ok', 'two\r\nlines, "quoted"', 'Zürich € 数 "x", y\r\nz'];

const quote = (c: string) => `"${c.replaceAll('"', '""')}"`;
/** Etherscan quotes every cell; numbers are left bare here and there so both of papaparse's paths run. */
const cell = (c: string, i: number) => (i === 1 || i === 2 ? c : quote(c));

function erc20Text(rows: string[][], { bom = true, trailingComma = true } = {}): string {
  const lines = rows.map((r) => r.map(cell).join(',') + (trailingComma ? ',' : ''));
  return (bom ? '\ufeff' : '') + [ERC20_HEADER.map(quote).join(','), ...lines].join('\r\n') + '\r\n';
}

/** Windows-1252 bytes of a text in its repertoire (ASCII and the few letters the tests use). */
function cp1252(text: string): Buffer {
  const high: Record<string, string> = { '€': '\x80', '‰': '\x89', '’': '\x92', é: '\xe9', ü: '\xfc' };
  return Buffer.from(
    text.replace(/[^ -~\t\r\n]/g, (ch) => {
      const latin1 = high[ch];
      if (latin1 === undefined) throw new Error(`no Windows-1252 byte for ${ch}`);
      return latin1;
    }),
    'latin1',
  );
}

describe('a file cut at every byte offset gives the rows of the whole text', () => {
  const rows = NAMES.map((name, n) => erc20Row(n, name));
  const text = erc20Text(rows);

  it('the reference: papaparse on the whole text reads the rows as written, trailing comma dropped', () => {
    expect(papaRows(text)).toEqual(rows);
    expect(papaRows(erc20Text(rows, { trailingComma: false }))).toEqual(rows);
  });

  /** For every cut: the rows and the encoding streamRows gives are those expected; the cuts where they are not. */
  async function everyCut(bytes: Buffer, sniffed: Sniffed, expected: string[][], encoding: string, isolate: boolean) {
    const failures: number[] = [];
    for (let cut = 1; cut < bytes.length; cut++) {
      for (const cuts of isolate ? [[cut], [cut, cut + 1]] : [[cut]]) {
        const got = await streamAll(cutAt(bytes, cuts), sniffed);
        if (!equalRows(got.rows, expected) || got.encoding !== encoding) failures.push(cut);
      }
    }
    return failures;
  }

  it.each([
    ['UTF-8 with a BOM', Buffer.from(text, 'utf8'), 'utf-8', true],
    [
      'UTF-8 without a BOM, rows without the trailing comma',
      Buffer.from(erc20Text(rows, { bom: false, trailingComma: false })),
      'utf-8',
      true,
    ],
    ['UTF-16LE with a BOM', Buffer.from(text, 'utf16le'), 'utf-16le', false],
    ['UTF-16BE with a BOM', Buffer.from(text, 'utf16le').swap16(), 'utf-16be', false],
  ])('%s: one cut at every offset (UTF-8: also with the byte after it a chunk alone)', async (_what, bytes, encoding, isolate) => {
    const expected = papaRows(text);
    const sniffed = sniff(cutAt(bytes));
    expect(sniffed).toMatchObject({ format: 'csv', encoding, delimiter: ',', newline: '\n', headers: ERC20_HEADER, sample: rows });
    expect((await streamAll(cutAt(bytes), sniffed)).rows).toEqual(expected);
    expect(await everyCut(bytes, sniffed, expected, encoding, isolate)).toEqual([]);
  });

  it('Windows-1252 without a BOM, one cut at every offset', async () => {
    const names = ['Tether USD', 'Euro € Coin', 'Café "noir", é', 'two\r\nlines ‰ ü ’'];
    const rows1252 = names.map((name, n) => erc20Row(n, name));
    const bytes = cp1252(erc20Text(rows1252, { bom: false }));
    const sniffed = sniff(cutAt(bytes));
    expect(sniffed.encoding).toBe('windows-1252');
    expect(sniffed.sample).toEqual(rows1252);
    expect(await everyCut(bytes, sniffed, rows1252, 'windows-1252', false)).toEqual([]);
  });
});

describe('CRLF and LF mixed in one file (rows appended by another program)', () => {
  const rows = [...NAMES, ...NAMES].map((name, n) => erc20Row(n, name));
  /** The rows as a spreadsheet saves them (quoted only where needed), each line ending as `ending(i)` says (0: the header). */
  const mixed = (ending: (i: number) => string, trailingComma: boolean) => {
    const line = (cells: string[]) => cells.map((c) => (/[",\r\n]/.test(c) ? quote(c) : c)).join(',');
    return [line(ERC20_HEADER), ...rows.map((r) => line(r) + (trailingComma ? ',' : ''))].map((l, i) => l + ending(i)).join('');
  };

  it.each([
    ['CRLF, then rows ending in LF', (i: number) => (i < 7 ? '\r\n' : '\n'), true],
    ['LF, then rows ending in CRLF', (i: number) => (i < 7 ? '\n' : '\r\n'), false],
    ['alternating, rows without the trailing comma', (i: number) => (i % 2 ? '\n' : '\r\n'), false],
  ])('%s: every row as written, quoted line breaks kept in their cells, wherever the file is cut', async (_what, ending, trailingComma) => {
    const text = mixed(ending, trailingComma);
    expect(text).toMatch(/USDT,?\r\n0x/);
    expect(text).toMatch(/USDT,?\n0x/);
    const bytes = Buffer.from(text, 'utf8');
    const sniffed = sniff(cutAt(bytes));
    expect(sniffed.headers).toEqual(ERC20_HEADER);
    expect(sniffed.headRows).toEqual(rows);
    const failures: number[] = [];
    for (let cut = 1; cut < bytes.length; cut++) {
      if (!equalRows((await streamAll(cutAt(bytes, [cut]), sniffed)).rows, rows)) failures.push(cut);
    }
    expect(failures).toEqual([]);
  });

  it('a file of lone CRs (old Mac) is still split at them', async () => {
    const text = erc20Text(rows.slice(0, 3), { bom: false, trailingComma: false }).replaceAll('\r\n', '\r');
    const opened = cutAt(Buffer.from(text));
    expect(sniff(opened)).toMatchObject({ newline: '\r', headers: ERC20_HEADER });
    expect((await streamAll(opened)).rows).toEqual(rows.slice(0, 3));
  });
});

/** Deep equality without vitest's diff machinery, for loops of thousands. */
function equalRows(a: string[][], b: string[][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

describe('the 64 KiB piece boundary inside the decoder, at every offset of a window', () => {
  /**
   * ASCII rows up to just before byte 65536, then rows whose token name has every hard case; the
   * first data row is padded so that, over the window, the piece boundary falls on every byte of
   * the first hard row and of the end of the row before (so the file's first non-ASCII character
   * crosses it too). Both with and without Etherscan's trailing comma: without it a row ends with
   * a closing quote before its CRLF.
   */
  const WINDOW = 400;
  const HARD_AT = PARSE_PIECE - WINDOW + 10;
  const plainRow = (n: number) => erc20Row(n, 'Tether USD');
  const textOf = (rows: string[][], trailingComma: boolean) => erc20Text(rows, { bom: false, trailingComma });
  /** A row's line (its line break included). */
  const lineOf = (row: string[], trailingComma: boolean) => textOf([row], trailingComma).slice(textOf([], trailingComma).length);
  /** The rows after the first, and their text: the same for every pad. */
  const fixedParts = new Map<string, { fill: number; rest: string[][]; restText: string }>();
  const build = (pad: number, hard: string[], trailingComma: boolean) => {
    const key = `${trailingComma}:${hard.join('|')}`;
    let fixed = fixedParts.get(key);
    if (!fixed) {
      // As many plain rows as end before HARD_AT, the first one then padded to end there.
      const plain: string[][] = [];
      let size = Buffer.byteLength(textOf([], trailingComma));
      for (;;) {
        const next = plainRow(plain.length);
        const bytes = Buffer.byteLength(lineOf(next, trailingComma));
        if (size + bytes > HARD_AT) break;
        plain.push(next);
        size += bytes;
      }
      const rest = plain.slice(1);
      for (let k = 0; k < 12; k++) rest.push(erc20Row(plain.length + k, hard[k % hard.length]!));
      fixed = { fill: HARD_AT - size, rest, restText: rest.map((r) => lineOf(r, trailingComma)).join('') };
      fixedParts.set(key, fixed);
    }
    const first = erc20Row(0, `Tether USD${'x'.repeat(fixed.fill + pad)}`);
    return { rows: [first, ...fixed.rest], text: textOf([], trailingComma) + lineOf(first, trailingComma) + fixed.restText };
  };

  it.each([true, false])('UTF-8 without a BOM, trailing comma %s: the same rows as papaparse on the whole text', async (trailingComma) => {
    const hard = ['two\r\nlines, "quoted" € 数', 'Euro € Coin', '数字 Token, "x"'];
    const { rows: first, text: firstText } = build(0, hard, trailingComma);
    expect(firstText).toBe(textOf(first, trailingComma));
    const firstHard = first.findIndex((r) => r[9] === hard[0]);
    // The window covers the first hard row (its line break included) and the end of the row before.
    expect(Buffer.byteLength(textOf(first.slice(0, firstHard), trailingComma))).toBe(HARD_AT);
    expect(Buffer.byteLength(lineOf(first[firstHard]!, trailingComma))).toBeLessThan(WINDOW - 20);
    // The sniff sees the same delimiter, header and line break whatever the pad.
    const sniffed = sniff(cutAt(Buffer.from(firstText)));
    const failures: number[] = [];
    for (let pad = 0; pad < WINDOW; pad++) {
      const { text } = build(pad, hard, trailingComma);
      const got = await streamAll(cutAt(Buffer.from(text, 'utf8')), sniffed);
      if (!equalRows(got.rows, papaRows(text)) || got.encoding !== 'utf-8') failures.push(pad);
    }
    expect(failures).toEqual([]);
  });

  it('Windows-1252 whose first non-ASCII byte crosses the boundary, after a head of ASCII: the same rows', async () => {
    const hard = ['two\r\nlines, "quoted" € é', 'Euro € Coin', 'Zürich ‰, "x" ’'];
    // What sniff says of a file whose first 256 KiB are ASCII: UTF-8; the decoder finds out.
    const sniffed: Sniffed = { ...sniff(cutAt(cp1252(build(0, hard, false).text))), encoding: 'utf-8' };
    const failures: number[] = [];
    for (let pad = 0; pad < WINDOW; pad++) {
      const { rows, text } = build(pad, hard, false);
      const got = await streamAll(cutAt(cp1252(text)), sniffed);
      if (!equalRows(got.rows, rows) || got.encoding !== 'windows-1252') failures.push(pad);
    }
    expect(failures).toEqual([]);
  });
});

describe('a 300 KB Etherscan ERC-20 export read from disk', () => {
  it('reads every row at the header width across its 64 KiB pieces; the head gives its complete rows, all of them', async () => {
    const rows = Array.from({ length: 900 }, (_, n) => erc20Row(n, NAMES[n % NAMES.length]!));
    const text = erc20Text(rows);
    expect(Buffer.byteLength(text)).toBeGreaterThan(HEAD_BYTES);
    const dir = mkdtempSync(join(tmpdir(), 'nps-source-'));
    try {
      const path = join(dir, 'export-token-0xdac17f.csv');
      writeFileSync(path, text);
      const opened = openSource({ path });
      const sniffed = sniff(opened);
      expect(sniffed.headers).toEqual(ERC20_HEADER);
      // The rows whose line break lies inside the first 256 KiB, each as written (the trailing comma dropped).
      let complete = 0;
      for (let size = Buffer.byteLength(erc20Text([])); ; complete++) {
        size += Buffer.byteLength(erc20Text([rows[complete]!])) - Buffer.byteLength(erc20Text([]));
        if (size > HEAD_BYTES) break;
      }
      expect(complete).toBeGreaterThan(700);
      expect(sniffed.headRows).toEqual(rows.slice(0, complete));
      expect(sniffed.sample).toEqual(rows.slice(0, 20));
      expect(sniffed.rowEstimate).toBeGreaterThan(850);
      expect(sniffed.rowEstimate).toBeLessThan(950);
      const got = await streamAll(opened, sniffed);
      expect(got.rows).toEqual(rows);
      expect(got.bytes).toBe(Buffer.byteLength(text));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('malformed CSV is still refused', () => {
  it('a stray quote inside a quoted cell, wherever the file is cut', async () => {
    const rows = NAMES.slice(0, 4).map((name, n) => erc20Row(n, name));
    const good = erc20Text(rows, { trailingComma: false });
    const bad = good.replace('"Say ""hi"", ok"', '"Say "hi", ok"');
    expect(bad).not.toBe(good);
    const bytes = Buffer.from(bad);
    const sniffed = sniff(cutAt(bytes));
    const passed: number[] = [];
    for (let cut = 1; cut < bytes.length; cut++) {
      const err = await streamAll(cutAt(bytes, [cut]), sniffed).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (
        !(err instanceof FileError) ||
        !/^malformed CSV: trailing quote on quoted field is malformed \(near data row 4\)$/.test(err.message)
      )
        passed.push(cut);
    }
    expect(passed).toEqual([]);
  });

  it('a quote never closed in a large file fails once the row runs past a million characters, not at the end', async () => {
    const lines = ['id,memo,amount'];
    for (let i = 0; i < 200_000; i++) lines.push(i === 10 ? `${i},"never closed,1` : `${i},plain,${i}`);
    const opened = textSource(lines.join('\n') + '\n');
    expect(opened.size).toBeGreaterThan(3_000_000);
    let bytesRead = 0;
    const sink = { rows: () => {}, progress: (b: number) => (bytesRead = b) };
    await expect(streamRows(opened, sniff(opened), sink)).rejects.toThrow(/^malformed CSV: data row 11 runs on past a million characters/);
    expect(bytesRead).toBeLessThan(opened.size);
  });
});

const textSource = (text: string): OpenedSource => openSource({ name: 't.csv', text });

describe('delimiter detection', () => {
  it('finds ";" in a file with decimal commas', () => {
    const s = sniff(textSource('Txhash;Value_IN(ETH)\r\n0xab12;0,05\r\n'));
    expect(s).toMatchObject({ delimiter: ';', headers: ['Txhash', 'Value_IN(ETH)'], sample: [['0xab12', '0,05']] });
    const wide = sniff(textSource('Date;Amount;Fee;Memo\n2026-01-03;1.234,56;0,01;"a; b"\n2026-01-04;2,5;0,02;c\n'));
    expect(wide.delimiter).toBe(';');
    expect(wide.headRows).toEqual([
      ['2026-01-03', '1.234,56', '0,01', 'a; b'],
      ['2026-01-04', '2,5', '0,02', 'c'],
    ]);
  });

  it('finds tab and "|", and "," in a file whose quoted cells hold ";"', () => {
    expect(sniff(textSource('a\tb\tc\n1\t2,5\t3\n')).delimiter).toBe('\t');
    expect(sniff(textSource('a|b|c\n1|2,5|3\n')).delimiter).toBe('|');
    expect(sniff(textSource('"a;x","b;y",c\n"1;2",3,4\n')).delimiter).toBe(',');
  });

  it('still refuses a file of one column', () => {
    expect(() => sniff(textSource('address\n0xabc\n0xdef\n'))).toThrow(FileError);
    expect(() => sniff(textSource('address\n0xabc\n0xdef\n'))).toThrow(/one column or none found/);
  });
});

describe('trailing empty cells', () => {
  it('data rows ending with an extra comma come out with the header width', async () => {
    const s = sniff(textSource('a,b,c\r\n1,2,3,\r\n4,5,6, ,\r\n7,8,9\r\n'));
    expect(s.sample).toEqual([
      ['1', '2', '3'],
      ['4', '5', '6'],
      ['7', '8', '9'],
    ]);
    const { rows } = await streamAll(textSource('a,b,c\r\n1,2,3,\r\n4,5,6, ,\r\n7,8,9\r\n'));
    expect(rows).toEqual([
      ['1', '2', '3'],
      ['4', '5', '6'],
      ['7', '8', '9'],
    ]);
  });

  it('keeps extra cells that are not empty, and a header that ends with an empty name', async () => {
    const { rows } = await streamAll(textSource('a,b,c\n1,2,3,x\n4,5,6,,y\n'));
    expect(rows).toEqual([
      ['1', '2', '3', 'x'],
      ['4', '5', '6', '', 'y'],
    ]);
    const open = textSource('a,b,\n1,2,\n3,4,\n');
    const s = sniff(open);
    expect(s.headers).toEqual(['a', 'b', '']);
    expect((await streamAll(open, s)).rows).toEqual([
      ['1', '2', ''],
      ['3', '4', ''],
    ]);
  });
});

describe('encodings', () => {
  it('a file that is not UTF-8 and has no BOM is read as Windows-1252, as Excel writes it', async () => {
    const bytes = cp1252('Date,Amount,Memo\r\n2026-01-03,5,"Caf\u00e9 \u20ac 5"\r\n2026-01-04,6,M\u00fcller\r\n');
    const opened = cutAt(bytes);
    const s = sniff(opened);
    expect(s.encoding).toBe('windows-1252');
    expect(s.sample).toEqual([
      ['2026-01-03', '5', 'Café € 5'],
      ['2026-01-04', '6', 'Müller'],
    ]);
    const got = await streamAll(opened, s);
    expect(got.rows[0]).toEqual(['2026-01-03', '5', 'Café € 5']);
    expect(got.encoding).toBe('windows-1252');
  });

  it('a Windows-1252 byte past the first 256 KiB of ASCII: the rows are read as Windows-1252 and the answer says so', async () => {
    const lines = ['id,memo'];
    for (let i = 0; i < 30_000; i++) lines.push(`${i},plain ascii ${i}`);
    lines.push('30000,price \u20ac 5');
    const bytes = cp1252(lines.join('\n') + '\n');
    expect(bytes.length).toBeGreaterThan(HEAD_BYTES);
    const opened = cutAt(bytes);
    const s = sniff(opened);
    expect(s.encoding).toBe('utf-8');
    const got = await streamAll(opened, s);
    expect(got.encoding).toBe('windows-1252');
    expect(got.rows[30_000]).toEqual(['30000', 'price € 5']);
    expect(got.rows[29_999]).toEqual(['29999', 'plain ascii 29999']);
  });

  it('UTF-8 past the first 256 KiB stays UTF-8; bytes that break UTF-8 after UTF-8 text are refused', async () => {
    const lines = ['id,memo'];
    for (let i = 0; i < 30_000; i++) lines.push(`${i},plain ascii ${i}`);
    const good = Buffer.from([...lines, '30000,€ 数'].join('\n') + '\n');
    const got = await streamAll(cutAt(good));
    expect(got.encoding).toBe('utf-8');
    expect(got.rows[30_000]).toEqual(['30000', '€ 数']);
    const mixed = Buffer.concat([good, Buffer.from('30001,'), cp1252('\u00e9'), Buffer.from('\n')]);
    await expect(streamAll(cutAt(mixed))).rejects.toThrow(/not valid UTF-8/);
  });

  it('a U+FEFF in the text after pieces of ASCII is text, not a BOM, wherever a piece begins', async () => {
    // ASCII pieces are copied as Latin-1 without the decoder: the first bytes the decoder then sees
    // are not the file's start, and a U+FEFF there is a character of a cell.
    for (const at of [PARSE_PIECE, 2 * PARSE_PIECE]) {
      let text = 'id,memo\n';
      let i = 0;
      while (Buffer.byteLength(text) < at - 40) text += `${i++},plain ascii ${i}\n`;
      // A row of padding, so that the next row's memo cell begins exactly at the piece's start.
      const padRow = `${i++},`;
      const lead = `${i},`;
      text += `${padRow}${'x'.repeat(at - Buffer.byteLength(text) - padRow.length - 1 - lead.length)}\n`;
      expect(Buffer.byteLength(text) + lead.length).toBe(at);
      text += `${lead}\ufeffmemo \u20ac\n${i + 1},after\n`;
      const got = await streamAll(cutAt(Buffer.from(text, 'utf8')));
      expect(got.encoding).toBe('utf-8');
      expect(got.rows.at(-2)).toEqual([String(i), '\ufeffmemo \u20ac']);
      expect(got.rows.at(-1)).toEqual([String(i + 1), 'after']);
    }
    // At the file's start it is the byte-order mark, and no character of the header.
    const got = await streamAll(cutAt(Buffer.from('\ufeffid,memo\n1,a\n', 'utf8')));
    expect(got.rows).toEqual([['1', 'a']]);
  });

  it('UTF-16LE with a BOM', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a;b\r\n1;Zürich € 数\r\n', 'utf16le')]);
    const opened = cutAt(bytes, [3, 7]);
    const s = sniff(opened);
    expect(s).toMatchObject({ encoding: 'utf-16le', delimiter: ';', headers: ['a', 'b'], sample: [['1', 'Zürich € 数']] });
    expect((await streamAll(opened, s)).rows).toEqual([['1', 'Zürich € 数']]);
  });

  it('UTF-16 without a byte-order mark is refused saying so, in either byte order', () => {
    for (const bytes of [Buffer.from('a;b\r\n1;2\r\n', 'utf16le'), Buffer.from('a;b\r\n1;2\r\n', 'utf16le').swap16()])
      expect(() => sniff(cutAt(bytes))).toThrow(/looks like UTF-16 text without a byte-order mark/);
  });

  it('still refuses NUL bytes and binary files', () => {
    expect(() => sniff(cutAt(Buffer.from('a,b\n1,\u0000\n', 'latin1')))).toThrow(/NUL bytes/);
    expect(() => sniff(cutAt(Buffer.concat([Buffer.from('a,b\n1,\u00e9\n', 'latin1'), Buffer.from([0])])))).toThrow(/NUL bytes/);
    expect(() => sniff(cutAt(Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(50, 0xff)])))).toThrow(/ZIP/);
    expect(() => sniff(cutAt(Buffer.from('%PDF-1.7\n\u00e9', 'latin1')))).toThrow(/PDF/);
  });
});

describe('lines above the header', () => {
  it('blank lines, or lines of delimiters only, above the header are skipped: the header and the rows are as without them', async () => {
    const text = '\r\n;;;\r\nHash;Amount;Date\r\n0xaa;0,5;2021-06-11\r\n;;\r\n0xbb;1,5;2021-06-12\r\n';
    const opened = cutAt(Buffer.from(text), [1, 9, 20]);
    const s = sniff(opened);
    expect(s).toMatchObject({
      headers: ['Hash', 'Amount', 'Date'],
      sample: [
        ['0xaa', '0,5', '2021-06-11'],
        ['0xbb', '1,5', '2021-06-12'],
      ],
    });
    // Row numbers count from the first line after the header; a blank row within the data counts.
    expect((await streamAll(opened, s)).rows).toEqual([
      ['0xaa', '0,5', '2021-06-11'],
      ['', '', ''],
      ['0xbb', '1,5', '2021-06-12'],
    ]);
  });

  it('a title line above the table is refused saying where the columns start', () => {
    const text = 'Transactions of 0x003dc\n\nHash,Amount,Date\n0xaa,0.5,2021-06-11\n';
    expect(() => sniff(cutAt(Buffer.from(text)))).toThrow(
      'the first line ("Transactions of 0x003dc") is not a header but a title: the table\'s columns start 2 lines below it; delete the lines above the header and import again',
    );
  });
});

describe('headRows', () => {
  it('a JSON array gives its objects as rows, aligned with the keys of the first', () => {
    const items = Array.from({ length: 30 }, (_, i) => `{"id":"${i}","amount":${i}.5,"memo":null}`);
    const s = sniff(textSource(`[${items.join(',')}]`));
    expect(s.headers).toEqual(['id', 'amount', 'memo']);
    expect(s.headRows).toHaveLength(30);
    expect(s.headRows[29]).toEqual(['29', '29.5', '']);
    expect(s.sample).toEqual(s.headRows.slice(0, 20));
  });

  it('every complete row of the head, aligned with the header, at most 5000', () => {
    const lines = ['n,v'];
    for (let i = 0; i < 6000; i++) lines.push(`${i},${i % 7},`);
    const s = sniff(textSource(lines.join('\n')));
    expect(s.headRows).toHaveLength(5000);
    expect(s.headRows[4999]).toEqual(['4999', String(4999 % 7)]);
    expect(s.sample).toEqual(s.headRows.slice(0, 20));
    expect(s.rowEstimate).toBe(6000);
  });

  it('skips blank lines; a whole small file gives all its rows and an exact count', () => {
    const s = sniff(textSource('a,b\n1,2\n\n  \n3,"x\ny"\n'));
    expect(s.headRows).toEqual([
      ['1', '2'],
      ['3', 'x\ny'],
    ]);
    expect(s.rowEstimate).toBe(2);
  });
});
