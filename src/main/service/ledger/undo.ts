import { actorLabel } from '../../../shared/actors';
import type { ImportUndo } from '../../../shared/ledger';
import type { ServiceContext } from '../context';
import { invalidParam } from '../errors';
import { applyUndo, findImport, undoFigures, type ImportRow } from './undo-repository';

/*
 * Undo an import as a whole: the records it added go, the records it updated get the version they
 * had before it, the Pending tickets of the records that go are dismissed (their event says why),
 * and the import stays in the history marked undone, by whom and when. Refused, changing nothing,
 * when the import is already undone or a later import that stands changed its records (undo that
 * one first). Everything in one SQLite transaction.
 */

function importOf(ctx: ServiceContext, importId: string): ImportRow {
  const row = findImport(ctx.db, importId);
  if (!row) throw invalidParam('import_id', `no import ${JSON.stringify(importId)}`);
  if (row.undone_at !== null)
    throw invalidParam(
      'import_id',
      `import ${importId} (${row.file_name}) was already undone${row.undone_by ? ` by ${actorLabel(row.undone_by)}` : ''}`,
    );
  return row;
}

const answer = (row: ImportRow, figures: ReturnType<typeof undoFigures>): ImportUndo => ({
  import_id: row.import_id,
  file_name: row.file_name,
  finished_at: row.finished_at,
  ...figures,
  undone_at: row.undone_at,
  undone_by: row.undone_by,
});

/** What undoing the import would change, or which later imports stand in its way. */
export function previewUndo(ctx: ServiceContext, importId: string): ImportUndo {
  const row = importOf(ctx, importId);
  return answer(row, undoFigures(ctx.db, importId));
}

/** Undo the import (see the top of this file); `actor` is who, as events record it. */
export function undoImport(ctx: ServiceContext, importId: string, actor: string): ImportUndo {
  return ctx.db.$client.transaction(() => {
    const row = importOf(ctx, importId);
    const figures = undoFigures(ctx.db, importId);
    const later = figures.blocked_by;
    if (later.length)
      throw invalidParam(
        'import_id',
        `${later.length === 1 ? 'a later import' : 'later imports'} changed records of ${row.file_name}: undo ${later.map((l) => `${l.file_name} (import ${l.import_id})`).join(', ')} first`,
      );
    const at = ctx.now();
    applyUndo(ctx.db, { importId, actor, at, note: `record removed: import ${row.file_name} undone` });
    return answer({ ...row, undone_at: at, undone_by: actor }, figures);
  })();
}
