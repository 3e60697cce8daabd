/**
 * JSON values in this tab's session storage (they survive a reload, not the
 * tab). Never throws: storage may be disabled or full, and then the value
 * simply does not survive a reload.
 */

/** The stored value run through `parse` (which checks its shape), or null. */
export function readSession<T>(key: string, parse: (value: unknown) => T | null): T | null {
  try {
    const raw = globalThis.sessionStorage?.getItem(key);
    return raw ? parse(JSON.parse(raw)) : null;
  } catch {
    return null;
  }
}

/** Stores `value`, or removes the key for null. */
export function writeSession(key: string, value: unknown): void {
  try {
    if (value === null) globalThis.sessionStorage.removeItem(key);
    else globalThis.sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // disabled or full
  }
}
