/** A value as indented JSON text (always text: shown with textContent). */
export function pretty(value) {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/** A short one-line form of a value. */
export function short(value, max = 80) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `3 min ago`, `2 h ago`... */
export function age(ts, now = Date.now()) {
  const ms = now - Date.parse(ts);
  if (!Number.isFinite(ms)) return '';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** A run's status from a ThreadInfo or checkpoint. */
export function statusOf(x) {
  if (x.interrupted) return 'interrupted';
  if (x.done) return 'done';
  if (x.failed || (x.error !== undefined && x.error !== null)) return 'failed';
  return 'running';
}

/** The id of the interrupt a checkpoint is waiting on, when the engine gives one. */
export function interruptIdOf(cp) {
  if (typeof cp.interruptId === 'string') return cp.interruptId;
  const meta = cp.meta;
  if (meta && typeof meta === 'object' && typeof meta.interruptId === 'string') return meta.interruptId;
  const first = Array.isArray(cp.interrupts) ? cp.interrupts[0] : undefined;
  return first && typeof first.id === 'string' ? first.id : undefined;
}

/** What to ask, when the payload says: a string payload, or its `question` / `message` / `prompt`. */
export function questionOf(payload) {
  if (typeof payload === 'string') return payload;
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    for (const key of ['question', 'message', 'prompt', 'title']) {
      if (typeof payload[key] === 'string') return payload[key];
    }
  }
  return undefined;
}

/** One-click answers when the payload lists `options`: `[{ label, value }]`. */
export function optionsOf(payload) {
  const list = payload && typeof payload === 'object' ? payload.options : undefined;
  if (!Array.isArray(list)) return [];
  return list.map((option) => {
    if (option && typeof option === 'object' && !Array.isArray(option) && 'value' in option) {
      return { label: String(option.label ?? short(option.value, 40)), value: option.value };
    }
    return { label: typeof option === 'string' ? option : short(option, 40), value: option };
  });
}

/** The payload's other fields (what is left once the question and options are shown). */
export function detailsOf(payload) {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    return typeof payload === 'string' ? undefined : payload;
  }
  const rest = { ...payload };
  const question = questionOf(payload);
  for (const key of ['question', 'message', 'prompt', 'title']) {
    if (rest[key] === question) {
      delete rest[key];
      break;
    }
  }
  if (Array.isArray(rest.options)) delete rest.options;
  return Object.keys(rest).length === 0 ? undefined : rest;
}
