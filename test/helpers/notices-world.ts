/**
 * The help desk both notice tests search (test/notices.test.ts through the core,
 * test/mcp-notices.test.ts through /mcp): an account with message search and one without, an
 * administrator and an agent who sees only the `Web` inbox, and messages made for each notice —
 * `damaged` and `refund` in Web, `parcels` only in the agent's hidden `Secret` inbox, `wobble`
 * older than the 90-day window (and in the account without message search), 20 `bulkword`s (a full
 * first page, a short second one), and a returns article.
 */
import { DAY, type Fixture } from './fixtures.js';

export interface NoticesWorld {
  account: number;
  noFlag: number;
  admin: string;
  agent: string;
  /** Inbox ids. */
  web: number;
  secret: number;
  /** The Web inbox's conversation (display id 1), which holds its messages. */
  webConversation: number;
  portal: number;
}

export async function buildNoticesWorld(fx: Fixture, now: number): Promise<NoticesWorld> {
  const account = await fx.account({ advancedSearch: true });
  const noFlag = await fx.account({ advancedSearch: false });
  const admin = await fx.user();
  const agent = await fx.user();
  await fx.member(account, admin, 'administrator');
  await fx.member(account, agent, 'agent');
  await fx.member(noFlag, admin, 'administrator');
  const web = await fx.inbox(account, { name: 'Web' });
  const secret = await fx.inbox(account, { name: 'Secret' });
  await fx.inboxMember(web, agent);
  const webConversation = await fx.conversation(account, web, { display_id: 1 });
  const secretConversation = await fx.conversation(account, secret, { display_id: 2 });
  await fx.message(webConversation, { content: 'The box arrived damaged', created_at: now - 2 * DAY });
  await fx.message(webConversation, { content: 'A refund was issued today', created_at: now - 3 * DAY });
  // Only an administrator sees `parcel` match alone: its one message is in an inbox the agent may not access.
  await fx.message(secretConversation, { content: 'Two parcels went missing', created_at: now - 4 * DAY });
  // Older than the 90-day window: no message search finds it, only its conversation can be found.
  await fx.message(webConversation, { content: 'The wobble started long ago', created_at: now - 100 * DAY });
  for (let i = 0; i < 20; i++) await fx.message(webConversation, { content: `bulkword number ${i}`, created_at: now - 10 * DAY });
  // Message search is off in this account, yet one of its messages says `wobble`.
  const other = await fx.conversation(noFlag, await fx.inbox(noFlag));
  await fx.message(other, { content: 'wobble in the other account', created_at: now - DAY });
  const portal = await fx.portal(account);
  await fx.article(account, portal, {
    title: 'Returns policy',
    description: 'How we refund an order',
    content: 'Shipping takes a week.',
  });
  return {
    account,
    noFlag,
    admin: await fx.token(admin),
    agent: await fx.token(agent),
    web,
    secret,
    webConversation,
    portal,
  };
}
