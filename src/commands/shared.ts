/** What every CLI command shares: exit codes, usage errors, signals, help output. */

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Bad command-line usage: printed as one line, exit code 2. */
export class UsageError extends Error {}

export type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Resolves on the first SIGINT/SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** Help and version go to stdout (they are the command's output); everything else to stderr. */
export function printHelp(text: string): number {
  process.stdout.write(text);
  return EXIT_OK;
}
