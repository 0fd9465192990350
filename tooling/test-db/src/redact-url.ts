/** A URL fit for an error message: any password is replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL at all: show it as given, it cannot hold a parseable password.
    return url;
  }
}
