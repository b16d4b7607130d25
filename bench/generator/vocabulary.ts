/**
 * What generated messages and articles say. Text is sentence templates whose two slots take nouns
 * from WORDS, drawn with a Zipf-like law (see `zipf` in sql-random.ts): the first words are in a
 * large share of all messages, the synthetic tail ("zentorax") in a handful, and order, invoice,
 * ticket and tracking codes are nearly unique — so benchmarks have common, medium and selective terms.
 * The vocabulary never depends on the seed: only which entries are picked does.
 */
import { Random } from '../../src/db/demo/random.js';

/** Real support nouns, most common first. */
const COMMON_WORDS = (
  'order account password invoice payment refund subscription email app login update problem error message ' +
  'issue plan card address delivery shipping product price discount code team customer integration report ' +
  'dashboard settings profile notification phone number page link file export import data calendar booking ' +
  'appointment ticket request charge receipt warranty return exchange package tracking label size color stock ' +
  'checkout cart coupon voucher trial upgrade downgrade renewal license seat user admin role permission access ' +
  'token key webhook api endpoint server database backup sync connection network browser extension plugin ' +
  'widget chat inbox mailbox signature template workflow automation rule filter tag folder document attachment ' +
  'image photo video upload download screen button menu tab form field list table chart analytics metric ' +
  'statistics schedule reminder alert sms whatsapp telegram facebook instagram slack zoom contact lead deal ' +
  'pipeline quote contract agreement policy terms privacy security certificate domain dns ssl redirect website ' +
  'store shop catalog inventory warehouse supplier vendor carrier courier parcel shipment pallet batch serial ' +
  'model device printer scanner router modem battery charger cable adapter headset keyboard mouse monitor ' +
  'laptop tablet camera speaker sensor firmware driver version release beta feature option mode language ' +
  'timezone currency tax vat bank transfer wallet balance credit debit statement budget cost fee penalty ' +
  'deposit installment bill meter usage quota limit storage bandwidth speed performance latency outage ' +
  'downtime incident maintenance migration onboarding training webinar workshop course lesson exam manual ' +
  'guide tutorial article faq documentation feedback survey review rating complaint suggestion approval ' +
  'verification identity passport visa flight hotel reservation luggage boarding gate taxi rental insurance ' +
  'claim coverage premium deductible clinic prescription pharmacy'
).split(' ');

/** How many synthetic product and feature names follow the real words. */
const TAIL_SIZE = 20_000;
const ONSETS = 'b c d f g k l m n p r s t v z br cr dr gr pr tr st pl kl sh ch'.split(' ');
const VOWELS = 'a e i o u ai ea io ou'.split(' ');
const CODAS = ['', '', '', 'n', 'r', 'x', 'l', 's', 'm', 'th'];

/** Pronounceable made-up names ("zentorax", "plaibem"), fixed for every seed. */
function syntheticWords(count: number, taken: Set<string>): string[] {
  const r = new Random(0x5eed_b0c4);
  const words: string[] = [];
  while (words.length < count) {
    let w = '';
    for (let s = r.int(2, 3); s > 0; s--) w += r.pick(ONSETS) + r.pick(VOWELS);
    w += r.pick(CODAS);
    if (!taken.has(w)) {
      taken.add(w);
      words.push(w);
    }
  }
  return words;
}

const common = [...new Set(COMMON_WORDS)];

/** Every word a slot can take, in rank order (rank 1 is the most frequent). */
export const WORDS: readonly string[] = [...common, ...syntheticWords(TAIL_SIZE, new Set(common))];

/** A sentence is `pre + word + mid + word + post`. */
export type Template = readonly [pre: string, mid: string, post: string];

const INCOMING: readonly Template[] = [
  ["I can't find the ", ' in my ', ' settings.'],
  ['My ', ' stopped working after the ', ' update.'],
  ['Is there a way to export the ', ' together with the ', '?'],
  ['We were charged twice for the ', ' and the ', '.'],
  ['The ', ' page shows an error when I open the ', '.'],
  ['Could you help me change the ', ' on my ', '?'],
  ['Since yesterday the ', ' is not syncing with the ', '.'],
  ['I would like to cancel the ', ' but keep the ', '.'],
  ['Where can I download the ', ' for the ', '?'],
  ['Our team cannot access the ', ' from the ', '.'],
  ['The ', ' arrived damaged and the ', ' is missing.'],
  ['How do I connect the ', ' to our ', '?'],
  ['Please update the ', ' linked to my ', '.'],
  ['I keep getting a timeout on the ', ' when I use the ', '.'],
  ['Why was my ', ' declined when I tried the ', '?'],
  ['Can you send me a copy of the ', ' for the ', '?'],
  ['The ', ' still shows the old ', '.'],
  ['I tried resetting the ', ' but the ', ' is still broken.'],
  ['Is the ', ' included in the ', ' plan?'],
  ['Thanks, the ', ' works now but the ', ' is still slow.'],
];

const OUTGOING: readonly Template[] = [
  ['Thanks for reaching out about the ', ". I've checked your ", ' and everything looks correct.'],
  ["I've escalated the ", " issue to our team, and we'll update you about the ", ' shortly.'],
  ['Could you send us a screenshot of the ', ' and the ', ' you are using?'],
  ['You can change the ', ' under Settings, in the ', ' section.'],
  ["We've issued a refund for the ", '; it should reach your ', ' within five business days.'],
  ['The ', ' is a known issue and a fix for the ', ' is on its way.'],
  ['Please try clearing the ', ' and reconnecting the ', '.'],
  ["I've updated the ", ' on your account and reset the ', '.'],
  ['Our documentation on the ', ' explains how to configure the ', '.'],
  ["I'm sorry about the trouble with the ", '. Let me look into the ', ' for you.'],
  ['The ', ' has been restored and the ', ' is syncing again.'],
  ['Let me know if the ', ' still fails after you update the ', '.'],
  ["I've added a note to the ", ' so the ', ' team can follow up.'],
  ['Your ', ' was moved to the new ', ' this morning.'],
];

const NOTES: readonly Template[] = [
  ['Customer mentioned the ', ' again; check the ', ' logs.'],
  ['Possible duplicate of the ', ' ticket about the ', '.'],
  ['Escalated to tier 2: the ', ' fails together with the ', '.'],
  ['VIP customer, handle the ', ' before the ', ' renewal.'],
  ['Waiting for engineering on the ', ' bug in the ', '.'],
  ['Refund approved for the ', '; update the ', ' record.'],
];

/** Sentence templates of every kind in one list; MESSAGE_KINDS says where each kind's run starts. */
export const SENTENCES: readonly Template[] = [...INCOMING, ...OUTGOING, ...NOTES];

/** 1-based first template and count per message kind (incoming, outgoing reply, private note). */
export const SENTENCE_RANGES = {
  incoming: { first: 1, count: INCOMING.length },
  outgoing: { first: INCOMING.length + 1, count: OUTGOING.length },
  note: { first: INCOMING.length + OUTGOING.length + 1, count: NOTES.length },
} as const;

/** Sentences around a code; the code's format is chosen by `(index - 1) % 4`: order, invoice, ticket, tracking. */
export const CODE_SENTENCES: ReadonlyArray<readonly [pre: string, post: string]> = [
  ['My order number is ', '.'],
  ['Invoice ', ' shows the wrong amount.'],
  ['This is about ticket ', '.'],
  ['The tracking number is ', ', but it has not moved.'],
  ['Could you check order ', ' for me?'],
  ['I attached invoice ', ' for reference.'],
  ['Linking this to ticket ', '.'],
  ['The carrier reference ', ' shows delivered.'],
];

export const GREETINGS = ['Hi,', 'Hello,', 'Hi there,', 'Good morning,', 'Hey,', 'Hello team,', 'Dear support,'];

export const CLOSINGS = [
  'Best regards.',
  'Have a great day!',
  "Let me know if there's anything else I can help with.",
  'Thanks for your patience.',
  'Happy to help!',
];

export const ACTIVITIES = [
  'Conversation was marked resolved',
  'Conversation was reopened',
  'Conversation was marked as pending',
  'Conversation was snoozed',
  'Assignee was changed',
  'Team was changed',
  'Conversation was assigned automatically',
  'Priority was set to high',
  'Labels were updated',
  'SLA policy was applied',
];

export const TEMPLATE_MESSAGES = [
  'Please rate your conversation with us.',
  'We usually reply within a few hours.',
  'Thanks for contacting us! An agent will be with you shortly.',
  'Give the team a way to reach you: share your email address.',
];

export const ARTICLE_TITLES: readonly Template[] = [
  ['How to set up the ', ' for your ', ''],
  ['Troubleshooting the ', ' when the ', ' fails'],
  ['Understanding ', ' and ', ' limits'],
  ['Getting started with the ', ' and the ', ''],
  ['Why is my ', ' not showing in the ', '?'],
  ['Managing ', ' permissions for the ', ''],
  ['Connecting the ', ' to your ', ''],
  ['FAQ: ', ' and ', ''],
];

export const ARTICLE_STEPS: readonly Template[] = [
  ['Open the ', ' page and select the ', '.'],
  ['Click **', '** and choose the ', '.'],
  ['Copy the ', ' into the ', ' field.'],
  ['Save the ', ' and refresh the ', '.'],
  ['Check that the ', ' matches the ', '.'],
];

export const ARTICLE_HEADINGS = ['Before you begin', 'Steps', 'Troubleshooting', 'Limits', 'Related articles', 'FAQ'];
