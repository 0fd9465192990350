export const pipeline: {
  invoke(input: unknown, options?: { thread?: string }): Promise<unknown>;
};
