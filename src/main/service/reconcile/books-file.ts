import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { BooksSource } from '../../../shared/reconcile';
import type { BooksFile } from '../../../shared/reports';
import { sourceName } from './books';

/*
 * The books file as the auditor's report names it: its name and the SHA-256 of what was read, taken
 * when a run starts, so the workbook says which file was reconciled and the auditor can check it is
 * the one they hold (`sha256sum`, `Get-FileHash`).
 */

/** A file on disk is hashed as its bytes; a picked file's text (the browser window) as the UTF-8 the service received. */
export async function booksFileOf(source: BooksSource): Promise<BooksFile> {
  const hash = createHash('sha256');
  if (!('path' in source)) {
    hash.update(source.text, 'utf8');
    return { name: sourceName(source), sha256: hash.digest('hex'), sha256_of: 'text' };
  }
  for await (const chunk of createReadStream(source.path)) hash.update(chunk as Buffer);
  return { name: sourceName(source), sha256: hash.digest('hex'), sha256_of: 'file' };
}
