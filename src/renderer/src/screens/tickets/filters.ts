import { create } from 'zustand';
import type { FlagField } from '../../../../shared/reconcile';
import type { ExceptionKind, TICKET_SORTS, TicketStatus } from '../../../../shared/tickets';

export type StatusFilter = TicketStatus | 'all';
export type TicketSort = (typeof TICKET_SORTS)[number];

export interface QueueFilters {
  status: StatusFilter;
  kind: ExceptionKind | '';
  field: FlagField | '';
  wallet_id: string;
  chain_id: string;
  token_id: string;
  /** As typed: the service reads them as exact decimal numbers and names the field when one is not. */
  amount_min: string;
  amount_max: string;
  older_than_days: string;
  search: string;
}

const NO_FILTERS: QueueFilters = {
  status: 'Pending',
  kind: '',
  field: '',
  wallet_id: '',
  chain_id: '',
  token_id: '',
  amount_min: '',
  amount_max: '',
  older_than_days: '',
  search: '',
};

export const PAGE_SIZE = 100;

interface QueueState {
  filters: QueueFilters;
  sort: TicketSort;
  order: 'asc' | 'desc';
  page: number;
  /** A changed filter starts again at page 1. */
  setFilters: (patch: Partial<QueueFilters>) => void;
  clearFilters: () => void;
  /** The same column again turns the order round; another starts descending (newest, largest first). */
  sortBy: (sort: TicketSort) => void;
  setPage: (page: number) => void;
}

/** The queue's filters, sort and page survive a trip to another screen. */
export const useQueue = create<QueueState>((set) => ({
  filters: NO_FILTERS,
  sort: 'updated_at',
  order: 'desc',
  page: 1,
  setFilters: (patch) => set((s) => ({ filters: { ...s.filters, ...patch }, page: 1 })),
  clearFilters: () => set({ filters: NO_FILTERS, page: 1 }),
  sortBy: (sort) => set((s) => ({ sort, order: s.sort === sort && s.order === 'desc' ? 'asc' : 'desc', page: 1 })),
  setPage: (page) => set({ page }),
}));

/** A whole number of days as typed, or the text itself for the service to refuse by name. */
const days = (text: string): number | string => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

/** The tickets-list filters of the queue (without page and sort). */
export function filterQuery(f: QueueFilters) {
  const search = f.search.trim();
  return {
    ...(f.status !== 'all' ? { status: f.status } : {}),
    ...(f.kind ? { kind: f.kind } : {}),
    ...(f.field ? { field: f.field } : {}),
    ...(f.wallet_id ? { wallet_id: f.wallet_id } : {}),
    ...(f.chain_id ? { chain_id: f.chain_id } : {}),
    ...(f.token_id ? { token_id: f.token_id } : {}),
    ...(f.amount_min.trim() ? { amount_min: f.amount_min.trim() } : {}),
    ...(f.amount_max.trim() ? { amount_max: f.amount_max.trim() } : {}),
    ...(f.older_than_days.trim() ? { older_than_days: days(f.older_than_days) as number } : {}),
    ...(search ? { search } : {}),
  };
}

/** Whether anything narrows the queue beyond the default status. */
export const narrowed = (f: QueueFilters): boolean =>
  (Object.keys(NO_FILTERS) as (keyof QueueFilters)[]).some((k) => k !== 'status' && f[k] !== NO_FILTERS[k]);
