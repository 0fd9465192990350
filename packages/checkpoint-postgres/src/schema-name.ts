import { describeValue, flowPrefix, InvalidArgumentError } from '@flow/core';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Checks a schema name against `/^[A-Za-z_][A-Za-z0-9_]{0,62}$/`: an unquoted Postgres identifier of at most 63 bytes. */
export function assertSchemaName(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new InvalidArgumentError(
      `${flowPrefix('postgres')}schema must match ${SCHEMA_NAME} (a letter or _, then up to 62 letters, digits or _), ` +
        `got ${describeValue(schema)}`,
    );
  }
}
