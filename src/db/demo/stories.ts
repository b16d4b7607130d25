/**
 * Hand-written stories among the generated data, each with words found nowhere else, so the
 * search rules are easy to see (and to test): "hopper" (an old resolved case outside the 90-day
 * window and a recent one on WhatsApp), "gift cards" (website chat only) and a Globex namesake.
 */
import { ACME, GLOBEX } from './org.js';
import type { DemoContact } from './people.js';
import type { PlannedConversation, PlannedMessage, Sender } from './plan.js';

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

export const STORY_CONTACTS: readonly DemoContact[] = [
  {
    id: 1,
    accountId: ACME,
    name: 'Olivia Bennett',
    firstName: 'Olivia',
    email: 'olivia.bennett@example.com',
    phone: '+15035550142',
    identifier: 'cus_OB10042',
    attributes: { city: 'Portland', country: 'United States', company_name: 'Bennett Design Studio' },
  },
  {
    id: 2,
    accountId: ACME,
    name: 'Rahul Mehta',
    firstName: 'Rahul',
    email: null,
    phone: '+447700900123',
    identifier: null,
    attributes: { city: 'Leeds', country: 'United Kingdom' },
  },
  {
    id: 3,
    accountId: ACME,
    name: 'Hiroshi Tanaka',
    firstName: 'Hiroshi',
    email: 'hiroshi.tanaka@example.net',
    phone: null,
    identifier: null,
    attributes: { city: 'Vancouver', country: 'Canada' },
  },
  {
    id: 4,
    accountId: GLOBEX,
    name: 'Oliver Bennett',
    firstName: 'Oliver',
    email: 'oliver.bennett@example.org',
    phone: null,
    identifier: 'gx-100042',
    attributes: { city: 'Toronto', country: 'Canada' },
  },
];

const contact = (id: number): Sender => ({ type: 'Contact', id });
const user = (id: number): Sender => ({ type: 'User', id });
const said = (at: number, content: string, sender: Sender): PlannedMessage => ({
  at,
  content,
  type: sender?.type === 'Contact' ? 0 : 1,
  private: false,
  sender,
});
const noted = (at: number, content: string, by: number): PlannedMessage => ({
  at,
  content,
  type: 1,
  private: true,
  sender: user(by),
});
const activity = (at: number, content: string): PlannedMessage => ({ at, content, type: 2, private: false, sender: null });

export function storyConversations(now: number): PlannedConversation[] {
  const s1 = now - 100 * DAY;
  const s2 = now - 3 * DAY;
  const s3 = now - 20 * DAY;
  const s4 = now - 10 * DAY;
  return [
    {
      accountId: ACME,
      inboxId: 2, // Support Email
      contactId: 1,
      assigneeId: 2, // Tom
      teamId: 3,
      status: 1,
      messages: [
        said(
          s1,
          'Hello,\n\nmy Acme Espresso Grinder from order #A-10042 arrived with a cracked hopper. Could you send a replacement hopper?\n\nBest regards,\nOlivia Bennett',
          contact(1),
        ),
        activity(s1 + 10 * MINUTE, 'Assigned to Tom Becker by Maya Patel'),
        said(
          s1 + 2 * HOUR,
          'Hi Olivia,\n\nsorry about that! A replacement hopper is on its way, tracking number 1Z999AA10123456784.\n\nKind regards,\nTom Becker\nAcme Support',
          user(2),
        ),
        said(s1 + 3 * DAY, 'It arrived today and fits perfectly. Thank you!', contact(1)),
        activity(s1 + 3 * DAY + 30 * MINUTE, 'Conversation was marked resolved by Tom Becker'),
      ],
    },
    {
      accountId: ACME,
      inboxId: 3, // WhatsApp
      contactId: 2,
      assigneeId: 3, // Lena
      teamId: 3,
      status: 0,
      messages: [
        said(s2, "Hi, the replacement hopper for my espresso grinder still hasn't shipped. Order #A-20817", contact(2)),
        activity(s2 + 5 * MINUTE, 'Assigned to Lena Fischer by Maya Patel'),
        noted(
          s2 + 20 * MINUTE,
          'Warehouse says hoppers are backordered until Friday. Offer a partial refund if he asks again.',
          3,
        ),
        said(
          s2 + 25 * MINUTE,
          "Hi Rahul, thanks for your patience! The hopper ships on Friday, I'll send you the tracking number as soon as it leaves our warehouse.",
          user(3),
        ),
        said(s2 + 40 * MINUTE, 'Ok, thanks Lena 👍', contact(2)),
      ],
    },
    {
      accountId: ACME,
      inboxId: 1, // Website Chat
      contactId: 3,
      assigneeId: 4, // Sam
      teamId: 1,
      status: 1,
      messages: [
        said(s3, 'Can I pay with two gift cards on one order?', contact(3)),
        said(
          s3 + 3 * MINUTE,
          'Yes! You can combine up to three gift cards at checkout and pay any remaining balance by card.',
          user(4),
        ),
        said(s3 + 6 * MINUTE, 'Perfect, thanks.', contact(3)),
        activity(s3 + 10 * MINUTE, 'Conversation was marked resolved by Samuel Okafor'),
      ],
    },
    {
      accountId: GLOBEX,
      inboxId: 6, // Globex Email
      contactId: 4,
      assigneeId: 5, // Nina
      teamId: 4,
      status: 2,
      messages: [
        said(
          s4,
          'Hello,\n\nthe Globex Standing Desk I bought wobbles at full height. Is there a stabiliser kit?\n\nBest regards,\nOliver Bennett',
          contact(4),
        ),
        said(
          s4 + 4 * HOUR,
          "Hi Oliver,\n\nyes: the crossbar kit fixes the wobble. I've sent you one free of charge.\n\nKind regards,\nNina Alvarez\nGlobex Support",
          user(5),
        ),
      ],
    },
  ];
}
