import { describeValue, flowPrefix, InvalidArgumentError } from '@flow/core';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Checks a schema name against `/^[A-Za-z_][A-Za-z0-9_]{0,62}$/` (an unquoted Postgres identifier of at most 63
 * bytes) that does not start with `pg_`.
 */
export function assertSchemaName(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new InvalidArgumentError(
      `${flowPrefix('postgres')}schema must match ${SCHEMA_NAME} (a letter or _, then up to 62 letters, digits or _), ` +
        `got ${describeValue(schema)}`,
    );
  }
  // Postgres refuses to create a schema whose name starts with pg_ (reserved for its own): say so up front
  // rather than fail the first call's setup. The check is case-sensitive, as Postgres's is on a quoted name.
  if (schema.startsWith('pg_')) {
    throw new InvalidArgumentError(
      `${flowPrefix('postgres')}schema ${describeValue(schema)} starts with pg_, which Postgres reserves for its system schemas`,
    );
  }
}
