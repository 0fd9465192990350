/** One chat message, the unit the states below are made of. */
export interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/** The shape of every state the bench writes: a conversation, as an agent graph would keep it. */
export interface ChatState {
  messages: Message[];
}

const WORDS = (
  'the a checkpoint step thread state graph node resume answer human order review draft ' +
  'publish queue worker retry value model tool call result plan search summary error latency'
).split(' ');

/** Bytes a message adds to the state's JSON besides its text: `{"role":"assistant","content":""},`. */
const MESSAGE_OVERHEAD = 34;

/**
 * A deterministic message of about `bytes` bytes of JSON. The text is words from a small vocabulary chosen
 * by a seeded generator: it compresses roughly like prose, so TOAST and the like see realistic input.
 */
export function makeMessage(index: number, bytes: number): Message {
  let seed = (index + 1) * 2654435761;
  const target = Math.max(1, bytes - MESSAGE_OVERHEAD);
  let content = `#${index}`;
  while (content.length < target) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    content += ` ${WORDS[seed % WORDS.length]}`;
  }
  return { role: index % 2 === 0 ? 'user' : 'assistant', content: content.slice(0, target) };
}

/**
 * The states of a conversation that gains one message per step, `finalBytes` of JSON at the last step:
 * `states[s]` holds `s + 1` messages. The arrays share their messages, as an engine's states would.
 */
export function growingStates(steps: number, finalBytes: number): ChatState[] {
  const per = Math.max(40, Math.floor(finalBytes / steps));
  const all = Array.from({ length: steps }, (_, i) => makeMessage(i, per));
  return all.map((_, s) => ({ messages: all.slice(0, s + 1) }));
}

/** A state of about `bytes` bytes of JSON that is different at every step (its last message names it). */
export function sizedState(bytes: number, step: number, messageBytes = 2048): ChatState {
  const count = Math.max(1, Math.round(bytes / messageBytes));
  const messages = Array.from({ length: count }, (_, i) => makeMessage(i, messageBytes));
  messages[count - 1] = makeMessage(step + count, messageBytes);
  return { messages };
}

/** Bytes of a value's JSON text (the default serializer writes plain JSON for these states). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
