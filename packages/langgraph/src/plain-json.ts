/** Nesting beyond this is left to the serde (which also handles cycles). */
const MAX_DEPTH = 64;

/**
 * Whether LangGraph's `JsonPlusSerializer` writes `value` exactly as `JSON.stringify` does: strings, numbers,
 * booleans and null, in arrays and objects of `Object.prototype` (or none) without `toJSON`, no `undefined`
 * anywhere (it writes that as a record of its own; so are array holes), no object shaped like a `Send` (it
 * rewrites those), nested at most `MAX_DEPTH` deep (no cycle gets through). Everything else — class instances
 * (LangChain messages, `Date`, `Map`, `Set`, `Uint8Array`, errors), bigints, functions — goes to the serde.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      const obj = value as Record<string, unknown>;
      if ('toJSON' in obj || obj.lg_name === 'Send') return false;
      for (const key of Object.keys(obj)) if (!isPlainJson(obj[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}
