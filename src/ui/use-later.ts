// A hook for what is worth showing only once a wait has lasted: a bar that a short wait would only flash.
import { useEffect, useState } from 'react';

/** True once `ms` have passed since `key` was first given (false again, and counting anew, for a new key). */
export function useLater(ms: number, key: unknown): boolean {
  const [done, setDone] = useState<{ key: unknown } | undefined>(undefined);
  useEffect(() => {
    const timer = setTimeout(() => setDone({ key }), ms);
    return () => clearTimeout(timer);
  }, [ms, key]);
  return done?.key === key;
}
