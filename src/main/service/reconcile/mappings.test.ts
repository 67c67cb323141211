import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contract } from '../../../shared/contract';
import type { BooksRunInput } from '../../../shared/reconcile';
import { failure, tempService } from '../test-support';
import { insertRecords } from './fixtures.test-support';

/*
 * Books mappings kept for the next file of the same layout: a run keeps the mapping it used (its
 * fee column, translations, tolerances, period) for its layout and wallet; the next file of that
 * layout is proposed it, the wallet's first; saved mappings are named, listed, edited, removed.
 */

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';
const hash = (i: number) => '0x' + i.toString(16).padStart(64, '0');
const ui = { actor: 'ui' as const };

/** Books of an accountant: In/Out, a gas column, their own words for the type. */
const HEADER = 'Date,Hash,Kind,In,Out,Gas';
const books = (header = HEADER) =>
  [header, `2026-10-03 12:00:00,${hash(1)},Receive,100,,`, `2026-10-04 12:00:00,${hash(2)},Send,,25,0.001`].join('\n');

const MAPPING = {
  columns: { time: 'Date', hash: 'Hash', type: 'Kind', amount_in: 'In', amount_out: 'Out', fee: 'Gas' },
  translations: { type: { Receive: 'Deposit', Send: 'Withdrawal' } },
};

/** The same books read without their gas column. */
const { fee: _fee, ...withoutFee } = MAPPING.columns;
const NO_FEE = { ...MAPPING, columns: withoutFee };

describe('saved books mappings', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());
  const invoke = svc.invoke.bind(svc) as typeof svc.invoke;
  /** Every answer held against the contract's answer schema, as the window reads it. */
  const call = async <
    N extends
      | 'books-mappings-list'
      | 'books-mapping-get'
      | 'books-mapping-save'
      | 'books-mapping-update'
      | 'books-mapping-remove'
      | 'reconcile-books-detect'
      | 'reconcile-books-run',
  >(
    name: N,
    input: unknown,
  ) => {
    const answer = await invoke(name, input, ui);
    contract[name].output.parse(answer);
    return answer;
  };

  beforeAll(() => {
    for (const [w, i] of [
      [A, 1],
      [A, 2],
      [B, 3],
      [C, 4],
    ] as const)
      insertRecords(svc.ctx.db, [
        { transaction_id: `aaaaaaaa-0000-4000-8000-00000000000${i}`, wallet_id: w, hash: hash(i), created_at: Date.UTC(2026, 9, 3) },
      ]);
  });

  const run = (over: Partial<Record<keyof BooksRunInput, unknown>> & { text?: string; name?: string } = {}) => {
    const { text, name, ...rest } = over;
    return call('reconcile-books-run', {
      source: { name: name ?? 'october.csv', text: text ?? books() },
      mapping: MAPPING,
      wallet_id: A,
      amount_delta: '0.01',
      time_delta: 60,
      from: '2026-10-01',
      to: '2026-10-31',
      time_zone: 'Europe/Berlin',
      ...rest,
    });
  };

  test('a run keeps its mapping, named after its file; the next file of the layout is proposed it, fee column and all', async () => {
    const first = await call('reconcile-books-detect', { source: { name: 'october.csv', text: books() } });
    expect(first.saved).toBeNull();
    expect(first.suggested.columns.fee).toBeUndefined();

    const done = await run();
    expect(done.saved_mapping).toMatchObject({ name: 'october.csv', named: false, wallet_id: A, headers: HEADER.split(',') });

    // November's file: the same columns, saved again by a spreadsheet (other case, spaces around a name).
    const next = await call('reconcile-books-detect', {
      source: { name: 'november.csv', text: books('date, HASH ,Kind,In,Out,gas') },
    });
    expect(next.saved).toMatchObject({
      name: 'october.csv',
      wallet_id: A,
      mapping: { translations: MAPPING.translations },
      options: { amount_delta: '0.01', time_delta: 60, two_way: true, from: '2026-10-01', to: '2026-10-31', time_zone: 'Europe/Berlin' },
    });
    // The mapping names the columns as this file spells them, so it reads November's rows.
    expect(next.saved?.mapping.columns).toEqual({ ...MAPPING.columns, time: 'date', hash: 'HASH', fee: 'gas' });
    const november = await run({ name: 'november.csv', text: books('date, HASH ,Kind,In,Out,gas'), mapping: next.saved!.mapping });
    expect(november).toMatchObject({ rejected_count: 0, item_count: 2, not_found: 0 });
    // Another layout is not proposed it.
    const other = await call('reconcile-books-detect', { source: { name: 'x.csv', text: books('Date,Hash,Kind,In,Out,Fee') } });
    expect(other.saved).toBeNull();

    // The same layout run again for the same wallet updates that entry, it does not add one.
    await run({ name: 'november.csv', mapping: NO_FEE });
    const list = await call('books-mappings-list', {});
    expect(list.map((m) => [m.name, m.wallet_id, m.mapping.columns.fee])).toEqual([['october.csv', A, undefined]]);
  });

  test("per wallet: the wallet's own mapping first, else the last used of any", async () => {
    const forB = {
      ...MAPPING,
      columns: { ...MAPPING.columns, fee: 'Gas' },
      translations: { type: { Receive: 'Deposit', Send: 'Deposit' } },
    };
    const doneB = await run({ wallet_id: B, name: 'b-october.csv', mapping: forB });
    expect(doneB.saved_mapping).toMatchObject({ name: 'b-october.csv', wallet_id: B });
    const detect = (wallet?: string) =>
      call('reconcile-books-detect', { source: { name: 'n.csv', text: books() }, ...(wallet ? { wallet_id: wallet } : {}) });
    expect((await detect(A)).saved?.name).toBe('october.csv');
    expect((await detect(B)).saved?.name).toBe('b-october.csv');
    // No wallet asked about, or one with nothing saved: the last used.
    expect((await detect()).saved?.name).toBe('b-october.csv');
    expect((await detect(C)).saved?.name).toBe('b-october.csv');
    // Listed for a file: its layout's first, the wallet's first among them.
    const listed = await call('books-mappings-list', { headers: HEADER.split(','), wallet_id: A });
    expect(listed.map((m) => [m.name, m.same_layout])).toEqual([
      ['october.csv', true],
      ['b-october.csv', true],
    ]);
  });

  test('named, renamed, edited, moved and removed; a name is unique ignoring case; a mapping must read its layout', async () => {
    const saved = await call('books-mapping-save', {
      name: 'Treasury books',
      headers: HEADER.split(','),
      wallet_id: A,
      mapping: MAPPING,
      options: { amount_delta: '0.001' },
    });
    expect(saved).toMatchObject({ name: 'Treasury books', named: true, wallet_id: A });
    // It stands for the layout and wallet in place of the entry a run had remembered.
    const names = async () => (await call('books-mappings-list', {})).map((m) => m.name);
    expect(await names()).toEqual(['b-october.csv', 'Treasury books']);
    expect((await call('reconcile-books-detect', { source: { name: 'n.csv', text: books() }, wallet_id: A })).saved?.name).toBe(
      'Treasury books',
    );
    // A run of that layout and wallet keeps its mapping there.
    const again = await run({ mapping: NO_FEE });
    expect(again.saved_mapping).toMatchObject({ mapping_id: saved.mapping_id, name: 'Treasury books', named: true });
    expect((await call('books-mapping-get', { mapping: 'treasury BOOKS' })).mapping.columns.fee).toBeUndefined();

    const taken = await failure(
      call('books-mapping-save', { name: 'TREASURY books', headers: ['x'], mapping: { columns: { hash: 'x' } } }),
    );
    expect(taken.message).toBe('name: a saved mapping is already named "Treasury books": choose another name, or replace it');
    const wrong = await failure(
      call('books-mapping-update', { mapping_id: saved.mapping_id, mapping: { ...MAPPING, columns: { ...MAPPING.columns, fee: 'Fee' } } }),
    );
    expect(wrong.message).toBe('mapping.columns.fee: no column "Fee" in the file (it has "Date", "Hash", "Kind", "In", "Out", "Gas")');
    const renameTaken = await failure(call('books-mapping-update', { mapping_id: saved.mapping_id, name: 'b-OCTOBER.csv' }));
    expect(renameTaken.message).toMatch(/^name: a saved mapping is already named "b-october.csv"/);

    const edited = await call('books-mapping-update', {
      mapping_id: saved.mapping_id,
      name: 'Treasury (ETH)',
      wallet_id: null,
      mapping: { ...MAPPING, columns: { ...MAPPING.columns, fee: 'Gas' } },
    });
    expect(edited).toMatchObject({ name: 'Treasury (ETH)', wallet_id: null, mapping: { columns: { fee: 'Gas' } } });
    const replaced = await call('books-mapping-save', {
      name: 'treasury (eth)',
      headers: HEADER.split(','),
      mapping: MAPPING,
      replace: true,
    });
    expect(replaced).toMatchObject({ mapping_id: saved.mapping_id, name: 'treasury (eth)' });

    // A run told to keep its mapping under a name.
    const named = await run({ wallet_id: C, save_mapping_as: 'Cold' });
    expect(named.saved_mapping).toMatchObject({ name: 'Cold', named: true, wallet_id: C });
    const notKept = await run({ wallet_id: C, remember_mapping: false, mapping: NO_FEE });
    expect(notKept.saved_mapping).toBeNull();
    expect((await call('books-mapping-get', { mapping: 'cold' })).mapping.columns.fee).toBe('Gas');

    expect(await call('books-mapping-remove', { mapping: 'Cold' })).toMatchObject({ name: 'Cold' });
    expect(await names()).toEqual(['b-october.csv', 'treasury (eth)']);
    expect((await failure(call('books-mapping-remove', { mapping: 'Cold' }))).message).toBe('mapping: no saved mapping is named "Cold"');
  });

  test('names made from files do not collide: a second file of the same name and another wallet gets one of its own', async () => {
    const done = await run({ wallet_id: C, name: 'b-october.csv' });
    expect(done.saved_mapping?.name).toBe('b-october.csv (2)');
  });
});
