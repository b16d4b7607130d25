/**
 * What demo conversations are about: one script per support topic. A conversation is the opening
 * and a prefix of the steps, each step one of its variants, `{placeholders}` filled per
 * conversation. Scripts never name dates, so only timestamps move with the creation time.
 */
import type { TeamKey } from './org.js';

export type Speaker = 'contact' | 'agent' | 'note';

export interface Step {
  by: Speaker;
  say: readonly string[];
}

export interface Script {
  key: string;
  /** The team that usually handles it (Acme's teams; Globex has one team for everything). */
  team: TeamKey | null;
  opening: readonly string[];
  steps: readonly Step[];
}

const contact = (...say: string[]): Step => ({ by: 'contact', say });
const agent = (...say: string[]): Step => ({ by: 'agent', say });
const note = (...say: string[]): Step => ({ by: 'note', say });

export const SCRIPTS: readonly Script[] = [
  {
    key: 'shipping_delay',
    team: 'shipping',
    opening: [
      "Hi, I ordered the {product} last week (order {order}) and it still hasn't arrived. Can you check where it is?",
      "Where is my order {order}? The tracking page hasn't updated in four days.",
      'Hello, my package with order number {order} was supposed to arrive yesterday. Any update?',
    ],
    steps: [
      agent(
        'Hi {first}, thanks for reaching out! Order {order} left our warehouse and is with {carrier}. Your tracking number is {tracking}.',
        'Sorry for the wait, {first}. {carrier} shows order {order} as in transit (tracking number {tracking}); it should be delivered within two business days.',
      ),
      contact(
        "The tracking link only says 'label created'. Has it really shipped?",
        'Thanks, but now it says delivery exception. What does that mean?',
        "Ok, I'll wait until then.",
      ),
      note(
        'Opened a trace with {carrier} for {tracking}. Follow up in 48h if there is no new scan.',
        'Carrier confirms the parcel is stuck at the regional hub. Reship if it is not moving by Friday.',
      ),
      agent(
        "I've opened an investigation with {carrier}. If the parcel doesn't move by Friday we'll send a replacement at no cost.",
        'Good news: {carrier} scanned the parcel this morning and it is out for delivery today.',
      ),
      contact('Great, thank you for the quick help!', 'Received it today, thanks!'),
    ],
  },
  {
    key: 'damaged_refund',
    team: 'shipping',
    opening: [
      "My {product} arrived damaged: the box was crushed and the lid is cracked. I'd like a refund please. Order {order}.",
      "The {product} I received doesn't turn on at all. Can I get my money back?",
      "Hi, I want to return the {product} from order {order} and get a refund, it's not what I expected.",
    ],
    steps: [
      agent(
        "I'm sorry to hear that, {first}! Could you send a photo of the damage? Then I'll start the refund right away.",
        "Sorry about that! You can return it within 30 days. I've emailed you a prepaid return label for order {order}.",
      ),
      contact('Here are the photos, the damage is on the left side.', "Got the label, I'll drop the parcel off tomorrow."),
      note(
        'Photos confirm transit damage. Approved a full refund of {amount}, no return needed.',
        'Return received at the warehouse, item unused. OK to refund {amount}.',
      ),
      agent(
        "Thanks! I've issued a full refund of {amount} to your original payment method. It usually shows up within 5–10 business days.",
        'Your return arrived and the refund of {amount} is on its way. You will see it within 5–10 business days.',
      ),
      contact('Perfect, thanks for sorting this out.', 'Thank you, much appreciated.'),
    ],
  },
  {
    key: 'password_reset',
    team: 'technical',
    opening: [
      "I can't log in to my account, the password reset email never arrives.",
      'Hi, I forgot my password and the reset link says it has expired.',
      "Help! I'm locked out of my account after too many login attempts.",
    ],
    steps: [
      agent(
        "Hi {first}, I've sent a new password reset link to {email}. It's valid for 60 minutes, please also check your spam folder.",
        "No problem! I've unlocked your account. You can request a new reset link from the login page now.",
      ),
      contact('Found it in spam, thanks. But now it says the password is too weak?', 'Still nothing in my inbox or in spam.'),
      agent(
        'Passwords need at least 10 characters including a number. A passphrase of three random words works well.',
        "The emails bounced: your mail provider rejected them. I've allow-listed our sender address and resent the link.",
      ),
      contact("That worked, I'm back in. Thanks!", 'Got it now, all good.'),
    ],
  },
  {
    key: 'invoice_copy',
    team: 'billing',
    opening: [
      'Could you send me an invoice for order {order}? I need it for my expense report.',
      'Hi, I need a VAT invoice with our company name for my last purchase.',
      'Where can I download the invoice for my last payment?',
    ],
    steps: [
      agent(
        'Of course! Invoice {invoice} for order {order} is attached. You can also download all invoices under Account → Billing.',
        "Sure, {first}. What's the VAT ID that should appear on the invoice?",
      ),
      contact('Our VAT ID is on file now, can you reissue invoice {invoice} with it?', "Thanks, that's exactly what I needed."),
      note('Reissued {invoice} with the VAT ID; the old PDF is voided in the billing system.'),
      agent(
        'Done: the corrected invoice {invoice} is attached and the old one is voided.',
        'Invoices are also in the app under Account → Billing → Invoices.',
      ),
    ],
  },
  {
    key: 'double_charge',
    team: 'billing',
    opening: [
      'I was charged twice for order {order}! Two payments of {amount} on my card ending in {last4}.',
      'There is a duplicate charge of {amount} on my statement, please refund one of them.',
    ],
    steps: [
      agent(
        "I'm sorry for the trouble, {first}. I see one captured payment and one authorization hold of {amount}; the hold drops off within 3 business days.",
        "You're right, the payment was captured twice. I've refunded the duplicate charge of {amount}.",
      ),
      note(
        'Payment provider shows a duplicate capture for {order}. Refunded the second one and filed a bug with the payments team.',
        'Only one capture in the payment dashboard; the second is a pending authorization.',
      ),
      contact("It's still showing after three days.", "Okay, I'll keep an eye on my statement."),
      agent(
        "I've asked our payments team to release the authorization manually, it should disappear today.",
        'Thanks for your patience! Let me know if anything else comes up.',
      ),
    ],
  },
  {
    key: 'change_address',
    team: 'shipping',
    opening: [
      'I just placed order {order} but entered my old address. Can you change the shipping address?',
      "Can I update the delivery address for order {order}? I'm moving this week.",
    ],
    steps: [
      agent("Sure! Please send me the new address and I'll update it before the order ships."),
      contact("It's 42 Maple Street, Apartment 3. Same city and zip code.", 'New address: 17 Harbour Road, flat 2B.'),
      agent('Updated! Order {order} will ship to the new address.', 'All set, the label now shows your new address.'),
      contact('Thanks so much!'),
    ],
  },
  {
    key: 'cancel_subscription',
    team: 'billing',
    opening: [
      "Please cancel my filter subscription, I don't need the refills anymore.",
      'How do I stop the monthly subscription? I was charged {amount} again today.',
    ],
    steps: [
      agent("I've cancelled your subscription, {first}. You won't be charged again."),
      contact("Can I get a refund for this month's charge of {amount}? The box hasn't shipped yet."),
      note('Charged 2 days ago and not shipped yet: goodwill refund OK.'),
      agent("Since it hasn't shipped, I've refunded the {amount} as well."),
      contact('Thank you, that was easy.'),
    ],
  },
  {
    key: 'app_crash',
    team: 'technical',
    opening: [
      'The {brand} app crashes every time I open the settings screen.',
      "Since the last update the app won't connect to my {product} anymore.",
    ],
    steps: [
      agent(
        'Thanks for the report! Which app version are you on? You can find it under Settings → About.',
        'Sorry about that! Could you try turning Bluetooth off and on again and restarting the app?',
      ),
      contact("It's version {version} on an iPhone.", 'Tried that, still the same error.'),
      note('Known issue APP-1432, fixed in the next release. Linked this conversation to the ticket.'),
      agent(
        'This is a known bug and the fix ships in the next app update later this week. Sorry for the inconvenience!',
        "I've passed this to our engineers with your app version; we'll let you know as soon as there's a fix.",
      ),
      contact('Updated the app and it works now, thanks.', 'Ok, waiting for the update then.'),
    ],
  },
  {
    key: 'discount_code',
    team: null,
    opening: [
      "The discount code {code} isn't working at checkout, it says the code is invalid.",
      'I forgot to apply my promo code {code} to order {order}. Can you still apply it?',
    ],
    steps: [
      agent(
        "That code has expired, but I've created a new one for you: {code}B. It's valid for 7 days.",
        "I can't change a placed order, but I've refunded the discount of {amount} to your card.",
      ),
      contact('Worked, thank you!', 'Great, thanks for being so helpful.'),
    ],
  },
  {
    key: 'account_deletion',
    team: 'technical',
    opening: ['Please delete my account and all my personal data.', 'I want to close my account. How do I do that?'],
    steps: [
      agent(
        'Can I send you an export of your data first? Once the account is deleted we cannot restore your order history.',
        "I've scheduled your account for deletion; it will be removed within 30 days as required by GDPR.",
      ),
      contact('Yes, please send me the export first.', 'Okay, thank you.'),
      agent("I've sent a data export link to {email}. It's valid for 7 days; your account will be deleted afterwards."),
    ],
  },
  {
    key: 'two_factor',
    team: 'technical',
    opening: [
      "I lost my phone and can't get my two-factor authentication code.",
      'My authenticator app was reset and now I cannot sign in.',
    ],
    steps: [
      agent('To verify your identity, please reply with the last four digits of the card used for your last order.'),
      contact("It's {last4}."),
      note('Identity verified via card digits. Two-factor authentication reset.'),
      agent("Thanks, verified! I've turned off two-factor authentication, please set it up again with your new phone."),
      contact('All set up again, thank you.'),
    ],
  },
  {
    key: 'wrong_item',
    team: 'shipping',
    opening: [
      'I received the wrong item: I ordered the {product} but got a phone case instead. Order {order}.',
      'The parcel for order {order} contained someone else’s order.',
    ],
    steps: [
      agent(
        "So sorry for the mix-up, {first}! I've shipped the correct item today with express delivery, tracking number {tracking}.",
      ),
      contact('What should I do with the wrong item?'),
      agent('Please keep it or donate it, no need to send it back. Sorry again for the hassle!'),
      contact('That is very generous, thanks!'),
    ],
  },
  {
    key: 'wholesale',
    team: null,
    opening: [
      "We're a small café chain and would like to buy 20 units of the {product}. Do you offer volume pricing?",
      'Do you offer business accounts with monthly invoicing?',
    ],
    steps: [
      agent(
        "Thanks for your interest! For 10 or more units we offer 15% off. I've forwarded your request to our sales team, they'll email you a quote within one business day.",
      ),
      contact('Great, looking forward to it.'),
      note('Forwarded to sales, lead owner assigned.'),
    ],
  },
  {
    key: 'card_declined',
    team: 'billing',
    opening: [
      'My card keeps getting declined at checkout even though it works everywhere else.',
      'Payment failed three times with my card ending in {last4}. What is going on?',
    ],
    steps: [
      agent(
        "I can see the attempts were declined by your bank with the reason 'do not honor'. That's usually their fraud check; could you call them, or pay with PayPal instead?",
      ),
      contact('Called my bank and they unblocked it. The order went through!', 'Paid with PayPal, that worked.'),
      agent('Glad it worked out, enjoy your {product}!'),
    ],
  },
  {
    key: 'warranty',
    team: 'technical',
    opening: [
      'My {product} stopped working after eight months. Is it still under warranty?',
      'The {product} makes a loud clicking noise since yesterday. Can it be repaired?',
    ],
    steps: [
      agent(
        'Yes, every {brand} product has a two-year warranty. Could you send me the serial number from the bottom of the device?',
      ),
      contact('The serial number is SN-{serial}.'),
      note('Warranty valid for SN-{serial}. Created a replacement order.'),
      agent(
        "I've created a free replacement for you, it ships within two business days. You'll get a tracking email from {carrier}.",
      ),
      contact('Wow, that was quick. Thank you!'),
    ],
  },
];

/** Replaces `{key}` with `values[key]`; an unknown key is a bug in a script. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`demo script placeholder {${key}} has no value`);
    return value;
  });
}
