/** Acme's help center: one portal, five categories, articles in several states and locales. */
import { ACME } from './org.js';
import type { DemoRow } from './rows.js';

const DAY = 86_400;

const PORTAL = { id: 1, name: 'Acme Help Center', slug: 'acme-help' } as const;

const CATEGORIES = ['Orders & Shipping', 'Returns & Refunds', 'Account & Security', 'Billing & Payments', 'Products & Warranty'];

type Category = 1 | 2 | 3 | 4 | 5;
type Status = 'draft' | 'published' | 'archived';

interface ArticleText {
  title: string;
  category: Category;
  status: Status;
  locale?: string;
  /** Days since the last edit. */
  age: number;
  description: string;
  content: string;
}

const STATUS_CODES: Record<Status, number> = { draft: 0, published: 1, archived: 2 };

const ARTICLES: readonly ArticleText[] = [
  {
    title: 'How to track your order',
    category: 1,
    status: 'published',
    age: 12,
    description: 'Find out where your parcel is and when it will arrive.',
    content: `## Tracking your parcel\n\nAs soon as your order leaves our warehouse we email you a **tracking number** and a link to the carrier's tracking page.\n\n1. Open the shipping confirmation email.\n2. Click **Track parcel**.\n3. Or sign in and go to **Orders → Track**.\n\nTracking can take up to 24 hours to show the first scan. If nothing has changed for four business days, contact us and we will open an investigation with the carrier.`,
  },
  {
    title: 'Shipping times and costs',
    category: 1,
    status: 'published',
    age: 40,
    description: 'Delivery estimates and fees for standard and express shipping.',
    content: `## Standard shipping\n\nFree on orders over $50, otherwise $4.95. Delivery in **3–5 business days**.\n\n## Express shipping\n\n$14.95, delivery in **1–2 business days** when ordered before 2 pm.\n\nOrders placed on weekends ship the next business day.`,
  },
  {
    title: 'Changing your shipping address',
    category: 1,
    status: 'published',
    age: 25,
    description: 'Update the delivery address of an order that has not shipped yet.',
    content: `You can change the address of an order until it ships.\n\n- Go to **Orders**, pick the order and choose **Edit address**.\n- If the button is missing, the order is already packed: message us and we will try to redirect it with the carrier.\n\nWe cannot change the address of a parcel that is already out for delivery.`,
  },
  {
    title: 'International shipping and customs',
    category: 1,
    status: 'published',
    age: 75,
    description: 'Countries we ship to, customs duties and import taxes.',
    content: `We ship to the United States, Canada, the United Kingdom, the European Union and Australia.\n\n## Customs duties\n\nFor shipments outside the US, **import duties and taxes** may be charged by your country's customs office on delivery. They are not included in our prices.\n\nCustoms processing can add 2–7 days to the delivery time.`,
  },
  {
    title: 'What to do if your package is lost or damaged',
    category: 1,
    status: 'published',
    age: 8,
    description: 'Report a missing, late or damaged delivery.',
    content: `## Damaged delivery\n\nTake a photo of the package and the damaged item and send it to us within **14 days**. We will send a replacement or refund you, no return needed.\n\n## Lost package\n\nIf tracking shows *delivered* but you cannot find the parcel, check with neighbours and your building's reception, then contact us. After a carrier investigation (up to 5 business days) we reship or refund the order.`,
  },
  {
    title: 'Our 30-day return policy',
    category: 2,
    status: 'published',
    age: 30,
    description: 'What you can return, and how long you have.',
    content: `You can return any product within **30 days of delivery** for a full refund, as long as it is complete and in its original packaging.\n\n- Opened items are fine if they are undamaged.\n- Filters, descaling tablets and other consumables can only be returned unopened.\n- Gift recipients get store credit instead of a refund.`,
  },
  {
    title: 'How to request a refund',
    category: 2,
    status: 'published',
    age: 5,
    description: 'Start a return and get your money back.',
    content: `## Start a return\n\n1. Sign in and open **Orders**.\n2. Choose the order and click **Return items**.\n3. Print the prepaid return label we email you.\n\n## Refund\n\nWe refund to your original payment method as soon as the return is checked at our warehouse, usually within 3 business days of arrival. See *Refund timelines by payment method* for when the money shows up.`,
  },
  {
    title: 'Exchanging an item for a different colour',
    category: 2,
    status: 'draft',
    age: 2,
    description: 'Swap a product for another colour or model.',
    content: `**Draft – waiting for the new exchange flow.**\n\nTo exchange an item, return it for a refund and place a new order. Exchanges in one step are coming soon.`,
  },
  {
    title: 'Refund timelines by payment method',
    category: 2,
    status: 'published',
    age: 50,
    description: 'How long it takes for a refund to appear on your statement.',
    content: `| Payment method | Time to appear |\n|---|---|\n| Credit or debit card | 5–10 business days |\n| PayPal | 1–3 business days |\n| Gift card | Immediately |\n\nA pending **authorization hold** is not a charge: it disappears by itself within a few days.`,
  },
  {
    title: 'How to reset your password',
    category: 3,
    status: 'published',
    age: 15,
    description: "Forgot your password? Here's how to set a new one.",
    content: `1. On the sign-in page click **Forgot password?**\n2. Enter your email address.\n3. Open the reset email and choose a new password.\n\nThe reset link is valid for **60 minutes**. If the email does not arrive, check your spam folder or contact us.\n\nPasswords need at least 10 characters including a number.`,
  },
  {
    title: 'Setting up two-factor authentication',
    category: 3,
    status: 'published',
    age: 60,
    description: 'Protect your account with a second sign-in step.',
    content: `## Turn on two-factor authentication\n\nGo to **Account → Security → Two-factor authentication** and scan the QR code with an authenticator app.\n\nSave your **backup codes** somewhere safe: they let you sign in if you lose your phone.\n\nLost your phone and your backup codes? Contact us; we verify your identity before turning two-factor authentication off.`,
  },
  {
    title: 'Deleting your account and personal data',
    category: 3,
    status: 'published',
    age: 90,
    description: 'Close your account and have your data erased (GDPR).',
    content: `You can ask us to delete your account at any time. We erase your personal data **within 30 days**, except invoices we must keep by law.\n\nBefore deleting, you can request an **export of your data** under **Account → Privacy**. Deleted accounts cannot be restored.`,
  },
  {
    title: 'Updating your email address',
    category: 3,
    status: 'draft',
    age: 1,
    description: 'Change the email address you sign in with.',
    content: `Go to **Account → Profile**, enter the new address and confirm it from the verification email.\n\n_TODO: screenshots of the new profile page._`,
  },
  {
    title: 'Downloading invoices',
    category: 4,
    status: 'published',
    age: 20,
    description: 'Get a PDF invoice for any order or subscription payment.',
    content: `Every order has a PDF invoice under **Account → Billing → Invoices**.\n\nNeed the invoice in a company's name? Add your company name and VAT ID first (see *Adding a VAT ID to your invoices*), then ask us to reissue older invoices.`,
  },
  {
    title: 'Adding a VAT ID to your invoices',
    category: 4,
    status: 'published',
    age: 45,
    description: 'Show your company name and VAT number on invoices.',
    content: `Business customers in the EU and UK can add a **VAT ID** under **Account → Billing → Company details**.\n\nNew invoices show it automatically. To correct an invoice issued before, send us the invoice number and we will reissue it.`,
  },
  {
    title: 'Accepted payment methods',
    category: 4,
    status: 'published',
    age: 100,
    description: 'Cards, PayPal and gift cards we accept.',
    content: `We accept Visa, Mastercard, American Express, PayPal, Apple Pay and Acme gift cards.\n\nYou can combine up to three gift cards on one order and pay the rest by card.`,
  },
  {
    title: 'Why was my card declined?',
    category: 4,
    status: 'published',
    age: 35,
    description: 'Common reasons for failed payments and what to do.',
    content: `Most declines come from your bank, not from us:\n\n- **Do not honor**: your bank's fraud check blocked the payment. Call your bank or use another method.\n- **Insufficient funds** or an expired card.\n- A billing address that does not match the one your bank has.\n\nWe never store your full card number.`,
  },
  {
    title: 'Managing your filter subscription',
    category: 4,
    status: 'published',
    age: 18,
    description: 'Change, pause or cancel automatic filter deliveries.',
    content: `Your subscription sends new air purifier filters every three months.\n\n- **Pause or skip** a delivery under **Account → Subscriptions**.\n- **Cancel** at any time; you will not be charged again.\n- Charged for a box that has not shipped yet? Contact us for a refund.`,
  },
  {
    title: 'The Acme two-year warranty',
    category: 5,
    status: 'published',
    age: 120,
    description: 'What the warranty covers and how to make a claim.',
    content: `Every Acme product has a **two-year warranty** against manufacturing defects.\n\n## Make a claim\n\nSend us the **serial number** (on the bottom of the device) and a short description of the problem. If the device is covered we send a free replacement.\n\nThe warranty does not cover accidental damage or normal wear of consumables.`,
  },
  {
    title: 'Registering your product',
    category: 5,
    status: 'archived',
    age: 300,
    description: 'Product registration is no longer needed.',
    content: `**Archived:** registration is no longer required. Your warranty is linked to your order automatically.`,
  },
  {
    title: 'Troubleshooting the Acme app',
    category: 5,
    status: 'published',
    age: 6,
    description: 'Fix connection problems between the app and your devices.',
    content: `## The app does not find my device\n\n1. Turn Bluetooth off and on again.\n2. Keep your phone within 2 metres of the device.\n3. Update the app to the latest version.\n\n## The app crashes\n\nUpdate to the latest version first. If it still crashes, tell us your app version (**Settings → About**) and phone model.`,
  },
  {
    title: 'Descaling your Smart Kettle',
    category: 5,
    status: 'published',
    age: 70,
    description: 'Keep your kettle fast and quiet by descaling it monthly.',
    content: `Limescale makes the kettle slower and louder.\n\n1. Fill it half-way with water and add one descaling tablet.\n2. Boil, then leave it for 30 minutes.\n3. Empty, rinse twice and boil fresh water once.\n\nIn hard-water areas, descale every month.`,
  },
  {
    title: 'Holiday shipping deadlines',
    category: 1,
    status: 'archived',
    age: 200,
    description: 'Last order dates for delivery before the holidays.',
    content: `**Archived.** Order by the dates below for delivery before the holidays:\n\n- Standard shipping: December 15\n- Express shipping: December 20`,
  },
  {
    title: 'Loyalty points program',
    category: 4,
    status: 'archived',
    age: 250,
    description: 'The old points program was replaced by member discounts.',
    content: `**Archived.** The loyalty points program ended. Remaining points were converted into gift cards.`,
  },
  {
    title: 'Passwort zurücksetzen',
    category: 3,
    status: 'published',
    locale: 'de',
    age: 15,
    description: 'Passwort vergessen? So legen Sie ein neues fest.',
    content: `1. Klicken Sie auf der Anmeldeseite auf **Passwort vergessen?**\n2. Geben Sie Ihre E-Mail-Adresse ein.\n3. Öffnen Sie die E-Mail und wählen Sie ein neues Passwort.\n\nDer Link ist **60 Minuten** gültig. Prüfen Sie auch Ihren Spam-Ordner.`,
  },
  {
    title: 'Suivre votre commande',
    category: 1,
    status: 'published',
    locale: 'fr',
    age: 12,
    description: 'Où est votre colis et quand arrivera-t-il ?',
    content: `Dès que votre commande quitte notre entrepôt, nous vous envoyons un **numéro de suivi** par e-mail.\n\nLe premier scan peut prendre jusqu'à 24 heures. Sans nouvelles après quatre jours ouvrés, contactez-nous.`,
  },
  {
    title: 'Cómo solicitar un reembolso',
    category: 2,
    status: 'draft',
    locale: 'es',
    age: 3,
    description: 'Devuelve un producto y recupera tu dinero.',
    content: `1. Inicia sesión y abre **Pedidos**.\n2. Elige el pedido y pulsa **Devolver artículos**.\n3. Imprime la etiqueta de devolución prepagada.\n\nReembolsamos al método de pago original.`,
  },
];

function slugify(title: string): string {
  return title
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Portal, category and article rows; `now` is Unix seconds. */
export function helpCenterRows(now: number): Record<'portals' | 'categories' | 'articles', DemoRow[]> {
  const created = now - 365 * DAY;
  return {
    portals: [
      { id: PORTAL.id, account_id: ACME, name: PORTAL.name, slug: PORTAL.slug, created_at: created, updated_at: created },
    ],
    categories: CATEGORIES.map((name, i) => ({
      id: i + 1,
      account_id: ACME,
      portal_id: PORTAL.id,
      name,
      created_at: created,
      updated_at: created,
    })),
    articles: ARTICLES.map((a, i) => ({
      id: i + 1,
      account_id: ACME,
      portal_id: PORTAL.id,
      category_id: a.category,
      title: a.title,
      description: a.description,
      content: a.content,
      status: STATUS_CODES[a.status],
      locale: a.locale ?? 'en',
      slug: slugify(a.title),
      created_at: now - Math.max(a.age + 30, 330) * DAY,
      updated_at: now - a.age * DAY,
    })),
  };
}
