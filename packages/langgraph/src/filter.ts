/**
 * Whether `metadata` matches a `list` filter: every key of the filter is in the metadata with a value that
 * contains the filter's, as Postgres's `@>` decides (objects by their keys, arrays by their elements, other
 * values by equality). `{}` matches everything, and so does a key whose value is `undefined`, as in LangGraph's
 * SQLite and Postgres savers (`{ source: undefined }` is `{}` once it is JSON).
 */
export function matchesFilter(metadata: unknown, filter: Record<string, unknown>): boolean {
  return contains(metadata, filter);
}

function contains(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return Array.isArray(actual) && wanted.every((w) => actual.some((a) => contains(a, w)));
  }
  if (typeof wanted === 'object' && wanted !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(wanted).every(
      ([key, value]) =>
        value === undefined ||
        (Object.hasOwn(actual, key) && contains((actual as Record<string, unknown>)[key], value)),
    );
  }
  return Object.is(actual, wanted) || actual === wanted;
}
