/**
 * Who the generated help desks talk to: names, places, companies and e-mail domains. Every list is
 * shared by all accounts, so the noise accounts overlap the large one in names and words (a search
 * that ignored the account filter would visibly return wrong rows). E-mail domains are reserved
 * example domains (RFC 2606); phone numbers are random digits in real country plans.
 */

/** Lower-case ASCII, for e-mail local parts: "Müller" → "muller", "O'Brien" → "obrien". */
export function asciiLower(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

export const FIRST_NAMES = (
  'James Sofia Liam Emma Noah Aisha Lucas Mia Ethan Chloé Mateo Hannah Oliver Zara Daniel Grace Arjun Isabella ' +
  'Kenji Amelia Samuel Fatima Leo Charlotte Diego Ava Hugo Freya Omar Ella Ravi Julia Felix Nora Marcus Ingrid ' +
  'Tariq Lucy Jonas Maria Ben Yuki Connor Elena Kwame Sara Adam Leila Patrick Anna Mohammed Clara Ryan Priya ' +
  'Victor Emily André Hana Michael Olivia David Sophie John Laura Thomas Alice Paul Camille Peter Lena Mark ' +
  'Eva Robert Nina Carlos Rosa Ahmed Layla Wei Mei Hiroshi Sakura Ivan Olga Pedro Lucía José Ana Luca Giulia ' +
  'Søren Astrid Mikael Zoë Tomás Inés Kofi Amara Sanjay Ananya Chen Jia Dmitri Katya Rafael Beatriz'
).split(' ');

export const LAST_NAMES = (
  'Smith Garcia Johnson Müller Nguyen Brown Kowalski Silva Williams Khan Jones Rossi Taylor Dubois Anderson Kim ' +
  'Martin Haddad Thompson Novak White Sato Harris Jensen Clark Costa Lewis Schneider Walker Ahmed Hall Moreau ' +
  "Young Ivanova King Ferreira Wright Okafor Lopez Larsen Hill O'Brien Scott Yamamoto Green Fernández Baker Chen " +
  'Adams Popescu Nelson Reyes Carter Lindberg Mitchell Das Roberts Weber Campbell Mensah Patel Wang Li Zhang ' +
  'Hernández Martínez González Rodríguez Wagner Becker Hoffmann Schulz Fischer Meyer Bernard Petit Richard ' +
  'Lefebvre Bianchi Romano Colombo Ricci Andersson Johansson Nilsson Svensson Kowalczyk Wiśniewski Nowak ' +
  'Tanaka Suzuki Watanabe Ito Singh Kumar Sharma Gupta Mwangi Otieno Abubakar Oyelaran Murphy Kelly Byrne'
).split(' ');

/** Names a chat widget gives anonymous visitors ("misty-river-4821"). */
export const VISITOR_ADJECTIVES = 'crimson misty silent autumn bold quiet sparkling wild gentle lucky'.split(' ');
export const VISITOR_NOUNS = 'meadow river sun forest frost lake breeze field harbor comet'.split(' ');

/** Free-mail style domains, most common first. */
export const MAIL_DOMAINS = [
  'example.com',
  'example.net',
  'mail.example',
  'example.org',
  'inbox.example',
  'post.example',
  'webmail.example',
];

export const COMPANIES = (
  'Northwind Traders|Bluebird Bakery|Summit Outdoor Co.|Pixel & Pine Studio|Harbor Dental|Brightside Coffee|' +
  'Greenleaf Landscaping|Copperline Media|Maple & Oak Interiors|Redwood Analytics|Lighthouse Realty|' +
  'Cedar Lane Café|Fjord Logistics|Sunrise Yoga|Ironclad Security|Blue Lagoon Travel|Orbit Telecom|' +
  'Nimbus Cloudworks|Evergreen Health|Atlas Freight|Quartz Legal|Velvet Fashion House|Falcon Motors|' +
  'Granite Construction|Juniper Schools|Keystone Insurance|Lantern Publishing|Meridian Bank|' +
  'Oakridge Veterinary|Pinnacle Fitness|Riverstone Hotels|Saffron Kitchen|Tidewater Marine|Urban Bloom Florists'
).split('|');

/** `<company>.example`, aligned with COMPANIES. */
export const COMPANY_DOMAINS = COMPANIES.map((c) => `${asciiLower(c.replace(/&/g, 'and').replace(/\bCo\.$/, ''))}.example`);

export const CUSTOMER_PLANS = ['free', 'starter', 'pro', 'business', 'enterprise'];

export interface Place {
  city: string;
  country: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  /** E.164 country calling code, without "+". */
  callingCode: string;
  /** Digits of a national number after the calling code. */
  nationalDigits: number;
  /** Relative share of contacts. */
  weight: number;
}

const place = (city: string, country: string, countryCode: string, callingCode: string, nationalDigits: number, weight: number) =>
  ({ city, country, countryCode, callingCode, nationalDigits, weight }) satisfies Place;

export const PLACES: readonly Place[] = [
  place('New York', 'United States', 'US', '1', 10, 10),
  place('Chicago', 'United States', 'US', '1', 10, 6),
  place('San Francisco', 'United States', 'US', '1', 10, 5),
  place('Austin', 'United States', 'US', '1', 10, 4),
  place('Toronto', 'Canada', 'CA', '1', 10, 4),
  place('London', 'United Kingdom', 'GB', '44', 10, 8),
  place('Manchester', 'United Kingdom', 'GB', '44', 10, 3),
  place('Dublin', 'Ireland', 'IE', '353', 9, 2),
  place('Berlin', 'Germany', 'DE', '49', 11, 5),
  place('Munich', 'Germany', 'DE', '49', 11, 3),
  place('Paris', 'France', 'FR', '33', 9, 5),
  place('Lyon', 'France', 'FR', '33', 9, 2),
  place('Madrid', 'Spain', 'ES', '34', 9, 3),
  place('Barcelona', 'Spain', 'ES', '34', 9, 3),
  place('Lisbon', 'Portugal', 'PT', '351', 9, 2),
  place('Amsterdam', 'Netherlands', 'NL', '31', 9, 3),
  place('Stockholm', 'Sweden', 'SE', '46', 9, 2),
  place('Warsaw', 'Poland', 'PL', '48', 9, 2),
  place('Bangalore', 'India', 'IN', '91', 10, 5),
  place('Mumbai', 'India', 'IN', '91', 10, 4),
  place('São Paulo', 'Brazil', 'BR', '55', 11, 4),
  place('Mexico City', 'Mexico', 'MX', '52', 10, 3),
  place('Sydney', 'Australia', 'AU', '61', 9, 3),
  place('Melbourne', 'Australia', 'AU', '61', 9, 2),
  place('Tokyo', 'Japan', 'JP', '81', 10, 3),
  place('Singapore', 'Singapore', 'SG', '65', 8, 2),
  place('Dubai', 'United Arab Emirates', 'AE', '971', 9, 2),
  place('Lagos', 'Nigeria', 'NG', '234', 10, 2),
  place('Nairobi', 'Kenya', 'KE', '254', 9, 2),
  place('Cape Town', 'South Africa', 'ZA', '27', 9, 1),
];

/** Place indexes repeated by weight: a uniform pick from it is a weighted pick of a place (1-based, for SQL arrays). */
export const PLACE_SLOTS: readonly number[] = PLACES.flatMap((p, i) => Array.from({ length: p.weight }, () => i + 1));

export const CHANNELS: ReadonlyArray<readonly [channelType: string, label: string]> = [
  ['Channel::WebWidget', 'Website'],
  ['Channel::Email', 'Email'],
  ['Channel::Whatsapp', 'WhatsApp'],
  ['Channel::Api', 'API'],
  ['Channel::Sms', 'SMS'],
  ['Channel::FacebookPage', 'Facebook'],
  ['Channel::Telegram', 'Telegram'],
  ['Channel::Instagram', 'Instagram'],
];

export const REGIONS = ['US', 'EU', 'UK', 'APAC', 'LATAM', 'DACH', 'Nordics'];

export const TEAM_NAMES =
  'Billing|Technical Support|Onboarding|Sales|VIP|Returns|Shipping|Escalations|Integrations|Enterprise|Partners|Mobile'.split(
    '|',
  );

export const PORTALS: ReadonlyArray<readonly [name: string, slug: string]> = [
  ['Help Center', 'help'],
  ['Developer Docs', 'developers'],
  ['Partner Portal', 'partners'],
  ['Status & Updates', 'status'],
];

export const CATEGORY_NAMES = (
  'Getting started|Billing & payments|Account & security|Orders & shipping|Returns & refunds|Integrations|' +
  'Troubleshooting|Mobile app|Reports & analytics|API & webhooks|Team management|Notifications'
).split('|');

/**
 * Label titles (the help desk's format: lower case, letters, digits, `-` and `_`), busiest
 * first: a conversation's first label is drawn Zipf-like over an account's labels, so the first
 * few are on many conversations and the rest form a long tail. Every account uses a prefix of
 * this list, so the shared `tags` rows are this list in order (tag id = position + 1).
 */
export const LABEL_TITLES = (
  'billing|bug|feature-request|refund|shipping-delay|login-issue|vip|churn-risk|onboarding|password-reset|' +
  'invoice|api|mobile-app|integration|feedback|escalated|damaged-item|wrong-item|cancellation|upgrade|' +
  'downgrade|data-export|gdpr|sso|webhooks|performance|outage|translation|accessibility|partner|' +
  'reseller|trial|enterprise|security|compliance|duplicate|spam|follow-up|survey|training'
).split('|');

/** Label colours, cycled. */
export const LABEL_COLORS = ['#1f93ff', '#ff6b6b', '#2ecc71', '#f39c12', '#9b59b6', '#16a085', '#e67e22', '#34495e'];
