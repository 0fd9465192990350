/** Quotes a SQL identifier. Schema names are validated too; quoting keeps case ("Flow" ≠ "flow"). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes a SQL string literal. */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
