import { flowPrefix, InvalidArgumentError } from '@flow/core';

/** A connection URL taken apart: what pg gets, and the schema its `?schema=` names. */
export interface ConnectionUrl {
  url: string;
  schema: string | undefined;
}

/**
 * Checks that `url` is a `postgres://` or `postgresql://` URL and splits `?schema=` off it (pg would read it
 * as a setting of its own). A socket directory goes in `?host=`: `postgres:///app?host=/var/run/postgresql`.
 */
export function parseConnectionUrl(url: string): ConnectionUrl {
  if (url.trim() === '')
    throw new InvalidArgumentError(`${flowPrefix('postgres')}the connection URL is empty`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError(
      `${flowPrefix('postgres')}not a connection URL (postgres://user@host:5432/db): ${JSON.stringify(redact(url))}`,
      { cause: error },
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new InvalidArgumentError(
      `${flowPrefix('postgres')}a connection URL starts with postgres:// or postgresql://, got ${JSON.stringify(parsed.protocol)}`,
    );
  }
  const schemas = parsed.searchParams.getAll('schema');
  if (schemas.length > 1)
    throw new InvalidArgumentError(`${flowPrefix('postgres')}the URL gives ?schema= more than once`);
  if (schemas.length === 0) return { url, schema: undefined };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema: schemas[0] };
}

/** The text with anything shaped like a password in a URL masked, so it can appear in an error. */
function redact(text: string): string {
  return text.replace(/^([^:/?#]*:\/\/[^/?#:@]*:)[^/?#@]*@/, '$1***@');
}
