import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { errorText } from '../api';

export interface QueryState<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Load something for a screen whenever `key` changes: loading until the answer for this key
 * arrives, then the data or the error sentence. An answer for an older key is dropped.
 */
export function useQuery<T>(key: string | null, load: () => Promise<T>): QueryState<T> {
  const [nonce, setNonce] = useState(0);
  const effectiveKey = key === null ? null : `${key}#${nonce}`;
  const [state, setState] = useState<{ key: string | null; data?: T; error?: string }>({ key: null });
  const run = useEffectEvent(() => load());

  useEffect(() => {
    if (effectiveKey === null) return;
    let live = true;
    run().then(
      (data) => live && setState({ key: effectiveKey, data }),
      (err: unknown) => live && setState({ key: effectiveKey, error: errorText(err) }),
    );
    return () => {
      live = false;
    };
  }, [effectiveKey]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const current = state.key === effectiveKey;
  return {
    // Keep showing the previous answer while the next one loads, so tables do not flash empty.
    data: state.data,
    error: current ? state.error : undefined,
    loading: effectiveKey !== null && !current,
    reload,
  };
}
