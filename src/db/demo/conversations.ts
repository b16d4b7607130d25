/** Generated demo conversations: a support topic, a channel, an assignee, a believable exchange. */
import { assigneesOf, INBOXES, teamId, USERS, type DemoInbox, type DemoUser, type TeamKey } from './org.js';
import type { DemoContact } from './people.js';
import type { PlannedConversation, PlannedMessage, Sender } from './plan.js';
import type { Random } from './random.js';
import { fill, SCRIPTS, type Script } from './scripts.js';

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

export interface AccountFlavour {
  accountId: number;
  brand: string;
  products: readonly string[];
  orderNumber: (r: Random) => string;
  /** Topics this business has (Globex sells no subscriptions and has no app). */
  scripts: readonly string[];
  /** The team taking topics without a team of their own, if any. */
  defaultTeam: TeamKey | null;
}

const CARRIERS: ReadonlyArray<readonly [string, (r: Random) => string]> = [
  ['UPS', (r) => `1Z${r.digits(3)}AA1${r.digits(11)}`],
  ['DHL', (r) => r.digits(10)],
  ['FedEx', (r) => r.digits(12)],
  ['USPS', (r) => `9400${r.digits(18)}`],
  ['Royal Mail', (r) => `RM${r.digits(9)}GB`],
];
const CODES = ['SPRING15', 'WELCOME10', 'FREESHIP', 'VIP20', 'SUMMER25'] as const;

function placeholders(r: Random, flavour: AccountFlavour, contact: DemoContact, agent: DemoUser | null): Record<string, string> {
  const [carrier, tracking] = r.pick(CARRIERS);
  return {
    first: contact.firstName,
    agent: agent ? (agent.displayName ?? agent.name.split(' ')[0] ?? agent.name) : 'the team',
    brand: flavour.brand,
    product: r.pick(flavour.products),
    order: flavour.orderNumber(r),
    amount: `$${r.int(19, 349)}.${r.pick(['00', '99', '50', '95'])}`,
    invoice: `INV-${r.digits(6)}`,
    carrier,
    tracking: tracking(r),
    code: r.pick(CODES),
    last4: r.digits(4),
    email: contact.email ?? 'the email address on your account',
    version: r.pick(['4.1.0', '4.2.0', '4.2.1']),
    serial: r.digits(8),
  };
}

/** E-mail reads like e-mail: greeting and signature around the text. */
function asEmail(text: string, by: 'contact' | 'agent', contact: DemoContact, agent: DemoUser | null, brand: string): string {
  if (by === 'contact') {
    const greeting = /^(hi|hello)\b/i.test(text) ? '' : 'Hello,\n\n';
    return `${greeting}${text}\n\nBest regards,\n${contact.name}`;
  }
  return `${text}\n\nKind regards,\n${agent?.name ?? brand}\n${brand} Support`;
}

function pickContact(r: Random, inbox: DemoInbox, contacts: readonly DemoContact[]): DemoContact {
  const fits = contacts.filter((c) => {
    if (inbox.channelType === 'Channel::Whatsapp') return c.phone !== null;
    if (inbox.channelType === 'Channel::Email' || inbox.channelType === 'Channel::Api') return c.email !== null;
    return true;
  });
  return r.pick(fits);
}

function pickStatus(r: Random, lastAt: number, now: number, assigned: boolean): 0 | 1 | 2 | 3 {
  if (!assigned) return 0;
  if (now - lastAt > 7 * DAY) return r.chance(0.92) ? 1 : 0;
  return r.weighted<0 | 1 | 2 | 3>([
    [0, 45],
    [2, 20],
    [1, 25],
    [3, 10],
  ]);
}

/** Squeezes message times into [start, latest] when the exchange would run past "now". */
function fitTimes(times: number[], latest: number): number[] {
  const start = times[0] ?? latest;
  const end = times[times.length - 1] ?? start;
  if (end <= latest) return times;
  const scale = (latest - start) / (end - start);
  return times.map((t) => Math.floor(start + (t - start) * scale));
}

interface Line {
  by: 'contact' | 'agent' | 'note' | 'bot' | 'template';
  text: string;
}

function scriptLines(r: Random, script: Script, inbox: DemoInbox, assigned: boolean): Line[] {
  const lines: Line[] = [];
  if (inbox.channelType === 'Channel::Whatsapp' && script.key === 'shipping_delay' && r.chance(0.5)) {
    lines.push({
      by: 'template',
      text: 'Hi {first}, your order {order} has shipped with {carrier}. Tracking number: {tracking}',
    });
  }
  lines.push({ by: 'contact', text: r.pick(script.opening) });
  if (inbox.channelType === 'Channel::Api') {
    lines.push({ by: 'bot', text: "Hi {first}! I'm the {brand} assistant. An agent will be with you shortly." });
  }
  if (!assigned) {
    if (r.chance(0.4))
      lines.push({
        by: 'contact',
        text: r.pick(['Hello? Is anyone there?', 'Any update on this?', 'Still waiting for an answer.']),
      });
    return lines;
  }
  const steps = script.steps.slice(0, r.int(1, script.steps.length));
  for (const step of steps) lines.push({ by: step.by, text: r.pick(step.say) });
  return lines;
}

const GAP: Record<Line['by'], readonly [number, number]> = {
  contact: [10 * MINUTE, 20 * HOUR],
  agent: [5 * MINUTE, 8 * HOUR],
  note: [1 * MINUTE, 1 * HOUR],
  bot: [5, 30],
  template: [5, 30],
};

/** One generated conversation of `flavour`'s account, created at most 120 days before `now`. */
export function generateConversation(
  r: Random,
  flavour: AccountFlavour,
  contacts: readonly DemoContact[],
  now: number,
): PlannedConversation {
  const inboxes = INBOXES.filter((i) => i.accountId === flavour.accountId);
  const inbox = r.weighted(inboxes.map((i) => [i, i.weight] as const));
  const contact = pickContact(r, inbox, contacts);
  const script = r.pick(SCRIPTS.filter((s) => flavour.scripts.includes(s.key)));
  const candidates = assigneesOf(inbox);
  const assignee = r.chance(0.85) ? r.weighted(candidates.map((u) => [u, u.role === 'agent' ? 3 : 1] as const)) : null;
  const team = teamId(flavour.accountId, script.team ?? flavour.defaultTeam ?? 'care');
  const values = placeholders(r, flavour, contact, assignee);
  const lines = scriptLines(r, script, inbox, assignee !== null);

  const created = now - Math.floor(120 * DAY * r.next() ** 1.2) - 30 * MINUTE;
  let t = created;
  const rawTimes = lines.map((line, i) => (i === 0 ? t : (t += r.int(...GAP[line.by]))));
  const times = fitTimes(rawTimes, now - 2 * MINUTE);
  const messages: PlannedMessage[] = lines.map((line, i) => {
    const at = times[i] ?? created;
    const text = fill(line.text, values);
    const user: Sender = assignee ? { type: 'User', id: assignee.id } : null;
    switch (line.by) {
      case 'contact':
        return message(
          at,
          inbox.channelType === 'Channel::Email' ? asEmail(text, 'contact', contact, assignee, flavour.brand) : text,
          0,
          false,
          { type: 'Contact', id: contact.id },
        );
      case 'agent':
        return message(
          at,
          inbox.channelType === 'Channel::Email' ? asEmail(text, 'agent', contact, assignee, flavour.brand) : text,
          1,
          false,
          user,
        );
      case 'note':
        return message(at, text, 1, true, user);
      case 'bot':
        return message(at, text, 1, false, { type: 'AgentBot', id: 1 });
      case 'template':
        return message(at, text, 3, false, user);
    }
  });
  addActivities(r, messages, assignee, flavour.accountId, now);
  const lastAt = messages.reduce((max, m) => Math.max(max, m.at), created);
  const status = pickStatus(r, lastAt, now, assignee !== null);
  if (status === 1 && assignee) {
    messages.push(
      message(
        Math.min(lastAt + r.int(5 * MINUTE, 2 * HOUR), now - MINUTE),
        `Conversation was marked resolved by ${assignee.name}`,
        2,
        false,
        null,
      ),
    );
  }
  return {
    accountId: flavour.accountId,
    inboxId: inbox.id,
    contactId: contact.id,
    assigneeId: assignee?.id ?? null,
    teamId: r.chance(0.8) ? team : null,
    status,
    messages,
    topic: script.key,
  };
}

function message(at: number, content: string, type: PlannedMessage['type'], isPrivate: boolean, sender: Sender): PlannedMessage {
  return { at, content, type, private: isPrivate, sender };
}

/** "Assigned to … by …" right after the first message, as the help desk records it. */
function addActivities(r: Random, messages: PlannedMessage[], assignee: DemoUser | null, accountId: number, now: number): void {
  const first = messages[0];
  if (!assignee || !first || !r.chance(0.25)) return;
  const admin = USERS.find((u) => u.accountId === accountId && u.role === 'administrator');
  const text =
    admin && admin.id !== assignee.id && r.chance(0.6)
      ? `Assigned to ${assignee.name} by ${admin.name}`
      : `${assignee.name} self-assigned this conversation`;
  const at = Math.min(first.at + r.int(1 * MINUTE, 30 * MINUTE), now - MINUTE);
  const index = messages.findIndex((m) => m.at > at);
  messages.splice(index === -1 ? messages.length : index, 0, message(at, text, 2, false, null));
}
