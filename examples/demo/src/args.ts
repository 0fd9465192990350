/** The demo's command line: how the approval is answered when nobody is at a terminal. */
export interface DemoArgs {
  decision: 'approve' | 'reject' | undefined;
  help: boolean;
}

export const usage = `usage: pnpm demo [--approve | --reject]

  --approve   answer the approval step with "approve" (publishes the post)
  --reject    answer it with "reject" (archives the post)

Without a flag the demo asks at the terminal; when stdin is not a terminal it rejects,
since nothing should be published without a human's yes.`;

/** Parses argv; throws a one-line message on a usage error. */
export function parseArgs(argv: readonly string[]): DemoArgs {
  const args: DemoArgs = { decision: undefined, help: false };
  for (const arg of argv) {
    if (arg === '--') continue; // pnpm may pass it through
    if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '--approve' || arg === '--reject') {
      const decision = arg === '--approve' ? 'approve' : 'reject';
      if (args.decision !== undefined && args.decision !== decision) {
        throw new Error('pass either --approve or --reject, not both');
      }
      args.decision = decision;
    } else throw new Error(`unknown option ${JSON.stringify(arg)}`);
  }
  return args;
}
