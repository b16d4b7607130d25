/**
 * What the embedded demo help desk's callers are: its accounts, users, tokens and the bot's token.
 * Known without the database (the demo's organisation is fixed, src/db/demo/org.ts), so a stdio
 * start on the embedded database can name its caller, and refuse a token the demo does not have,
 * while the database is still starting.
 */
import { ACME, BOT, GLOBEX, INBOXES, USERS } from './demo/org.js';

/** What the CLI prints at start so a user can try the demo right away. */
export interface DemoInfo {
  accounts: Array<{ id: number; name: string }>;
  users: Array<{
    name: string;
    role: 'administrator' | 'agent';
    token: string;
    accountId: number;
    /** Inboxes whose conversations and messages the user can search. */
    inboxes: Array<{ id: number; name: string }>;
  }>;
  /** An AgentBot's token: searchdesk refuses it (bots may not search). */
  botToken: string;
}

export function demoInfo(): DemoInfo {
  return {
    accounts: [
      { id: ACME, name: 'Acme Support' },
      { id: GLOBEX, name: 'Globex Help' },
    ],
    users: USERS.flatMap((u) =>
      u.token === null
        ? []
        : [
            {
              name: u.name,
              role: u.role,
              token: u.token,
              accountId: u.accountId,
              inboxes: INBOXES.filter(
                (i) => i.accountId === u.accountId && (u.role === 'administrator' || u.inboxIds.includes(i.id)),
              ).map((i) => ({ id: i.id, name: i.name })),
            },
          ],
    ),
    botToken: BOT.token,
  };
}
