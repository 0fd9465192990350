/** A backend package's harnesses of the kit: the whole kit, and its encrypted-storage suite. */
export const KIT_HARNESSES = ['test/conformance.test.ts', 'test/encrypted-storage.test.ts'];
