import type { ChatState } from '../data.js';

/** Throws unless `state` is a conversation of `messages` messages: a store that returns the wrong step fails. */
export function expectMessages(state: unknown, messages: number, where: string): void {
  const found = (state as ChatState | undefined)?.messages?.length;
  if (found !== messages) throw new Error(`${where}: expected ${messages} messages, read ${found}`);
}
